//go:build full

package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The console's login form: what token it takes, and where it goes next.

// TestConsoleLoginRefusesEmptyTokens: a token that is empty, or only NUL
// bytes, whitespace or control characters, or that holds one, opens no
// session: 400 with a message that says why.
func TestConsoleLoginRefusesEmptyTokens(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	for _, tok := range []string{"", "\x00", "\x00\x00\x00", " \t\r\n ", "\x01\x1f", "\u00a0", "\u2028", "\x7f", "tok\x00en", "tok\ten"} {
		resp, ck := login(t, p.URL, tok, "")
		msg := resp.Header.Get("X-Test-Body")
		if resp.StatusCode != http.StatusBadRequest || ck != nil {
			t.Errorf("login with %q: HTTP %d, cookie %v; want 400 and no session", tok, resp.StatusCode, ck != nil)
		}
		if !strings.Contains(msg, "Type a token") && !strings.Contains(msg, "control characters") {
			t.Errorf("login with %q: the page does not say why:\n%.600s", tok, msg)
		}
	}
}

// TestConsoleNextStaysInTheConsole: after a login the console redirects
// only to a page of its own, whatever next= says: a browser following
// the Location reaches a path under {base}/console on the sandbox.
func TestConsoleNextStaysInTheConsole(t *testing.T) {
	t.Parallel()
	p := startDefault(t, "--base-path", "/3ds")
	base := p.URL + "/3ds"
	host, _ := url.Parse(p.URL)
	for _, next := range []string{
		"", "/3ds/console/demo", "/3ds/console/transactions/abc",
		"//evil.example", "https://evil.example/3ds/console/", "/3ds/console/%2f%2fevil.example",
		"/3ds/console/..%2f..%2fevil", "/3ds/console/%2e%2e/%2e%2e/evil", "/3ds/console/../../evil",
		"/3ds/console/../\t/evil.example", "/3ds/console/../\n/evil.example", "/3ds/console/..\\..\\evil",
		"/3ds/console/\\/evil.example", "/3ds/console/./../../\t/evil.example", "\t//evil.example/3ds/console/",
		"/3ds/console@evil.example", "/3ds/console/ /evil", "/3ds/consolex", "/3ds/console/%09/evil",
		"javascript:alert(1)//3ds/console/", "/3ds/console/\x00", "/3ds/console/?next=//evil.example",
	} {
		resp, ck := login(t, base, testToken, next)
		if resp.StatusCode != http.StatusSeeOther || ck == nil {
			t.Errorf("login with next %q: HTTP %d", next, resp.StatusCode)
			continue
		}
		loc := resp.Header.Get("Location")
		// What a browser makes of it: tabs and newlines are dropped, a
		// backslash is a slash, then the URL is resolved.
		cleaned := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(loc)
		u, err := host.Parse(cleaned)
		if err != nil || u.Host != host.Host || u.Scheme != host.Scheme || strings.Contains(cleaned, "//") ||
			!strings.HasPrefix(u.Path, "/3ds/console/") || strings.Contains(u.Path, "..") || strings.Contains(strings.ToLower(cleaned), "%2e") {
			t.Errorf("login with next %q redirects to %q (a browser goes to %v)", next, loc, u)
		}
	}
}
