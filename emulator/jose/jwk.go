package jose

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
)

// JWK is a public JSON Web Key (RFC 7517) of the kinds the app channel
// uses: an EC key on P-256 (kty EC: crv, x, y) or an RSA key (kty RSA: n,
// e). Members it does not know are ignored when read and never written.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	Kid string `json:"kid,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
}

// MaxJWK bounds the JSON of a JWK this package reads: an EC key takes
// about 150 bytes, an RSA key of 4096 bits about 750.
const MaxJWK = 2048

// ECPublicJWK is pub as a JWK (kty EC, crv P-256).
func ECPublicJWK(pub *ecdh.PublicKey) JWK {
	raw := pub.Bytes() // 0x04 || x || y
	return JWK{Kty: "EC", Crv: "P-256", X: b64(raw[1:33]), Y: b64(raw[33:65])}
}

// RSAPublicJWK is pub as a JWK (kty RSA).
func RSAPublicJWK(pub *rsa.PublicKey) JWK {
	return JWK{Kty: "RSA", N: b64(pub.N.Bytes()), E: b64(big.NewInt(int64(pub.E)).Bytes())}
}

// ParseJWK reads one JWK object from raw, at most MaxJWK bytes.
func ParseJWK(raw []byte) (JWK, error) {
	var k JWK
	if len(raw) > MaxJWK {
		return k, fmt.Errorf("a JWK of at most %d bytes, got %d", MaxJWK, len(raw))
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if err := d.Decode(&k); err != nil {
		return k, errors.New("not a JSON object with string members kty, crv, x, y")
	}
	if d.More() {
		return k, errors.New("more than one JSON value")
	}
	return k, nil
}

// ECPublicKey is the P-256 public key k describes: kty EC, crv P-256, x and
// y each 32 bytes in base64url without padding, a point on the curve.
// The error says which member is wrong.
func (k JWK) ECPublicKey() (*ecdh.PublicKey, error) {
	if k.Kty != "EC" {
		return nil, fmt.Errorf("kty must be EC, got %q", k.Kty)
	}
	if k.Crv != "P-256" {
		return nil, fmt.Errorf("crv must be P-256, got %q", k.Crv)
	}
	x, err := coordinate("x", k.X)
	if err != nil {
		return nil, err
	}
	y, err := coordinate("y", k.Y)
	if err != nil {
		return nil, err
	}
	pub, err := ecdh.P256().NewPublicKey(append(append([]byte{4}, x...), y...))
	if err != nil {
		return nil, errors.New("x and y are not a point on the curve P-256")
	}
	return pub, nil
}

// coordinate decodes one coordinate of a P-256 point.
func coordinate(name, s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("%s is missing", name)
	}
	b, err := unb64(s)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%s must be 32 bytes in base64url without padding", name)
	}
	return b, nil
}

// b64 is base64url without padding, as JOSE writes every binary value.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// unb64 reads base64url without padding, strictly: no padding, no other
// alphabet, no white space.
func unb64(s string) ([]byte, error) { return base64.RawURLEncoding.Strict().DecodeString(s) }
