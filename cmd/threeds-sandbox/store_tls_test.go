package main

import (
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestStoreTLS: on a rediss:// store whose certificate a private
// authority signed, the sandbox serves when that authority is given with
// THREEDS_STORE_CA_FILE, and refuses to start, with exit code 2 and a
// message that names the certificate and the option, without it or with
// another authority.
func TestStoreTLS(t *testing.T) {
	t.Parallel()
	ca := testkit.NewTestCA(t, "managed Redis CA")
	srv := testkit.StartRedis(t, testkit.RedisOptions{TLS: ca})
	env := map[string]string{
		"THREEDS_STORE":           srv.URL,
		"THREEDS_STATE_HASH_KEY":  testHashKey,
		"THREEDS_STATE_BLOCK_KEY": testBlockKey,
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range env {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	p := startProgram(t, with(map[string]string{"THREEDS_STORE_CA_FILE": ca.File}), "--addr", "127.0.0.1:0")
	if r := testkit.Lookup(t, p.URL, testToken, testkit.LookupBody(t, "", nil)); r.Status != http.StatusOK || r.Str("status") != "Y" {
		t.Fatalf("lookup over a TLS store: %d %s", r.Status, r.Raw)
	}
	if keys, err := srv.Query("KEYS", "3ds:t:*"); err != nil || keys == "" {
		t.Errorf("no transaction in the TLS store: %q, %v", keys, err)
	}
	if r := testkit.Call(t, http.MethodGet, p.URL+"/readyz", "", nil); r.Status != http.StatusOK {
		t.Errorf("readyz: %d %s", r.Status, r.Raw)
	}

	other := testkit.NewTestCA(t, "another CA")
	for _, tt := range []struct {
		name  string
		extra map[string]string
		hint  string
	}{
		{"no CA file", nil, "give the authority that signed it with --store-ca-file, THREEDS_STORE_CA_FILE"},
		{"another CA", map[string]string{"THREEDS_STORE_CA_FILE": other.File}, "no authority of --store-ca-file \"" + other.File + "\" signed it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr testkit.Buffer
			err := run(t.Context(), []string{"--addr", "127.0.0.1:0", "--store-wait", "10s"}, envOf(with(tt.extra)), environOf(with(tt.extra)), io.Discard, &stderr, nil)
			if code := exitCode(err); code != exitUsage {
				t.Errorf("exit code %d, want %d (configuration)", code, exitUsage)
			}
			msg := stderr.String()
			for _, want := range []string{"threeds-sandbox: [store] store " + srv.URL, "the server's TLS certificate is not trusted", "certificate signed by unknown authority", tt.hint} {
				if !strings.Contains(msg, want) {
					t.Errorf("the start-up error lacks %q:\n%s", want, msg)
				}
			}
		})
	}
}

// fallbackRootsEnv, set in the environment, makes TestFallbackRoots the
// child process that looks at its roots.
const fallbackRootsEnv = "SANDBOX_TEST_FALLBACK_ROOTS"

// TestFallbackRoots: where the system has no CA files (the scratch image),
// the binary still trusts the public roots it carries, so a rediss://
// store with a publicly signed certificate is verified. The test runs
// itself again with SSL_CERT_FILE and SSL_CERT_DIR pointing nowhere,
// which is what crypto/x509 reads on Linux, and the child checks its
// system pool.
func TestFallbackRoots(t *testing.T) {
	if os.Getenv(fallbackRootsEnv) == "1" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			t.Fatalf("SystemCertPool: %v", err)
		}
		subjects := map[string]bool{}
		//lint:ignore SA1019 the pool is the binary's own, not the platform's, so Subjects lists it
		for _, raw := range pool.Subjects() {
			subjects[string(raw)] = true
		}
		if len(subjects) < 100 {
			t.Fatalf("the system pool holds %d roots without CA files, want the Mozilla set", len(subjects))
		}
		// Roots that managed Redis services' certificates chain to.
		for _, name := range []string{"ISRG Root X1", "Amazon Root CA 1", "DigiCert Global Root G2", "GTS Root R1"} {
			found := false
			for s := range subjects {
				found = found || strings.Contains(s, name)
			}
			if !found {
				t.Errorf("no root %q among the %d the binary carries", name, len(subjects))
			}
		}
		return
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFallbackRoots$", "-test.count=1")
	cmd.Env = append(os.Environ(), fallbackRootsEnv+"=1", "SSL_CERT_FILE="+dir+"/none.pem", "SSL_CERT_DIR="+dir+"/none")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("without CA files: %v\n%s", err, out)
	}
}
