package callback

import (
	"net"
	"net/url"
	"strings"
	"testing"
)

// TestAllowlistPorts: an entry names a host with every port or with the
// ports it lists; a URL's port, or the scheme's when it names none, must
// be among them, and a port out of 1 to 65535 is refused, saying so.
func TestAllowlistPorts(t *testing.T) {
	a, err := ParseAllowlist("localhost, 127.0.0.1:8080, shop.test:9000-9100, [::1]:8443, 127.0.0.1:9443, SHOP.test:80")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.String(), "localhost,127.0.0.1:8080,127.0.0.1:9443,shop.test:9000-9100,shop.test:80,[::1]:8443"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for raw, want := range map[string]string{
		"http://localhost:1/cb":          "",
		"http://localhost:65535/cb":      "",
		"http://127.0.0.1:8080/cb":       "",
		"http://127.0.0.1:9443/cb":       "",
		"http://127.0.0.1:8081/cb":       "the port 8081 of 127.0.0.1",
		"http://127.0.0.1/cb":            "the port 80 of 127.0.0.1",
		"https://shop.test:9050/cb":      "",
		"https://shop.test/cb":           "the port 443 of shop.test",
		"http://shop.test/cb":            "",
		"http://shop.test:9101/cb":       "the port 9101 of shop.test",
		"http://[::1]:8443/cb":           "",
		"http://[::1]:8444/cb":           "the port 8444 of ::1",
		"http://10.0.0.1:8080/cb":        "the host 10.0.0.1",
		"http://localhost:0/cb":          "the port 0 is not a number from 1 to 65535",
		"http://localhost:65536/cb":      "the port 65536 is not",
		"http://localhost:0000080/cb":    "the port 0000080 is not",
		"http://localhost:abc/cb":        "the port must be a number from 1 to 65535",
		"http://localhost:-1/cb":         "the port must be",
		"http://localhost:8080:9090/cb":  "the port must be",
		"http://[::1]:99999999999999/cb": "the port 99999999999999 is not",
	} {
		err := a.Check(raw)
		switch {
		case want == "" && err != nil:
			t.Errorf("Check(%s) = %v, want allowed", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Check(%s) = %v, want %q", raw, err, want)
		}
	}
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "127.0.0.1:8081": false, "localhost:22": true, "[::1]:8443": true, "[::1]:22": false,
		"127.0.0.1:0": false, "127.0.0.1": false, "shop.test:9000": true, "10.0.0.1:8080": false,
	} {
		if got := a.allowsAddr(addr); got != ok {
			t.Errorf("allowsAddr(%s) = %v, want %v", addr, got, ok)
		}
	}
	for _, bad := range []string{"x:0", "x:65536", "x:abc", "x:", "x:9-8", "x:1-", "x:-5", "[::1", "[::1]8443", "[::1]:", "x:1:2", "a b:80"} {
		if _, err := ParseAllowlist(bad); err == nil {
			t.Errorf("ParseAllowlist(%q) accepted", bad)
		}
	}
	// A host with every port absorbs the ports of its other entries.
	if b, _ := ParseAllowlist("127.0.0.1:8080,127.0.0.1,127.0.0.1:9090"); b.String() != "127.0.0.1" || b.Check("http://127.0.0.1:1/") != nil {
		t.Errorf("every port and some: %q", b)
	}
}

// FuzzCheck: no URL crashes the check, and a URL it accepts is one whose
// connection the sender's dialler allows too.
func FuzzCheck(f *testing.F) {
	a, err := ParseAllowlist("localhost,127.0.0.1:8080-8090,[::1]:8443")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"http://localhost:9/cb", "http://127.0.0.1:8085/", "https://[::1]:8443/x", "http://127.0.0.1:0/", "http://[::1]:99999/",
		"http://127.0.0.1:abc/", "http://user@localhost/", "http://LOCALHOST./", "http://%31%32%37.0.0.1:8080/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if a.Check(raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("Check accepted %q, which does not parse: %v", raw, err)
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if addr := net.JoinHostPort(u.Hostname(), port); !a.allowsAddr(addr) {
			t.Fatalf("Check accepted %q, whose address %s the dialler refuses", raw, addr)
		}
	})
}
