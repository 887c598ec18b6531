package jose

import (
	"crypto/ecdh"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"testing"
)

// TestSDKEncDataRoundTrip: what EncryptSDKEncData makes, as an SDK
// would, DecryptSDKEncData reads, for an RSA and an EC directory key;
// another key refuses it.
func TestSDKEncDataRoundTrip(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaJWK, ecJWK := RSAPublicJWK(&rk.PublicKey), ECPublicJWK(ek.PublicKey())
	rsaJWK.Kid, ecJWK.Kid = "rsa-1", "ec-1"
	keys := []struct {
		name string
		pub  JWK
		priv DirectoryKey
	}{
		{"RSA", rsaJWK, DirectoryKey{ID: "F055545342", Kid: "rsa-1", RSA: rk}},
		{"EC", ecJWK, DirectoryKey{ID: "F155545342", Kid: "ec-1", EC: ek}},
	}
	plain := []byte(`{"DV":"1.6","DD":{"C001":"Android","C005":"th-TH"}}`)
	for _, k := range keys {
		t.Run(k.name, func(t *testing.T) {
			compact, err := EncryptSDKEncData(plain, k.pub, k.priv.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecryptSDKEncData(compact, k.priv)
			if err != nil || string(got) != string(plain) {
				t.Fatalf("decrypted %q, %v", got, err)
			}
			other := keys[0].priv
			if k.name == "RSA" {
				other = keys[1].priv
			}
			other.Kid = k.priv.Kid
			if _, err := DecryptSDKEncData(compact, other); err == nil {
				t.Error("another directory server's key decrypted it")
			}
		})
	}
	if _, err := EncryptSDKEncData(plain, JWK{Kty: "oct"}, "x"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("kty oct: %v, want ErrUnsupported", err)
	}
}
