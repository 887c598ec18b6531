package sandbox

import (
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestStoreCAFile: --store-ca-file (THREEDS_STORE_CA_FILE) takes a PEM
// file of certificates for a rediss:// store, and refuses at parse time,
// naming the flag and the file, one that is missing, empty, not PEM, or
// holds a key.
func TestStoreCAFile(t *testing.T) {
	t.Parallel()
	ca := testkit.NewTestCA(t, "config CA")
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caPEM, err := os.ReadFile(ca.File)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := ca.Issue(t)
	keyPEM, _ := os.ReadFile(keyFile)
	serverPEM, _ := os.ReadFile(certFile)
	bundle := write("bundle.pem", string(caPEM)+string(serverPEM))
	keys := map[string]string{
		"THREEDS_STORE":           "rediss://redis.example:6380/0",
		"THREEDS_STATE_HASH_KEY":  strings.Repeat("ab", 32),
		"THREEDS_STATE_BLOCK_KEY": strings.Repeat("cd", 32),
	}
	env := func(file string) func(string) string {
		m := map[string]string{"THREEDS_STORE_CA_FILE": file}
		for k, v := range keys {
			m[k] = v
		}
		return envOf(m)
	}

	c, _, err := Parse(nil, env(bundle), io.Discard)
	if err != nil {
		t.Fatalf("a bundle of two certificates: %v", err)
	}
	if c.StoreCAFile != bundle {
		t.Errorf("StoreCAFile = %q, want %q", c.StoreCAFile, bundle)
	}
	pool, err := loadCAFile(bundle)
	if err != nil || !pool.Equal(func() *x509.CertPool {
		p := x509.NewCertPool()
		p.AppendCertsFromPEM(caPEM)
		p.AppendCertsFromPEM(serverPEM)
		return p
	}()) {
		t.Errorf("loadCAFile(bundle) = %v, %v; want both certificates", pool, err)
	}

	for _, tt := range []struct{ name, file, want string }{
		{"missing", filepath.Join(dir, "nothing.pem"), "no such file"},
		{"empty", write("empty.pem", ""), "holds no PEM certificate"},
		{"not PEM", write("der.pem", "\x30\x82\x01\x00garbage"), "holds no PEM certificate"},
		{"a key", write("key.pem", string(caPEM)+string(keyPEM)), "holds a EC PRIVATE KEY; want only certificates"},
		{"a broken certificate", write("broken.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("nope")}))), "certificate 1:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse(nil, env(tt.file), io.Discard)
			prefix := `[store] --store-ca-file (THREEDS_STORE_CA_FILE) "` + tt.file + `": `
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want %q followed by %q", err, prefix, tt.want)
			}
		})
	}
}
