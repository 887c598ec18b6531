package directory

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var generate = flag.Bool("generate", false, "make new embedded test keys in keys/ (go test ./emulator/directory -run TestGenerateKeys -generate)")

// The embedded servers: each card scheme's directory server with its
// registered id, and the test ids of the Stripe SDKs (RSA and EC).
var embeddedServers = []struct {
	scheme, id, name, slug string
	ec                     bool
}{
	{"VISA", "A000000003", "Visa", "visa", false},
	{"MASTERCARD", "A000000004", "Mastercard", "mastercard", false},
	{"AMEX", "A000000025", "American Express", "amex", false},
	{"DISCOVER", "A000000152", "Discover and Diners Club", "discover", false},
	{"JCB", "A000000065", "JCB", "jcb", false},
	{"UPI", "A000000333", "UnionPay International", "upi", false},
	{"", "F055545342", "Test directory server, RSA (the id Stripe's SDKs use in test mode)", "test-rsa", false},
	{"", "F155545342", "Test directory server, EC (the id Stripe's SDKs use in test mode)", "test-ec", true},
}

// TestGenerateKeys writes the embedded test keys anew, with -generate:
// their validity runs from 2026 to 2051, so they need making once.
func TestGenerateKeys(t *testing.T) {
	if !*generate {
		t.Skip("makes new keys only with -generate")
	}
	dir := "keys"
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	until := time.Date(2051, 1, 1, 0, 0, 0, 0, time.UTC)
	serial := int64(1)
	cert := func(tmpl *x509.Certificate, parent *x509.Certificate, pub crypto.PublicKey, signer crypto.Signer) *x509.Certificate {
		serial++
		tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = big.NewInt(serial), from, until
		if parent == nil {
			parent = tmpl
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c
	}
	write := func(name, typ string, der []byte) string {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	writeKey := func(name string, k crypto.Signer) string {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return write(name, "PRIVATE KEY", der)
	}
	ecKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	// chain makes a root and an ACS leaf under it; with ds, a leaf for
	// the directory server's encryption key too.
	chain := func(slug, label string, ds crypto.Signer) (rootFile, leafKeyFile, leafFile, encFile string) {
		rootKey := ecKey()
		root := cert(&x509.Certificate{Subject: pkix.Name{Organization: []string{"threeds-sandbox"}, CommonName: label + " root, test only"},
			IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}, nil, rootKey.Public(), rootKey)
		leafKey := ecKey()
		leaf := cert(&x509.Certificate{Subject: pkix.Name{Organization: []string{"threeds-sandbox"}, CommonName: label + " ACS signing, test only"},
			KeyUsage: x509.KeyUsageDigitalSignature}, root, leafKey.Public(), rootKey)
		if ds != nil {
			usage := x509.KeyUsageKeyEncipherment
			if _, ok := ds.(*ecdsa.PrivateKey); ok {
				usage = x509.KeyUsageKeyAgreement
			}
			enc := cert(&x509.Certificate{Subject: pkix.Name{Organization: []string{"threeds-sandbox"}, CommonName: label + " directory server encryption, test only"},
				KeyUsage: usage}, root, ds.Public(), rootKey)
			encFile = write(slug+"-ds.crt", "CERTIFICATE", enc.Raw)
		}
		return write(slug+"-root.crt", "CERTIFICATE", root.Raw), writeKey(slug+"-acs.key", leafKey), write(slug+"-acs.crt", "CERTIFICATE", leaf.Raw), encFile
	}
	var m manifest
	for _, s := range embeddedServers {
		var ds crypto.Signer = ecKey()
		if !s.ec {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				t.Fatal(err)
			}
			ds = k
		}
		root, acsKey, acs, enc := chain(s.slug, s.name, ds)
		e := m.DirectoryServers
		m.DirectoryServers = append(e, manifestServer{s.scheme, s.id, s.name + " (sandbox test keys)", "sandbox-" + strings.ToLower(s.id) + "-2026", writeKey(s.slug+"-ds.key", ds),
			enc, []string{root}, acsKey, []string{acs}})
	}
	_, rogueKey, rogue, _ := chain("rogue", "Unpublished", nil)
	m.Rogue.ACSKey, m.Rogue.ACSCertificates = rogueKey, []string{rogue}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), append(raw, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
