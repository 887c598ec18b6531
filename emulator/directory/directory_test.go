package directory_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
)

func TestDefault(t *testing.T) {
	d, err := directory.Default()
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := map[string]string{"VISA": "A000000003", "MASTERCARD": "A000000004", "AMEX": "A000000025", "DISCOVER": "A000000152",
		"JCB": "A000000065", "UPI": "A000000333"}
	for scheme, id := range wantIDs {
		s, ok := d.ForScheme(scheme)
		if !ok || s.ID != id {
			t.Errorf("ForScheme(%s) = %v, %v; want id %s", scheme, s, ok, id)
		}
	}
	if s, ok := d.ForID("F055545342"); !ok || s.Key.RSA == nil || s.Scheme != "" {
		t.Errorf("Stripe's RSA test id: %+v, %v", s, ok)
	}
	if s, ok := d.ForID("F155545342"); !ok || s.Key.EC == nil || s.EncryptionKey.Kty != "EC" {
		t.Errorf("Stripe's EC test id: %+v, %v", s, ok)
	}
	for _, s := range d.Servers() {
		t.Run(s.ID, func(t *testing.T) {
			if s.EncryptionKey.Kid == "" || s.EncryptionKey.Use != "enc" {
				t.Errorf("encryption key %+v: want a kid and use enc", s.EncryptionKey)
			}
			if got, ok := d.ForKid(s.EncryptionKey.Kid); !ok || got.ID != s.ID {
				t.Errorf("ForKid(%s) = %v", s.EncryptionKey.Kid, got)
			}
			// The published key is the public half of the private one.
			if k := s.Key.RSA; k != nil {
				ct, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, &k.PublicKey, []byte("cek"), nil)
				if err != nil {
					t.Fatal(err)
				}
				if pt, err := rsa.DecryptOAEP(sha256.New(), nil, k, ct, nil); err != nil || string(pt) != "cek" {
					t.Errorf("round trip: %q, %v", pt, err)
				}
				if s.EncryptionKey.Kty != "RSA" || s.EncryptionKey.N == "" || k.N.BitLen() != 2048 {
					t.Errorf("RSA key %+v, %d bits", s.EncryptionKey, k.N.BitLen())
				}
			}
			// A JWS the ACS signs for the server verifies against its
			// roots, for the next 25 years, and not against another's.
			c, err := jose.SignJWS([]byte(`{}`), s.ACS.Key, s.ACS.Chain)
			if err != nil {
				t.Fatal(err)
			}
			j, err := jose.ParseJWS(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, when := range []time.Time{time.Now(), time.Date(2050, 6, 1, 0, 0, 0, 0, time.UTC)} {
				if _, err := j.Verify(pool(s.Roots), when); err != nil {
					t.Errorf("at %v: %v", when, err)
				}
			}
			rogue, _ := jose.SignJWS([]byte(`{}`), d.Rogue().Key, d.Rogue().Chain)
			if rj, _ := jose.ParseJWS(rogue); rj == nil {
				t.Fatal("rogue JWS")
			} else if _, err := rj.Verify(pool(s.Roots), time.Now()); err == nil {
				t.Error("the rogue ACS's signature verifies against the roots")
			}
		})
	}
}

func pool(certs []*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

// TestLoadErrors: a key directory that is wrong is refused at start-up
// with the file and what is wrong.
func TestLoadErrors(t *testing.T) {
	base := fstest.MapFS{}
	_ = fs.WalkDir(mustKeys(t), ".", func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			b, _ := fs.ReadFile(mustKeys(t), path)
			base[path] = &fstest.MapFile{Data: b}
		}
		return nil
	})
	var m map[string]any
	if err := json.Unmarshal(base[directory.ManifestFile].Data, &m); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(first map[string]any)) fstest.MapFS {
		var c map[string]any
		_ = json.Unmarshal(base[directory.ManifestFile].Data, &c)
		f(c["directoryServers"].([]any)[0].(map[string]any))
		raw, _ := json.Marshal(c)
		out := fstest.MapFS{}
		for k, v := range base {
			out[k] = v
		}
		out[directory.ManifestFile] = &fstest.MapFile{Data: raw}
		return out
	}
	if _, err := directory.Load(base); err != nil {
		t.Fatalf("the embedded keys as a directory: %v", err)
	}
	for _, tc := range []struct {
		name string
		fsys fs.FS
		want string
	}{
		{"no manifest", fstest.MapFS{}, directory.ManifestFile},
		{"bad id", edit(func(e map[string]any) { e["id"] = "visa" }), "not ten upper-case hex digits"},
		{"no kid", edit(func(e map[string]any) { e["kid"] = "" }), "no kid"},
		{"missing key file", edit(func(e map[string]any) { e["encryptionKey"] = "nope.key" }), "nope.key"},
		{"key outside the directory", edit(func(e map[string]any) { e["encryptionKey"] = "../x.key" }), "not a file name inside"},
		{"a certificate as key", edit(func(e map[string]any) { e["encryptionKey"] = "visa-root.crt" }), "a PEM private key"},
		{"leaf of another key", edit(func(e map[string]any) { e["acsKey"] = "jcb-acs.key" }), "does not certify"},
		{"chain to other roots", edit(func(e map[string]any) { e["roots"] = []string{"jcb-root.crt"} }), "lead to the roots"},
		{"duplicate kid", edit(func(e map[string]any) { e["kid"] = "sandbox-a000000004-2026" }), "used twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := directory.Load(tc.fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func mustKeys(t *testing.T) fs.FS {
	t.Helper()
	return directory.EmbeddedKeys()
}
