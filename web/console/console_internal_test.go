package console

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestSafeNext(t *testing.T) {
	c := &Console{base: "/3ds"}
	def := "/3ds/console/transactions"
	tests := []struct{ next, want string }{
		{"", def},
		{"/3ds/console/cards", "/3ds/console/cards"},
		{"/3ds/console", "/3ds/console"},
		{"/3ds/consolex", def},
		{"https://evil.example/3ds/console/", def},
		{"//evil.example/3ds/console/", def},
		{"/3ds/console//evil.example", def},
		{"/3ds/console/\\evil", def},
		{"/3ds/console/\r\nSet-Cookie: x", def},
		{"/elsewhere", def},
		{"/3ds/console/transactions/0f8fad5b-d9cb-469f-a165-70867728950e", "/3ds/console/transactions/0f8fad5b-d9cb-469f-a165-70867728950e"},
		{"/3ds/console/", "/3ds/console/"},
		// Accepted before, each led out of the console: dot segments
		// (http.Redirect cleans them away, a browser reads %2e as a dot),
		// a tab or a newline (a browser drops them from a Location, and
		// then sees the dots), encoded slashes, a NUL, spaces.
		{"/3ds/console/../../evil", def},
		{"/3ds/console/./../../\t/evil.example", def},
		{"/3ds/console/../\t/evil.example", def},
		{"/3ds/console/../\n/evil.example", def},
		{"/3ds/console/%2e%2e/%2e%2e/evil", def},
		{"/3ds/console/..%2f..%2fevil", def},
		{"/3ds/console/%2f%2fevil", def},
		{"/3ds/console/%09/evil", def},
		{"/3ds/console/\x00", def},
		{"/3ds/console/ /evil", def},
		{"/3ds/console/.", def},
		{"/3ds/console/?next=//evil.example", def},
		{"/3ds/console@evil.example", def},
		{"\t//evil.example/3ds/console/", def},
		{"javascript:alert(1)//3ds/console/", def},
	}
	for _, tt := range tests {
		if got := c.safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}

// FuzzSafeNext: whatever next says, the login redirects to a clean path
// of plain characters under the console.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/3ds/console/demo", "/3ds/console/../\t/x", "/3ds/console/%2e%2e/", "//evil", "/3ds/console/\\x"} {
		f.Add(s)
	}
	c := &Console{base: "/3ds"}
	f.Fuzz(func(t *testing.T, next string) {
		got := c.safeNext(next)
		if got != "/3ds/console" && !strings.HasPrefix(got, "/3ds/console/") {
			t.Fatalf("safeNext(%q) = %q: out of the console", next, got)
		}
		if strings.Contains(got, "//") || strings.ContainsAny(got, "%\\?#@: \t\r\n\x00") {
			t.Fatalf("safeNext(%q) = %q", next, got)
		}
		for _, seg := range strings.Split(got, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("safeNext(%q) = %q: a dot segment", next, got)
			}
		}
	})
}

func TestTokenProblem(t *testing.T) {
	for tok, want := range map[string]string{
		"":             "Type a token.",
		"\x00":         "only blanks or control characters",
		"\x00\x00\x01": "only blanks or control characters",
		"\x7f":         "only blanks or control characters",
		"tok\x00en":    "no spaces or control characters",
		"tok en":       "no spaces or control characters",
		"tok\u2028en":  "no spaces or control characters",
		"team-token":   "",
		"tëam":         "",
	} {
		if got := tokenProblem(tok); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("tokenProblem(%q) = %q, want %q", tok, got, want)
		}
	}
	if got := tokenProblem(strings.Repeat("a", maxConsoleToken+1)); !strings.Contains(got, "at most") {
		t.Errorf("a token too long: %q", got)
	}
}

func TestBasicAuth(t *testing.T) {
	tests := []struct {
		spec, user, pass string
		want             bool
	}{
		{"admin:secret", "admin", "secret", true},
		{"admin:secret", "admin", "wrong", false},
		{"admin:secret", "other", "secret", false},
		{"secret", "anyone", "secret", true},
		{"secret", "anyone", "", false},
		{"admin:pa:ss", "admin", "pa:ss", true},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/console/", nil)
		r.SetBasicAuth(tt.user, tt.pass)
		if got := newBasicAuth(tt.spec).allow(r); got != tt.want {
			t.Errorf("%q allows %s:%s = %v, want %v", tt.spec, tt.user, tt.pass, got, tt.want)
		}
	}
	if newBasicAuth("") != nil {
		t.Error("an empty --console-auth protects the console")
	}
	if newBasicAuth("a:b").allow(httptest.NewRequest("GET", "/", nil)) {
		t.Error("a request without credentials is allowed")
	}
}

func TestWithMember(t *testing.T) {
	got, ok := withMember([]byte(`{"status":"C","acsTransId":"a"}`), "challengeHtml", "<form>&</form>")
	if want := `{"status":"C","challengeHtml":"<form>&</form>","acsTransId":"a"}`; !ok || string(got) != want {
		t.Errorf("got %s, %v; want %s", got, ok, want)
	}
	if _, ok := withMember([]byte(`{"transactionStatus":"Y"}`), "x", "y"); ok {
		t.Error("a body that does not open with status was changed")
	}
}

func TestHumanElapsed(t *testing.T) {
	tests := map[time.Duration]string{
		-time.Second:            "0 ms",
		250 * time.Millisecond:  "250 ms",
		1500 * time.Millisecond: "1.50 s",
		90 * time.Second:        "1m30s",
	}
	for d, want := range tests {
		if got := humanElapsed(d); got != want {
			t.Errorf("humanElapsed(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"https://sandbox.example:8443/3ds": "https://sandbox.example:8443",
		"http://localhost:8080":            "http://localhost:8080",
		"/relative":                        "",
		"::bad":                            "",
	} {
		if got := origin(raw); got != want {
			t.Errorf("origin(%q) = %q, want %q", raw, got, want)
		}
	}
}
