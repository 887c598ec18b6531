package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestSandboxFormsRefuseOtherSites: every state-changing form and script
// route of the console and the banking app refuses a browser's post from
// another site's page (403, with a page or the error body that says
// why), and takes the same post from its own page or from no browser
// (neither Sec-Fetch-Site nor Origin). The demo's notification and
// capture receivers take the ACS's posts from anywhere, as a merchant's
// notificationUrl does.
func TestSandboxFormsRefuseOtherSites(t *testing.T) {
	e := newConsoleEnv(t, consoleOptions{})
	own := strings.TrimSuffix(e.URL, "/")
	headers := []struct {
		name    string
		header  map[string]string
		refused bool
	}{
		{"same origin", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": own}, false},
		{"no browser", nil, false},
		{"Origin of the sandbox, no Sec-Fetch-Site", map[string]string{"Origin": own}, false},
		{"cross-site", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, true},
		{"same-site", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://other.localhost"}, true},
		{"another Origin, no Sec-Fetch-Site (plain http)", map[string]string{"Origin": "http://evil.example"}, true},
		{"a null Origin", map[string]string{"Origin": "null"}, true},
	}
	oob := e.browser()
	appOf := func() string {
		r := e.api("/authentication/brw", "csrf-token", testkit.LookupBody(t, "4000000000009300", nil))
		id, _ := r["threeDsServerTransId"].(string)
		if id == "" {
			t.Fatalf("oob lookup: %v", r)
		}
		return "/acs/app/" + id
	}
	routes := []struct {
		name string
		send func(b *browser, h map[string]string) page
		want int // when taken
		json bool
	}{
		{"console login", func(b *browser, h map[string]string) page {
			return b.post("/console/login", url.Values{"token": {"attacker-token"}}, h)
		}, http.StatusSeeOther, false},
		{"console logout", func(b *browser, h map[string]string) page {
			b.login("victim-token")
			return b.post("/console/logout", nil, h)
		}, http.StatusSeeOther, false},
		{"demo lookup", func(b *browser, h map[string]string) page {
			return b.postJSON("/console/demo/lookup", testkit.LookupBody(t, e.Frictionless, nil), h)
		}, http.StatusOK, true},
		{"demo enquiry", func(b *browser, h map[string]string) page {
			return b.postJSON("/console/demo/enquiry", map[string]string{"threeDsServerTransId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}, h)
		}, http.StatusNotFound, true},
		{"demo capture JWT", func(b *browser, h map[string]string) page {
			return b.postJSON("/console/demo/ddc-jwt", map[string]string{"ddcId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}, h)
		}, http.StatusOK, true},
		{"banking app answer", func(_ *browser, h map[string]string) page {
			return oob.post(appOf(), url.Values{"action": {"approve"}}, h)
		}, http.StatusOK, false},
	}
	for _, rt := range routes {
		for _, hd := range headers {
			t.Run(rt.name+"/"+hd.name, func(t *testing.T) {
				b := e.browser()
				p := rt.send(b, hd.header)
				switch {
				case !hd.refused && p.Status != rt.want:
					t.Errorf("HTTP %d, want %d\n%.400s", p.Status, rt.want, p.Raw)
				case hd.refused && p.Status != http.StatusForbidden:
					t.Errorf("HTTP %d, want 403\n%.400s", p.Status, p.Raw)
				case hd.refused && rt.json && !strings.Contains(p.Raw, "another site"):
					t.Errorf("the refusal does not say why: %s", p.Raw)
				case hd.refused && !rt.json && !strings.Contains(p.Raw, "another site"):
					t.Errorf("the refusal page does not say why:\n%.600s", p.Raw)
				}
				if rt.name == "console login" && hd.refused && len(p.Header.Values("Set-Cookie")) > 0 {
					t.Errorf("a refused login set a cookie: %v", p.Header.Values("Set-Cookie"))
				}
			})
		}
	}
	for _, path := range []string{"/console/demo/notify", "/console/demo/ddc-callback"} {
		p := e.browser().post(path, url.Values{"cres": {"x"}, "ddcId": {"8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}}, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://acs.example"})
		if p.Status == http.StatusForbidden {
			t.Errorf("%s refused the ACS's cross-site post: it is the demo's receiver", path)
		}
	}
}

// TestBankAppIsNotFramed: the banking app opens in a window of its own,
// so its page (and its error page) may be framed by nobody, while the
// challenge pages stay framable by any merchant.
func TestBankAppIsNotFramed(t *testing.T) {
	e := newEnv(t)
	c := e.startChallengeCard(e.card("visa-challenge-oob"))
	page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors *") {
		t.Errorf("the challenge page may not be framed by merchants: %s", csp)
	}
	for _, path := range []string{"/acs/app/" + c.cr.ThreeDSServerTransID, "/acs/app/8a880dc0-d2d2-4067-bcb1-b08d1690b26e"} {
		r := e.call(http.MethodGet, path, "", nil)
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s (HTTP %d): Content-Security-Policy %q, want frame-ancestors 'none'", path, r.Status, csp)
		}
	}
}
