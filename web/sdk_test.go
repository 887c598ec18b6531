package web_test

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// TestDirectoryServers: GET /sdk/directory-servers publishes, without a
// token, every card scheme's directory server and Stripe's test ids, each
// with an encryption key that has a kid and use enc, and the roots that
// the ACS's signature leads to.
func TestDirectoryServers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.call(http.MethodGet, web.PathDirectoryServers, "", nil)
	if r.Status != http.StatusOK || r.Header.Get("Cache-Control") == "" {
		t.Fatalf("status %d, Cache-Control %q", r.Status, r.Header.Get("Cache-Control"))
	}
	var body web.DirectoryServers
	if err := json.Unmarshal([]byte(r.Raw), &body); err != nil {
		t.Fatal(err)
	}
	byID := map[string]web.DirectoryServer{}
	for _, ds := range body.DirectoryServers {
		byID[ds.DirectoryServerID] = ds
	}
	for scheme, id := range map[string]string{"VISA": "A000000003", "MASTERCARD": "A000000004", "AMEX": "A000000025",
		"DISCOVER": "A000000152", "JCB": "A000000065", "UPI": "A000000333", "": "F055545342"} {
		ds, ok := byID[id]
		if !ok || ds.Scheme != scheme {
			t.Errorf("%s: %+v, want scheme %q", id, ds, scheme)
			continue
		}
		if k := ds.EncryptionKey; k.Kid == "" || k.Use != "enc" || (k.Kty != "RSA" && k.Kty != "EC") {
			t.Errorf("%s: encryption key %+v", id, k)
		}
		roots := x509.NewCertPool()
		if ds.EncryptionCertificate == "" {
			t.Errorf("%s: no encryptionCertificate", id)
		}
		for _, b64 := range ds.RootCertificates {
			der, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatalf("%s: root not in standard base64: %v", id, err)
			}
			c, err := x509.ParseCertificate(der)
			if err != nil || !c.IsCA {
				t.Fatalf("%s: root %v, CA %v", id, err, c != nil && c.IsCA)
			}
			roots.AddCert(c)
		}
		// What the ACS signs for this server's cards leads to the
		// published roots.
		s, _ := e.Engine.Directory().ForID(id)
		c, err := jose.SignJWS([]byte(`{}`), s.ACS.Key, s.ACS.Chain)
		if err != nil {
			t.Fatal(err)
		}
		if j, err := jose.ParseJWS(c); err != nil {
			t.Fatal(err)
		} else if _, err := j.Verify(roots, time.Now()); err != nil {
			t.Errorf("%s: the ACS's chain does not lead to the published roots: %v", id, err)
		}
	}
	if k := byID["F155545342"].EncryptionKey; k.Kty != "EC" || k.Crv != "P-256" {
		t.Errorf("Stripe's EC test id: key %+v", k)
	}
	head, err := http.Head(e.URL + web.PathDirectoryServers)
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if head.StatusCode != http.StatusOK || head.Header.Get("Content-Type") != "application/json" {
		t.Errorf("HEAD: %d %q", head.StatusCode, head.Header.Get("Content-Type"))
	}
}
