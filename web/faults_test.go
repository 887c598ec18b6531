package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// rawLookup sends a lookup and returns the transport-level outcome, so
// dropped connections and malformed bodies can be seen.
func (e *env) rawLookup(body string, header http.Header) (*http.Response, []byte, error) {
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/authentication/brw", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer tok")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestChaos(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind   string
		status int // 0: the connection drops
		emv    string
	}{
		{"drop", 0, ""},
		{"malformed", 200, ""},
		{"http500", 500, "404"},
		{"emv402", 504, "402"},
		{"emv403", 503, "403"},
		{"emv405", 502, "405"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			chaos, err := emulator.NewChaos(1, []string{tt.kind}, 1)
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, func(o *envOptions) { o.chaos = chaos })
			body := mustJSON(t, testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
			resp, raw, err := e.rawLookup(body, nil)
			switch {
			case tt.status == 0:
				if err == nil {
					t.Fatalf("connection not dropped: %d %s", resp.StatusCode, raw)
				}
			case tt.kind == "malformed":
				if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(string(raw), "{") || strings.HasSuffix(strings.TrimSpace(string(raw)), "}") {
					t.Fatalf("malformed: %v %s", err, raw)
				}
			default:
				r := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
				checkErrorBody(t, r, tt.status, tt.emv)
			}
			// Public routes are not part of chaos.
			if r := e.call(http.MethodGet, "/scenarios", "", nil); r.Status != 200 {
				t.Errorf("GET /scenarios under chaos: %d", r.Status)
			}
		})
	}
}

func TestChaosSettings(t *testing.T) {
	t.Parallel()
	for _, bad := range []struct {
		p     float64
		kinds []string
	}{{-0.1, nil}, {1.5, nil}, {0.5, []string{"explode"}}} {
		if _, err := emulator.NewChaos(bad.p, bad.kinds, 1); err == nil {
			t.Errorf("NewChaos(%v, %v) accepted", bad.p, bad.kinds)
		}
	}
	off := newEnv(t, func(o *envOptions) { o.chaos, _ = emulator.NewChaos(0, nil, 1) })
	for range 20 {
		if r := off.lookup("tok", testkit.LookupBody(t, off.card("visa-frictionless-y"), nil)); r.Status != 200 {
			t.Fatalf("chaos off but lookup failed: %s", r.Raw)
		}
	}
}
