package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// The namespace key names every namespace: a bearer token's namespace is
// its HMAC under a key derived from it (TokenKeys.Namespace), and so is
// the name of each reference in the shared store's index. A rotation of
// the state keys must not change it, or every namespace would be new and
// its transactions, runtime scenarios, clock and journal out of reach. So
// the first replica derives it from its hash key (NewNamespaceKey: the
// key namespaces always had), and the store keeps it sealed under each
// state key pair that made or opened it (SealNamespaceKey): a replica
// started with a new pair and the old one in --state-previous-keys opens
// the copy of the old pair and seals one under the new, and the next
// rotation opens that one. The key never leaves the replicas in clear.

// NamespaceKeySize is the length of the namespace key in bytes.
const NamespaceKeySize = sha256.Size

// NewNamespaceKey is the namespace key a replica makes when the store
// keeps none: derived from its current hash key, as namespaces were
// before the store kept the key, so that they do not change.
func NewNamespaceKey(hash []byte) []byte { return derive(hash, "token namespace") }

// AppKey is the key the engine seals the app channel's exchange keys
// under (emulator.Config.AppKey), derived from the namespace key: every
// replica sharing the store holds the same namespace key, and a
// rotation of the state keys keeps it, so each opens what another
// sealed. A key of its own purpose: it names nothing and signs nothing.
func AppKey(namespaceKey []byte) []byte { return derive(namespaceKey, "app exchange key seal") }

// NamespaceKeyID names a namespace key without revealing it: 8 bytes,
// in hex, of an HMAC under it of a fixed label.
func NamespaceKeyID(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("threeds-sandbox\x00namespace key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// sealPrefix starts every sealed copy: its form, so that it may change.
const sealPrefix = "v1."

// sealAEAD is AES-256-GCM under a key derived from the pair's block key
// and bound to its hash key, for the namespace key alone.
func sealAEAD(p KeyPair) (cipher.AEAD, error) {
	m := hmac.New(sha256.New, derive(p.Hash, "namespace key seal"))
	m.Write(p.Block)
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("auth: seal the namespace key: %w", err)
	}
	return cipher.NewGCM(block)
}

// SealNamespaceKey returns key sealed under the pair p: encrypted and
// authenticated (AES-256-GCM, a random nonce), with the pair's
// fingerprint as associated data, in printable form.
func SealNamespaceKey(p KeyPair, key []byte) (string, error) {
	if len(key) != NamespaceKeySize {
		return "", fmt.Errorf("auth: a namespace key has %d bytes, got %d", NamespaceKeySize, len(key))
	}
	aead, err := sealAEAD(p)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(key)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("auth: seal the namespace key: %w", err)
	}
	return sealPrefix + base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, key, []byte(p.Fingerprint()))), nil
}

// ErrSealBroken is a sealed namespace key the pair does not open: sealed
// under another pair, or changed.
var ErrSealBroken = errors.New("auth: the sealed namespace key does not open with this key pair")

// OpenNamespaceKey opens what SealNamespaceKey sealed under the pair p.
func OpenNamespaceKey(p KeyPair, sealed string) ([]byte, error) {
	raw, ok := sealedBytes(sealed)
	if !ok {
		return nil, ErrSealBroken
	}
	aead, err := sealAEAD(p)
	if err != nil {
		return nil, err
	}
	if len(raw) < aead.NonceSize() {
		return nil, ErrSealBroken
	}
	key, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(p.Fingerprint()))
	if err != nil || len(key) != NamespaceKeySize {
		return nil, ErrSealBroken
	}
	return key, nil
}

func sealedBytes(sealed string) ([]byte, bool) {
	if len(sealed) > 256 || len(sealed) < len(sealPrefix) || sealed[:len(sealPrefix)] != sealPrefix {
		return nil, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(sealed[len(sealPrefix):])
	return raw, err == nil
}

// ReferenceKey is the key of the keyed hashes that name the references
// (externalReferenceId) in the shared store's index, derived from the
// namespace key: a request value never stands in a key name, and a key
// rotation leaves the index reachable.
func ReferenceKey(namespaceKey []byte) []byte { return derive(namespaceKey, "reference index") }
