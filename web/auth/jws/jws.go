// Package jws reads and writes JSON Web Signatures in compact form (RFC
// 7515) signed with HMAC SHA-256 ("HS256", RFC 7518), the one algorithm
// the sandbox's tokens use: the JWT a merchant's server makes for the
// device data capture, and the access tokens of the sandbox's OAuth
// token endpoint. It knows nothing of what the claims mean.
//
// Parsing is bounded and strict: a token longer than MaxToken, with other
// than three Base64url segments, a header that is not a JSON object
// naming "alg", or a payload that is not a JSON object, is refused before
// any signature is checked. Verify compares in constant time and accepts
// HS256 only: a token saying "none" or an asymmetric algorithm never
// verifies.
package jws

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// HS256 is the name of the one algorithm the package signs and verifies.
const HS256 = "HS256"

// MaxToken bounds a token, in bytes: the DDC page caps its jwt field at
// 2048, and access tokens are far shorter.
const MaxToken = 4096

// Errors of Parse and Verify, wrapped with detail.
var (
	// ErrMalformed: not a compact JWS of three Base64url segments whose
	// header and payload are JSON objects.
	ErrMalformed = errors.New("not a compact JWS")
	// ErrAlgorithm: the header names an algorithm other than HS256.
	ErrAlgorithm = errors.New("algorithm not accepted")
	// ErrSignature: the signature does not match the key.
	ErrSignature = errors.New("signature does not verify")
)

// Header is the JOSE header of a token, as far as the package reads it.
type Header struct {
	Alg string `json:"alg"`
	Typ string `json:"typ,omitempty"`
	Kid string `json:"kid,omitempty"`
}

// Token is a parsed, not yet verified, compact JWS.
type Token struct {
	Header Header
	// Payload is the decoded payload: a JSON object.
	Payload []byte
	// signingInput is "header.payload" as it came; signature the decoded
	// signature.
	signingInput string
	signature    []byte
}

// Parse splits and decodes a compact JWS without checking its signature.
// Its failures wrap ErrMalformed.
func Parse(token string) (*Token, error) {
	if len(token) > MaxToken {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(token), MaxToken)
	}
	h, rest, ok := strings.Cut(token, ".")
	p, s, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || strings.Contains(s, ".") {
		return nil, fmt.Errorf("%w: want three segments separated by dots", ErrMalformed)
	}
	rawHeader, err := segment("header", h)
	if err != nil {
		return nil, err
	}
	payload, err := segment("payload", p)
	if err != nil {
		return nil, err
	}
	sig, err := segment("signature", s)
	if err != nil {
		return nil, err
	}
	t := &Token{Payload: payload, signingInput: token[:len(h)+1+len(p)], signature: sig}
	if err := object("header", rawHeader, &t.Header); err != nil {
		return nil, err
	}
	if t.Header.Alg == "" {
		return nil, fmt.Errorf("%w: the header names no alg", ErrMalformed)
	}
	if err := object("payload", payload, nil); err != nil {
		return nil, err
	}
	return t, nil
}

// segment decodes one Base64url segment (unpadded, as RFC 7515 has it).
func segment(name, s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: the %s is empty", ErrMalformed, name)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: the %s is not unpadded Base64url", ErrMalformed, name)
	}
	return b, nil
}

// object checks that raw is one JSON object and decodes it into v (when
// not nil).
func object(name string, raw []byte, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return fmt.Errorf("%w: the %s is not a JSON object", ErrMalformed, name)
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: the %s: %v", ErrMalformed, name, err)
	}
	return nil
}

// Verify checks the token's signature with key: HS256 only, compared in
// constant time. Its failures wrap ErrAlgorithm or ErrSignature.
func (t *Token) Verify(key []byte) error {
	if t.Header.Alg != HS256 {
		return fmt.Errorf("%w: %q (want %s)", ErrAlgorithm, t.Header.Alg, HS256)
	}
	if !hmac.Equal(mac(key, t.signingInput), t.signature) {
		return ErrSignature
	}
	return nil
}

// Claims decodes the payload into v.
func (t *Token) Claims(v any) error {
	if err := json.Unmarshal(t.Payload, v); err != nil {
		return fmt.Errorf("%w: the claims: %v", ErrMalformed, err)
	}
	return nil
}

// Sign makes a compact JWS of claims (marshalled to JSON) with HS256 and
// key; kid, when not empty, names the key in the header.
func Sign(key []byte, kid string, claims any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("jws: marshal the claims: %w", err)
	}
	header, _ := json.Marshal(Header{Alg: HS256, Typ: "JWT", Kid: kid}) // three strings always marshal
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	return input + "." + base64.RawURLEncoding.EncodeToString(mac(key, input)), nil
}

// mac is HMAC-SHA256 of input with key.
func mac(key []byte, input string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(input))
	return m.Sum(nil)
}

// LooksLike tells whether s is shaped as a JWT, without decoding it: how
// a bearer token meant as a JWT is told from an opaque one. A JWT in
// compact form (RFC 7519) is a JWS of three dot-separated parts or a JWE
// of five: s is one when it is made of Base64url characters (and the
// '=' of a padding some encoders add) in three or five such parts, the
// first one (the header) not empty. Any other part may be empty, as the
// signature of an unsecured JWT ("alg":"none") is. The shape is wide on
// purpose: a token that merely resembles a JWT is taken for one, so it
// must verify, and a forged one is never taken for an opaque token.
func LooksLike(s string) bool {
	dots := 0
	for i := range len(s) {
		switch compactByte[s[i]] {
		case 0:
			return false
		case '.':
			if i == 0 {
				return false
			}
			dots++
		}
	}
	return dots == 2 || dots == 4
}

// compactByte is the class of each byte of a JWT in compact form, as
// LooksLike reads it: 1 for the Base64url alphabet and '=', '.' for the
// dot, 0 for any other.
var compactByte = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '=':
			t[c] = 1
		case c == '.':
			t[c] = '.'
		}
	}
	return t
}()
