package jose

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The content encryptions (JWE "enc") of a CReq/CRes exchange.
const (
	A128CBCHS256 = "A128CBC-HS256"
	A128GCM      = "A128GCM"
)

// MaxCompact bounds a compact JWE or JWS this package reads, in bytes.
const MaxCompact = 256 << 10

// maxHeader bounds the protected header of a JWE or JWS, decoded.
const maxHeader = 4096

// The kinds of error this package returns, for errors.Is: the caller maps
// them to its protocol's codes (an EMV Erro's 101, 203 or 302).
var (
	// ErrFormat: not a compact JWE or JWS of this package's kinds (parts,
	// base64url, header JSON, sizes).
	ErrFormat = errors.New("jose: malformed")
	// ErrUnsupported: a well-formed header names an alg, enc, zip or crit
	// this package does not take.
	ErrUnsupported = errors.New("jose: unsupported")
	// ErrDecryption: the message does not decrypt with the key: a wrong
	// key, or a changed header, IV, ciphertext or tag.
	ErrDecryption = errors.New("jose: decryption failed")
)

// Direction is which way a CReq/CRes exchange's message goes: the SDK
// encrypts CReqs, the ACS CRes.
type Direction uint8

// The directions of a CReq/CRes exchange.
const (
	SDKToACS Direction = iota
	ACSToSDK
)

// Header is the protected header of a JWE or JWS.
type Header struct {
	Alg  string   `json:"alg"`
	Enc  string   `json:"enc,omitempty"`
	Kid  string   `json:"kid,omitempty"`
	EPK  *JWK     `json:"epk,omitempty"`
	X5C  []string `json:"x5c,omitempty"`
	Zip  string   `json:"zip,omitempty"`
	Crit []string `json:"crit,omitempty"`
}

// JWE is a compact JWE (RFC 7516 section 7.1), read but not decrypted.
type JWE struct {
	Header Header
	// protected is the first part as sent: the additional authenticated
	// data.
	protected                         string
	EncryptedKey, IV, Ciphertext, Tag []byte
}

// ParseJWE reads a compact JWE: five base64url parts, the first a JSON
// header. It decrypts nothing.
func ParseJWE(compact []byte) (*JWE, error) {
	parts, err := split(compact, 5)
	if err != nil {
		return nil, err
	}
	j := &JWE{protected: parts[0]}
	if err := readHeader(parts[0], &j.Header); err != nil {
		return nil, err
	}
	names := [4]string{"encrypted key", "initialization vector", "ciphertext", "authentication tag"}
	dst := [4]*[]byte{&j.EncryptedKey, &j.IV, &j.Ciphertext, &j.Tag}
	for i, p := range parts[1:] {
		b, err := unb64(p)
		if err != nil {
			return nil, fmt.Errorf("%w: the %s is not base64url without padding", ErrFormat, names[i])
		}
		*dst[i] = b
	}
	if j.Header.Zip != "" {
		return nil, fmt.Errorf("%w: zip %q (compressed content is not taken)", ErrUnsupported, j.Header.Zip)
	}
	if len(j.Header.Crit) > 0 {
		return nil, fmt.Errorf("%w: crit %q", ErrUnsupported, j.Header.Crit)
	}
	return j, nil
}

// split cuts a compact serialization into its n parts.
func split(compact []byte, n int) ([]string, error) {
	if len(compact) > MaxCompact {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrFormat, len(compact), MaxCompact)
	}
	parts := strings.Split(string(compact), ".")
	if len(parts) != n {
		return nil, fmt.Errorf("%w: %d parts separated by dots, want %d", ErrFormat, len(parts), n)
	}
	return parts, nil
}

// readHeader decodes a protected header.
func readHeader(part string, h *Header) error {
	raw, err := unb64(part)
	if err != nil {
		return fmt.Errorf("%w: the header is not base64url without padding", ErrFormat)
	}
	if len(raw) > maxHeader {
		return fmt.Errorf("%w: a header of %d bytes, more than %d", ErrFormat, len(raw), maxHeader)
	}
	if err := json.Unmarshal(raw, h); err != nil {
		return fmt.Errorf("%w: the header is not a JSON object of string members", ErrFormat)
	}
	if h.Alg == "" {
		return fmt.Errorf("%w: the header has no alg", ErrFormat)
	}
	return nil
}

// exchangeKey is the content-encryption key of one direction of a
// CReq/CRes exchange whose shared key is key: the whole key for
// A128CBC-HS256, its first half for A128GCM from the SDK, its last half
// from the ACS.
func exchangeKey(key []byte, enc string, d Direction) ([]byte, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("jose: an exchange key of %d bytes, want %d", len(key), KeySize)
	}
	switch enc {
	case A128CBCHS256:
		return key, nil
	case A128GCM:
		if d == SDKToACS {
			return key[:16], nil
		}
		return key[16:], nil
	}
	return nil, fmt.Errorf("%w: enc %q: want %s or %s", ErrUnsupported, enc, A128CBCHS256, A128GCM)
}

// DecryptDirect decrypts a message of a CReq/CRes exchange (alg dir, no
// encrypted key) going direction d, whose shared key is key (DeriveKey).
// Any initialization vector of the right size is taken.
func (j *JWE) DecryptDirect(key []byte, d Direction) ([]byte, error) {
	if j.Header.Alg != "dir" {
		return nil, fmt.Errorf("%w: alg %q: a CReq or CRes takes dir", ErrUnsupported, j.Header.Alg)
	}
	if len(j.EncryptedKey) != 0 {
		return nil, fmt.Errorf("%w: alg dir has an empty encrypted key", ErrFormat)
	}
	cek, err := exchangeKey(key, j.Header.Enc, d)
	if err != nil {
		return nil, err
	}
	return j.open(cek)
}

// open decrypts with the content-encryption key cek of the header's enc.
func (j *JWE) open(cek []byte) ([]byte, error) {
	switch j.Header.Enc {
	case A128CBCHS256:
		return openCBC(cek, []byte(j.protected), j.IV, j.Ciphertext, j.Tag)
	case A128GCM, "A256GCM":
		return openGCM(cek, []byte(j.protected), j.IV, j.Ciphertext, j.Tag)
	}
	return nil, fmt.Errorf("%w: enc %q", ErrUnsupported, j.Header.Enc)
}

// EncryptDirect encrypts plaintext as a compact JWE of a CReq/CRes
// exchange going direction d: header {"alg":"dir","enc":enc,"kid":kid},
// the key of d from the shared key, and the initialization vector of EMV
// 3DS: counter in the last byte, the others 0x00 from the SDK and 0xFF
// from the ACS.
func EncryptDirect(plaintext, key []byte, enc, kid string, d Direction, counter uint8) ([]byte, error) {
	cek, err := exchangeKey(key, enc, d)
	if err != nil {
		return nil, err
	}
	hdr, err := json.Marshal(Header{Alg: "dir", Enc: enc, Kid: kid})
	if err != nil {
		return nil, fmt.Errorf("jose: header: %w", err)
	}
	protected := b64(hdr)
	size := 16
	if enc == A128GCM {
		size = 12
	}
	iv := counterIV(size, d, counter)
	var ct, tag []byte
	if enc == A128GCM {
		ct, tag, err = sealGCM(cek, []byte(protected), iv, plaintext)
	} else {
		ct, tag, err = sealCBC(cek, []byte(protected), iv, plaintext)
	}
	if err != nil {
		return nil, err
	}
	return compact(protected, nil, iv, ct, tag), nil
}

// counterIV is the initialization vector EMV 3DS makes of a counter.
func counterIV(size int, d Direction, counter uint8) []byte {
	iv := make([]byte, size)
	if d == ACSToSDK {
		for i := range iv {
			iv[i] = 0xFF
		}
	}
	iv[size-1] = counter
	return iv
}

// compact joins a JWE's parts.
func compact(protected string, parts ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString(protected)
	for _, p := range parts {
		b.WriteByte('.')
		b.WriteString(b64(p))
	}
	return b.Bytes()
}

// cbcTag is the authentication tag of A128CBC-HS256 (RFC 7518 section
// 5.2.2.1): the first half of HMAC-SHA-256 over the additional data, the
// IV, the ciphertext and the additional data's length in bits.
func cbcTag(macKey, aad, iv, ct []byte) []byte {
	m := hmac.New(sha256.New, macKey)
	m.Write(aad)
	m.Write(iv)
	m.Write(ct)
	var al [8]byte
	binary.BigEndian.PutUint64(al[:], uint64(len(aad))*8)
	m.Write(al[:])
	return m.Sum(nil)[:16]
}

// sealCBC encrypts with A128CBC-HS256 under the 32-byte key cek.
func sealCBC(cek, aad, iv, plaintext []byte) (ct, tag []byte, err error) {
	block, err := aes.NewCipher(cek[16:])
	if err != nil {
		return nil, nil, fmt.Errorf("jose: %w", err)
	}
	pad := aes.BlockSize - len(plaintext)%aes.BlockSize
	ct = append(bytes.Clone(plaintext), bytes.Repeat([]byte{byte(pad)}, pad)...)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, ct)
	return ct, cbcTag(cek[:16], aad, iv, ct), nil
}

// openCBC checks the tag, then decrypts A128CBC-HS256: nothing is
// decrypted, and no padding read, before the tag is found right.
func openCBC(cek, aad, iv, ct, tag []byte) ([]byte, error) {
	if len(cek) != 32 {
		return nil, fmt.Errorf("jose: A128CBC-HS256 takes a 32-byte key, got %d", len(cek))
	}
	if len(iv) != aes.BlockSize {
		return nil, fmt.Errorf("%w: the initialization vector of A128CBC-HS256 is 16 bytes, got %d", ErrFormat, len(iv))
	}
	if len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("%w: the ciphertext is not whole AES blocks", ErrFormat)
	}
	if !hmac.Equal(tag, cbcTag(cek[:16], aad, iv, ct)) {
		return nil, ErrDecryption
	}
	block, err := aes.NewCipher(cek[16:])
	if err != nil {
		return nil, fmt.Errorf("jose: %w", err)
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(pt, ct)
	pad := int(pt[len(pt)-1])
	if pad == 0 || pad > aes.BlockSize || !bytes.Equal(pt[len(pt)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		return nil, ErrDecryption
	}
	return pt[:len(pt)-pad], nil
}

// sealGCM encrypts with AES-GCM under cek (16 bytes for A128GCM).
func sealGCM(cek, aad, iv, plaintext []byte) (ct, tag []byte, err error) {
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, nil, fmt.Errorf("jose: %w", err)
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		return nil, nil, fmt.Errorf("jose: %w", err)
	}
	out := g.Seal(nil, iv, plaintext, aad)
	return out[:len(out)-16], out[len(out)-16:], nil
}

// openGCM decrypts AES-GCM with a 12-byte IV and a 16-byte tag.
func openGCM(cek, aad, iv, ct, tag []byte) ([]byte, error) {
	if len(iv) != 12 || len(tag) != 16 {
		return nil, fmt.Errorf("%w: AES-GCM takes a 12-byte initialization vector and a 16-byte tag", ErrFormat)
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, fmt.Errorf("jose: %w", err)
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("jose: %w", err)
	}
	pt, err := g.Open(nil, iv, append(bytes.Clone(ct), tag...), aad)
	if err != nil {
		return nil, ErrDecryption
	}
	return pt, nil
}
