package jose_test

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
)

func newECDH(t testing.TB) *ecdh.PrivateKey {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func exchangeKey(t testing.TB) []byte {
	t.Helper()
	k, err := jose.DeriveKey(newECDH(t), newECDH(t).PublicKey(), "3DS_LOA_SDK_STIN_020100_00142")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestDirectRoundTrip(t *testing.T) {
	key := exchangeKey(t)
	for _, enc := range []string{jose.A128CBCHS256, jose.A128GCM} {
		for _, d := range []jose.Direction{jose.SDKToACS, jose.ACSToSDK} {
			for _, pt := range []string{"", "{}", strings.Repeat("x", 16), strings.Repeat("é", 1000)} {
				c, err := jose.EncryptDirect([]byte(pt), key, enc, "kid-1", d, 3)
				if err != nil {
					t.Fatal(err)
				}
				j, err := jose.ParseJWE(c)
				if err != nil {
					t.Fatal(err)
				}
				got, err := j.DecryptDirect(key, d)
				if err != nil || string(got) != pt {
					t.Errorf("%s %d %q: got %q, %v", enc, d, pt, got, err)
				}
				if bytes.ContainsAny(c, "=+/ \n") {
					t.Errorf("%s: not base64url without padding: %s", enc, c)
				}
			}
		}
	}
}

// TestGCMHalves: with A128GCM each direction has its own half of the key,
// so a CRes does not decrypt as a CReq; A128CBC-HS256 uses the whole key
// both ways.
func TestGCMHalves(t *testing.T) {
	key := exchangeKey(t)
	c, err := jose.EncryptDirect([]byte(`{"a":1}`), key, jose.A128GCM, "k", jose.ACSToSDK, 0)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := jose.ParseJWE(c)
	if _, err := j.DecryptDirect(key, jose.SDKToACS); !errors.Is(err, jose.ErrDecryption) {
		t.Errorf("a CRes read with the CReq's half: %v, want ErrDecryption", err)
	}
}

func TestJWEErrors(t *testing.T) {
	key := exchangeKey(t)
	good, err := jose.EncryptDirect([]byte(`{"messageType":"CReq"}`), key, jose.A128CBCHS256, "k", jose.SDKToACS, 0)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(good), ".")
	hdr := func(h string) string { return base64.RawURLEncoding.EncodeToString([]byte(h)) }
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, ".")
	}
	flip := func(i int) string {
		b, _ := base64.RawURLEncoding.DecodeString(parts[i])
		b[len(b)-1] ^= 1
		return with(i, base64.RawURLEncoding.EncodeToString(b))
	}
	otherKey := exchangeKey(t)
	for _, tc := range []struct {
		name, compact string
		key           []byte
		want          error
	}{
		{"four parts", strings.Join(parts[:4], "."), key, jose.ErrFormat},
		{"six parts", string(good) + ".x", key, jose.ErrFormat},
		{"padded", with(3, parts[3]+"=="), key, jose.ErrFormat},
		{"standard alphabet", with(0, "+/"), key, jose.ErrFormat},
		{"header not JSON", with(0, hdr("not json")), key, jose.ErrFormat},
		{"header without alg", with(0, hdr(`{"enc":"A128GCM"}`)), key, jose.ErrFormat},
		{"header a number", with(0, hdr(`{"alg":1}`)), key, jose.ErrFormat},
		{"header too big", with(0, hdr(`{"alg":"dir","kid":"`+strings.Repeat("k", 5000)+`"}`)), key, jose.ErrFormat},
		{"too big", string(good) + strings.Repeat("A", jose.MaxCompact), key, jose.ErrFormat},
		{"alg RSA-OAEP", with(0, hdr(`{"alg":"RSA-OAEP","enc":"A128CBC-HS256"}`)), key, jose.ErrUnsupported},
		{"enc A256CBC-HS512", with(0, hdr(`{"alg":"dir","enc":"A256CBC-HS512"}`)), key, jose.ErrUnsupported},
		{"zip", with(0, hdr(`{"alg":"dir","enc":"A128CBC-HS256","zip":"DEF"}`)), key, jose.ErrUnsupported},
		{"crit", with(0, hdr(`{"alg":"dir","enc":"A128CBC-HS256","crit":["exp"]}`)), key, jose.ErrUnsupported},
		{"an encrypted key", with(1, "AAAA"), key, jose.ErrFormat},
		{"short IV", with(2, "AAAA"), key, jose.ErrFormat},
		{"ciphertext not whole blocks", with(3, "AAAA"), key, jose.ErrFormat},
		{"changed header", with(0, hdr(`{"alg":"dir","enc":"A128CBC-HS256","kid":"x"}`)), key, jose.ErrDecryption},
		{"changed IV", flip(2), key, jose.ErrDecryption},
		{"changed ciphertext", flip(3), key, jose.ErrDecryption},
		{"changed tag", flip(4), key, jose.ErrDecryption},
		{"short tag", with(4, "AAAA"), key, jose.ErrDecryption},
		{"another key", string(good), otherKey, jose.ErrDecryption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := jose.ParseJWE([]byte(tc.compact))
			if err == nil {
				_, err = j.DecryptDirect(tc.key, jose.SDKToACS)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestJWK(t *testing.T) {
	k := newECDH(t)
	j := jose.ECPublicJWK(k.PublicKey())
	raw, _ := json.Marshal(j)
	back, err := jose.ParseJWK(raw)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := back.ECPublicKey()
	if err != nil || !pub.Equal(k.PublicKey()) {
		t.Fatalf("round trip: %v", err)
	}
	notOnCurve := j
	notOnCurve.Y = j.X
	short := j
	short.X = j.X[:20]
	padded := j
	padded.X += "="
	for _, tc := range []struct {
		name string
		jwk  any
		want string
	}{
		{"kty RSA", jose.JWK{Kty: "RSA", Crv: "P-256", X: j.X, Y: j.Y}, "kty must be EC"},
		{"crv P-384", jose.JWK{Kty: "EC", Crv: "P-384", X: j.X, Y: j.Y}, "crv must be P-256"},
		{"no x", jose.JWK{Kty: "EC", Crv: "P-256", Y: j.Y}, "x is missing"},
		{"short x", short, "x must be 32 bytes"},
		{"padded x", padded, "x must be 32 bytes"},
		{"not on the curve", notOnCurve, "not a point on the curve"},
		{"a number for x", map[string]any{"kty": "EC", "crv": "P-256", "x": 1, "y": j.Y}, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.jwk)
			k, err := jose.ParseJWK(raw)
			if err == nil {
				_, err = k.ECPublicKey()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
	if _, err := jose.ParseJWK(bytes.Repeat([]byte(" "), jose.MaxJWK+1)); err == nil {
		t.Error("a JWK larger than MaxJWK was read")
	}
	if _, err := jose.ParseJWK([]byte(`{"kty":"EC"} {}`)); err == nil {
		t.Error("two JSON values were read as one JWK")
	}
}

// testChain makes a root and a leaf of key signed by it.
func testChain(t testing.TB, key crypto.Signer) (root *x509.Certificate, leafDER, rootDER []byte) {
	t.Helper()
	rootKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	rt := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test root"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	rootDER, err = x509.CreateCertificate(rand.Reader, rt, rt, rootKey.Public(), rootKey)
	if err != nil {
		t.Fatal(err)
	}
	root, _ = x509.ParseCertificate(rootDER)
	lt := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "test ACS"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	leafDER, err = x509.CreateCertificate(rand.Reader, lt, root, key.Public(), rootKey)
	if err != nil {
		t.Fatal(err)
	}
	return root, leafDER, rootDER
}

func TestJWS(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	for _, tc := range []struct {
		alg string
		key crypto.Signer
	}{{"ES256", ec}, {"PS256", rk}} {
		t.Run(tc.alg, func(t *testing.T) {
			root, leaf, rootDER := testChain(t, tc.key)
			payload := []byte(`{"acsURL":"http://127.0.0.1/acs"}`)
			c, err := jose.SignJWS(payload, tc.key, [][]byte{leaf, rootDER})
			if err != nil {
				t.Fatal(err)
			}
			j, err := jose.ParseJWS(c)
			if err != nil {
				t.Fatal(err)
			}
			if j.Header.Alg != tc.alg || len(j.Header.X5C) != 2 || !bytes.Equal(j.Payload, payload) {
				t.Fatalf("header %+v payload %s", j.Header, j.Payload)
			}
			roots := x509.NewCertPool()
			roots.AddCert(root)
			if _, err := j.Verify(roots, time.Now()); err != nil {
				t.Errorf("Verify: %v", err)
			}
			other, _, _ := testChain(t, tc.key)
			pool := x509.NewCertPool()
			pool.AddCert(other)
			if _, err := j.Verify(pool, time.Now()); err == nil {
				t.Error("verified against a root outside its chain")
			}
			if _, err := j.Verify(roots, time.Now().Add(2*time.Hour)); err == nil {
				t.Error("verified after the chain expired")
			}
			p := bytes.Split(c, []byte("."))
			p[1] = []byte(base64.RawURLEncoding.EncodeToString([]byte(`{"acsURL":"http://evil"}`)))
			j2, _ := jose.ParseJWS(bytes.Join(p, []byte(".")))
			if _, err := j2.Verify(nil, time.Now()); err == nil {
				t.Error("a changed payload verified")
			}
		})
	}
}
