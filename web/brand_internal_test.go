package web

import (
	"bytes"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// TestEverySchemeHasItsBrand: the challenge page presents every scheme of
// the scenarios' list with its programme, and its stylesheet has the
// colours of each; a name outside the list gets the generic presentation.
func TestEverySchemeHasItsBrand(t *testing.T) {
	t.Parallel()
	set, err := templates.Parse()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(scenarios.Schemes(), scenarios.Scheme{Name: "NOSUCH", Program: "3-D Secure", Mark: "3DS", Style: "generic"}) {
		t.Run(s.Name, func(t *testing.T) {
			b := brandOf(strings.ToLower(s.Name))
			if b.Program != s.Program || b.Mark != s.Mark || b.Style != s.Style {
				t.Fatalf("brandOf(%q) = %+v, want the list's %+v", s.Name, b, s)
			}
			var page bytes.Buffer
			if err := set.Render(&page, templates.PageChallenge, templates.ChallengePage{Brand: b, WindowSize: 5, Style: emulator.OTPView{PassingOTP: "1234"}}); err != nil {
				t.Fatal(err)
			}
			html := page.String()
			for _, want := range []string{".scheme-" + b.Style + "{", `class="acs scheme-` + b.Style + `"`, ">" + b.Program + "<"} {
				if !strings.Contains(html, want) {
					t.Errorf("challenge page for %s has no %q", s.Name, want)
				}
			}
		})
	}
}
