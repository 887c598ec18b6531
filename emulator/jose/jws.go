package jose

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// SignJWS signs payload as a compact JWS whose header carries the signer's
// certificate chain, leaf first, in x5c: ES256 for an ECDSA key on P-256,
// PS256 for an RSA key (the two an ACS may use; the iOS SDKs take no
// other).
func SignJWS(payload []byte, key crypto.Signer, chain [][]byte) ([]byte, error) {
	h := Header{}
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, errors.New("jose: ES256 takes a P-256 key")
		}
		h.Alg = "ES256"
	case *rsa.PublicKey:
		h.Alg = "PS256"
	default:
		return nil, fmt.Errorf("jose: no JWS algorithm for a %T", k)
	}
	for _, der := range chain {
		h.X5C = append(h.X5C, base64.StdEncoding.EncodeToString(der))
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("jose: header: %w", err)
	}
	input := b64(hdr) + "." + b64(payload)
	sig, err := sign(key, h.Alg, input)
	if err != nil {
		return nil, err
	}
	return []byte(input + "." + b64(sig)), nil
}

// sign signs a JWS's signing input: ES256 as the raw r || s of 64 bytes
// (RFC 7518 section 3.4), PS256 with a salt as long as the hash.
func sign(key crypto.Signer, alg, input string) ([]byte, error) {
	digest := sha256.Sum256([]byte(input))
	if alg == "PS256" {
		sig, err := key.Sign(rand.Reader, digest[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA256})
		if err != nil {
			return nil, fmt.Errorf("jose: sign: %w", err)
		}
		return sig, nil
	}
	k, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("jose: ES256 needs an *ecdsa.PrivateKey, got %T", key)
	}
	r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
	if err != nil {
		return nil, fmt.Errorf("jose: sign: %w", err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return sig, nil
}

// JWS is a compact JWS (RFC 7515 section 7.1), read but not verified.
type JWS struct {
	Header    Header
	Payload   []byte
	input     string
	Signature []byte
}

// ParseJWS reads a compact JWS: three base64url parts, the first a JSON
// header.
func ParseJWS(compact []byte) (*JWS, error) {
	parts, err := split(compact, 3)
	if err != nil {
		return nil, err
	}
	j := &JWS{input: parts[0] + "." + parts[1]}
	if err := readHeader(parts[0], &j.Header); err != nil {
		return nil, err
	}
	if j.Payload, err = unb64(parts[1]); err != nil {
		return nil, fmt.Errorf("%w: the payload is not base64url without padding", ErrFormat)
	}
	if j.Signature, err = unb64(parts[2]); err != nil {
		return nil, fmt.Errorf("%w: the signature is not base64url without padding", ErrFormat)
	}
	return j, nil
}

// Chain is the certificate chain of x5c, leaf first.
func (j *JWS) Chain() ([]*x509.Certificate, error) {
	if len(j.Header.X5C) == 0 {
		return nil, fmt.Errorf("%w: the header has no x5c", ErrFormat)
	}
	var chain []*x509.Certificate
	for i, s := range j.Header.X5C {
		der, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("%w: x5c[%d] is not standard base64", ErrFormat, i)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("%w: x5c[%d]: %v", ErrFormat, i, err)
		}
		chain = append(chain, c)
	}
	return chain, nil
}

// Verify checks the signature with the leaf of x5c and, with roots, that
// the chain leads from the leaf to one of roots at time now. It returns
// the leaf.
func (j *JWS) Verify(roots *x509.CertPool, now time.Time) (*x509.Certificate, error) {
	chain, err := j.Chain()
	if err != nil {
		return nil, err
	}
	leaf := chain[0]
	digest := sha256.Sum256([]byte(j.input))
	switch j.Header.Alg {
	case "ES256":
		pub, ok := leaf.PublicKey.(*ecdsa.PublicKey)
		if !ok || len(j.Signature) != 64 {
			return nil, errors.New("jose: ES256 needs a P-256 certificate and a 64-byte signature")
		}
		r, s := new(big.Int).SetBytes(j.Signature[:32]), new(big.Int).SetBytes(j.Signature[32:])
		if !ecdsa.Verify(pub, digest[:], r, s) {
			return nil, errors.New("jose: the signature does not verify")
		}
	case "PS256":
		pub, ok := leaf.PublicKey.(*rsa.PublicKey)
		if !ok {
			return nil, errors.New("jose: PS256 needs an RSA certificate")
		}
		if err := rsa.VerifyPSS(pub, crypto.SHA256, digest[:], j.Signature, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto}); err != nil {
			return nil, errors.New("jose: the signature does not verify")
		}
	default:
		return nil, fmt.Errorf("%w: alg %q: want ES256 or PS256", ErrUnsupported, j.Header.Alg)
	}
	if roots == nil {
		return leaf, nil
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		return nil, fmt.Errorf("jose: the x5c chain does not lead to a trusted root: %w", err)
	}
	return leaf, nil
}
