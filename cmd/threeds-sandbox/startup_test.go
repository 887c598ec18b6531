package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestStartupLogNamesTheConsole: the start-up line names the console's
// URL next to the public URL, under the base path, and a local one opens.
func TestStartupLogNamesTheConsole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		console string // %s is the URL run announced
		opens   bool
	}{
		{"defaults", nil, "%s/console/", true},
		{"base path", []string{"--base-path", "/3ds"}, "%s/console/", true},
		{"public URL", []string{"--public-url", "https://sandbox.example/3ds/"}, "https://sandbox.example/3ds/console/", false},
	}
	line := regexp.MustCompile(`msg="3-D Secure sandbox serving" addr=\S+ public_url=(\S+) console=(\S+) scenarios=\d+`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startDefault(t, tt.args...)
			m := line.FindStringSubmatch(p.stdout.String())
			if m == nil {
				t.Fatalf("no start-up line with the public URL and the console:\n%s", p.stdout)
			}
			want := strings.Replace(tt.console, "%s", p.URL, 1)
			if m[1] != p.URL || m[2] != want {
				t.Errorf("public_url=%s console=%s, want %s and %s", m[1], m[2], p.URL, want)
			}
			if tt.opens {
				if r := testkit.Call(t, http.MethodGet, m[2], "", nil); r.Status != http.StatusOK {
					t.Errorf("GET %s: HTTP %d, want 200", m[2], r.Status)
				}
			}
		})
	}
}

// TestProbesStayAtTheRoot: under --base-path, /healthz, /readyz and
// /metrics answer at the root, where orchestrators look for them, and not
// under the base path.
func TestProbesStayAtTheRoot(t *testing.T) {
	t.Parallel()
	p := startDefault(t, "--base-path", "/3ds")
	root := strings.TrimSuffix(p.URL, "/3ds")
	for path, want := range map[string]int{
		"/healthz": 200, "/readyz": 200, "/metrics": 200,
		"/3ds/healthz": 404, "/3ds/readyz": 404, "/3ds/metrics": 404,
		"/3ds/scenarios": 200, "/scenarios": 404,
	} {
		if got := testkit.Call(t, http.MethodGet, root+path, "", nil).Status; got != want {
			t.Errorf("GET %s: HTTP %d, want %d", path, got, want)
		}
	}
}
