package emulator

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// keySeal seals the app channel's exchange keys for the store: AES-256-GCM
// under the engine's app key, bound to the transaction's acsTransID, so
// that a sealed key copied to another transaction does not open.
type keySeal struct {
	aead cipher.AEAD
}

// errSealedKey is a sealed exchange key that does not open: damaged, of
// another transaction, or sealed under another app key.
var errSealedKey = errors.New("emulator: the sealed exchange key does not open")

// newKeySeal returns the seal for key, or for a key derived from seed
// when key is nil.
func newKeySeal(key []byte, seed uint64) (*keySeal, error) {
	if key == nil {
		var s [8]byte
		binary.BigEndian.PutUint64(s[:], seed)
		k, err := hkdf.Key(sha256.New, s[:], nil, "threeds-sandbox app key from seed", 32)
		if err != nil {
			return nil, fmt.Errorf("emulator: derive the app key: %w", err)
		}
		key = k
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("emulator: the app key has %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("emulator: the app key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("emulator: the app key: %w", err)
	}
	return &keySeal{aead: aead}, nil
}

// Seal returns key sealed for the transaction acsTransID: a random nonce
// then the ciphertext and tag, as raw bytes in a string.
func (s *keySeal) Seal(key []byte, acsTransID string) (string, error) {
	out := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(key)+s.aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return "", fmt.Errorf("emulator: seal the exchange key: %w", err)
	}
	return string(s.aead.Seal(out, out, key, []byte(acsTransID))), nil
}

// Open returns the exchange key that Seal sealed for acsTransID.
func (s *keySeal) Open(sealed, acsTransID string) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return nil, errSealedKey
	}
	key, err := s.aead.Open(nil, []byte(sealed[:n]), []byte(sealed[n:]), []byte(acsTransID))
	if err != nil {
		return nil, errSealedKey
	}
	return key, nil
}

// ExchangeKey is the key of the CReq/CRes exchange of the app
// transaction id (its threeDSServerTransID or acsTransID) of namespace
// ns, opened from its sealed form (AppState.SealedKey): the key the SDK
// derives from acsSignedContent. Any replica sharing the store and the
// app key opens it. It fails for a transaction without one.
func (e *Engine) ExchangeKey(ctx context.Context, ns, id string) ([]byte, error) {
	t, err := e.transactionByEitherID(ctx, ns, id)
	if err != nil {
		return nil, fmt.Errorf("exchange key of %s: %w", id, err)
	}
	return e.exchangeKey(t)
}

// exchangeKey is the exchange key of t, opened.
func (e *Engine) exchangeKey(t state.Transaction) ([]byte, error) {
	if t.App.SealedKey == "" {
		return nil, fmt.Errorf("transaction %s has no exchange key: not an app challenge", t.ThreeDSServerTransID)
	}
	key, err := e.seal.Open(t.App.SealedKey, t.ACSTransID)
	if err != nil {
		return nil, fmt.Errorf("transaction %s: %w", t.ThreeDSServerTransID, err)
	}
	return key, nil
}
