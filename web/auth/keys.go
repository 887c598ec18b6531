package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"sync"
)

// The sandbox keeps nothing of a bearer token but keyed hashes: the
// namespace its transactions, runtime scenarios, clock and journal live
// in (under the namespace key, which the store keeps across rotations,
// see nskey.go), and the token's hash in a console session (under keys
// derived from the state hash keys, --state-hash-key, then each of
// --state-previous-keys). Replicas sharing the keys derive the same
// values, and what a store holds tells nothing of a token without them:
// not even whether a guessed token is the one.

// KeyPair is a pair of state keys: the hash key signs (securecookie's
// HMAC, and the keys derived from it: access tokens, the console's
// capture JWTs, the hashes of tokens), the block key encrypts.
type KeyPair struct{ Hash, Block []byte }

// Fingerprint names the pair without revealing it: 8 bytes, in hex, of
// the HMAC-SHA256 of a fixed label under a key derived from the hash key,
// over the SHA-256 of the block key. Replicas compare fingerprints to
// tell whether they share their keys.
func (p KeyPair) Fingerprint() string {
	m := hmac.New(sha256.New, derive(p.Hash, "key fingerprint"))
	b := sha256.Sum256(p.Block)
	m.Write(b[:])
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// TokenKeys make the keyed hashes of bearer tokens: the namespace of a
// token (under the current key) and the hash a console session keeps
// (under the current key when made, under any of the keys when checked).
// Safe for concurrent use.
type TokenKeys struct {
	namespace *keyedHash
	hashes    []*keyedHash // the current key first
	recent    *recent[string]
}

// NewTokenKeys derives the keys from masters, the state hash keys (the
// current one first), and namespaceKey, the key the namespaces are
// hashed under (see NewNamespaceKey): the store keeps it across key
// rotations; nil takes the one the current hash key makes.
func NewTokenKeys(masters [][]byte, namespaceKey []byte) (*TokenKeys, error) {
	if len(masters) == 0 || len(masters[0]) == 0 {
		return nil, errors.New("auth: the hashes of tokens need a master key")
	}
	if namespaceKey == nil {
		namespaceKey = NewNamespaceKey(masters[0])
	}
	if len(namespaceKey) != NamespaceKeySize {
		return nil, fmt.Errorf("auth: a namespace key has %d bytes, got %d", NamespaceKeySize, len(namespaceKey))
	}
	k := &TokenKeys{namespace: newKeyedHash(namespaceKey), recent: newRecent[string]()}
	for _, m := range masters {
		k.hashes = append(k.hashes, newKeyedHash(derive(m, "console session token")))
	}
	return k, nil
}

// Namespace is the namespace of token: 8 bytes, in hex, of its HMAC
// under the namespace key, the same before and after a rotation of the
// state keys. Logs, pages and stores carry it, never the token.
func (k *TokenKeys) Namespace(token string) string {
	id := k.recent.id(token)
	if ns, ok := k.recent.get(id); ok {
		return ns
	}
	ns := k.namespace.hex(token, 8)
	k.recent.add(id, ns)
	return ns
}

// Hash is the keyed hash of token that a console session keeps: 16
// bytes in hex, under the current key.
func (k *TokenKeys) Hash(token string) string { return k.hashWith(0, token) }

func (k *TokenKeys) hashWith(i int, token string) string { return k.hashes[i].hex(token, 16) }

// keyedHash is an HMAC-SHA256 under one key, pooled with its buffers: a
// request hashes its token once, and a fresh HMAC allocates.
type keyedHash struct{ pool sync.Pool }

type hashState struct {
	m   hash.Hash
	in  []byte
	sum [sha256.Size]byte
}

func newKeyedHash(key []byte) *keyedHash {
	return &keyedHash{pool: sync.Pool{New: func() any { return &hashState{m: hmac.New(sha256.New, key)} }}}
}

// hex returns the first n bytes of the HMAC of s, in hex.
func (h *keyedHash) hex(s string, n int) string {
	st := h.pool.Get().(*hashState)
	defer h.pool.Put(st)
	st.m.Reset()
	st.in = append(st.in[:0], s...)
	_, _ = st.m.Write(st.in)
	if cap(st.in) > 4096 { // a long token is not kept
		st.in = nil
	}
	return hex.EncodeToString(st.m.Sum(st.sum[:0])[:n])
}
