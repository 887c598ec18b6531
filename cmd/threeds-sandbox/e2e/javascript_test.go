//go:build full

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestJavaScriptOff: a browser without JavaScript may leave out the
// properties only a script reads on 2.2.0 (EMV 2.2.0), not on 2.1.0,
// where they stay required as the interface marks them (section 2.3).
func TestJavaScriptOff(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	scriptOnly := []string{"javaEnabled", "colorDepth", "screenHeight", "screenWidth", "timeZone"}
	body := func(version string, leaveOut ...string) map[string]any {
		return testkit.LookupBody(t, "4000000000009003", func(m map[string]any) {
			m["messageVersion"] = version
			b := m["browserInfo"].(map[string]any)
			b["javascriptEnabled"] = false
			for _, f := range leaveOut {
				delete(b, f)
			}
		})
	}
	for _, f := range scriptOnly {
		r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, body("2.1.0", f))
		if r.Status != http.StatusBadRequest || r.Str("errorCode") != "FD01" || r.EMV("emvErrorDetail") != "browserInfo."+f {
			t.Errorf("2.1.0 without JavaScript and %s: %d %s, want 400 FD01 naming browserInfo.%s", f, r.Status, r.Raw, f)
		}
	}
	all := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", testToken, body("2.1.0", scriptOnly...))
	if got := all.EMV("emvErrorDetail"); all.Status != http.StatusBadRequest || strings.Count(got, ",") != len(scriptOnly)-1 {
		t.Errorf("2.1.0 without JavaScript and all five: %d, detail %q, want all five named", all.Status, got)
	}
	if r := p.lookup(t, body("2.2.0", scriptOnly...)); r.Str("status") != "Y" {
		t.Errorf("2.2.0 without JavaScript and the five: %s", r.Raw)
	}
}
