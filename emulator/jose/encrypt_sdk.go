package jose

import (
	"crypto/ecdh"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
)

// EncryptSDKEncData encrypts device information to a directory server's
// public key pub as a 3DS SDK does, for tests and tools (the sandbox only
// decrypts): to an RSA key, alg RSA-OAEP-256 with the key's kid; to an EC
// key, alg ECDH-ES with a fresh ephemeral key in epk, agreed as DeriveKey
// does with dsID (the directory server's id) as PartyVInfo, the iOS SDKs'
// form. The content is encrypted with A128CBC-HS256.
func EncryptSDKEncData(plaintext []byte, pub JWK, dsID string) ([]byte, error) {
	h := Header{Alg: "RSA-OAEP-256", Enc: A128CBCHS256, Kid: pub.Kid}
	var cek, encryptedKey []byte
	switch pub.Kty {
	case "RSA":
		key, err := pub.rsaPublicKey()
		if err != nil {
			return nil, err
		}
		cek = make([]byte, 32)
		if _, err := rand.Read(cek); err != nil {
			return nil, fmt.Errorf("jose: content key: %w", err)
		}
		if encryptedKey, err = rsa.EncryptOAEP(sha256.New(), rand.Reader, key, cek, nil); err != nil {
			return nil, fmt.Errorf("jose: RSA-OAEP-256: %w", err)
		}
	case "EC":
		ds, err := pub.ECPublicKey()
		if err != nil {
			return nil, err
		}
		eph, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("jose: ephemeral key: %w", err)
		}
		if cek, err = DeriveKey(eph, ds, dsID); err != nil {
			return nil, err
		}
		epk := ECPublicJWK(eph.PublicKey())
		h.Alg, h.EPK = "ECDH-ES", &epk
	default:
		return nil, fmt.Errorf("%w: a directory server key of kty %q: want RSA or EC", ErrUnsupported, pub.Kty)
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("jose: header: %w", err)
	}
	protected := b64(hdr)
	iv := make([]byte, 16)
	if _, err := rand.Read(iv); err != nil {
		return nil, fmt.Errorf("jose: initialization vector: %w", err)
	}
	ct, tag, err := sealCBC(cek, []byte(protected), iv, plaintext)
	if err != nil {
		return nil, err
	}
	return compact(protected, encryptedKey, iv, ct, tag), nil
}

// rsaPublicKey is the RSA public key k describes: kty RSA, n and e.
func (k JWK) rsaPublicKey() (*rsa.PublicKey, error) {
	n, err := unb64(k.N)
	if err != nil || len(n) < 256 {
		return nil, fmt.Errorf("%w: n: an RSA modulus of at least 2048 bits in base64url", ErrFormat)
	}
	e, err := unb64(k.E)
	if err != nil || len(e) == 0 || len(e) > 4 {
		return nil, fmt.Errorf("%w: e: an RSA exponent in base64url", ErrFormat)
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
}
