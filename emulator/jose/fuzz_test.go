package jose_test

import (
	"crypto/ecdh"
	"encoding/base64"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
)

// FuzzJWE reads anything as a CReq and as an SDK's device information:
// no panic, and what decrypts was encrypted with the key.
func FuzzJWE(f *testing.F) {
	kat, keys := readKAT(f)
	key := []byte("0123456789abcdef0123456789abcdef")
	for _, m := range kat.Messages {
		f.Add([]byte(m.Compact))
	}
	f.Add([]byte(kat.SDKEncData.RSA))
	f.Add([]byte(kat.SDKEncData.EC))
	f.Add([]byte("...."))
	dsEC, err := ecdh.P256().NewPrivateKey(mustB64(keys["ds"].D))
	if err != nil {
		f.Fatal(err)
	}
	ds := jose.DirectoryKey{ID: "A000000003", EC: dsEC}
	f.Fuzz(func(t *testing.T, compact []byte) {
		j, err := jose.ParseJWE(compact)
		if err != nil {
			if j != nil {
				t.Fatal("a JWE and an error")
			}
			return
		}
		for _, d := range []jose.Direction{jose.SDKToACS, jose.ACSToSDK} {
			if pt, err := j.DecryptDirect(key, d); err == nil {
				// Only a message made with the key decrypts: make it
				// again and compare.
				if again, err := jose.EncryptDirect(pt, key, j.Header.Enc, j.Header.Kid, d, 0); err != nil || again == nil {
					t.Fatalf("decrypted %q but cannot encrypt it again: %v", pt, err)
				}
			}
		}
		_, _ = jose.DecryptSDKEncData(compact, ds)
	})
}

// FuzzJWK reads anything as an SDK's ephemeral key.
func FuzzJWK(f *testing.F) {
	f.Add([]byte(`{"kty":"EC","crv":"P-256","x":"1jX6QxVO3oY8L8yqnj-uzpIlKjw8nxXealOZmEB2Kg8","y":"W1WBS8QVfGnk4Sar37w2HaurMvc5OB-lKIgJ2JPfx1Y"}`))
	f.Add([]byte(`{"kty":"EC","crv":"P-256","x":"","y":""}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		k, err := jose.ParseJWK(raw)
		if err != nil {
			return
		}
		pub, err := k.ECPublicKey()
		if err != nil {
			return
		}
		if back := jose.ECPublicJWK(pub); back.X != k.X || back.Y != k.Y {
			t.Fatalf("%+v read as a key written %+v", k, back)
		}
	})
}

// FuzzJWS reads anything as an ACS's signed content.
func FuzzJWS(f *testing.F) {
	f.Add([]byte("eyJhbGciOiJFUzI1NiJ9.e30.AAAA"))
	f.Add([]byte(".."))
	f.Fuzz(func(t *testing.T, compact []byte) {
		j, err := jose.ParseJWS(compact)
		if err != nil {
			return
		}
		if _, err := j.Verify(nil, time.Now()); err == nil && len(j.Header.X5C) == 0 {
			t.Fatal("verified without a certificate")
		}
	})
}

func mustB64(s string) []byte {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
