package console

import (
	"net/http/httptest"
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
	}
	for _, tt := range tests {
		if got := c.safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
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

func TestCrossSite(t *testing.T) {
	for site, want := range map[string]bool{"": false, "same-origin": false, "none": false, "same-site": true, "cross-site": true} {
		r := httptest.NewRequest("POST", "/console/login", nil)
		if site != "" {
			r.Header.Set("Sec-Fetch-Site", site)
		}
		if got := CrossSite(r); got != want {
			t.Errorf("Sec-Fetch-Site %q: CrossSite = %v, want %v", site, got, want)
		}
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
