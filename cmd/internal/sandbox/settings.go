package sandbox

import (
	"crypto/x509"
	"errors"

	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/directory"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

// settings are the values of a Config that are read from text: the
// store, the card BINs, the state keys, the Redis authorities, the
// merchants and the callbacks' allowlist. check reads each once, and New
// uses them as they are.
type settings struct {
	backend Backend
	schemes *emulator.SchemeTable
	// directory is the app channel's directory servers: --ds-keys, or
	// the embedded test keys.
	directory *directory.Directory
	// hashKey and blockKey are the current state keys, drawn at random
	// when the flags leave them unset; previous the pairs of
	// --state-previous-keys.
	hashKey, blockKey []byte
	previous          []auth.KeyPair
	// storeCAs are the authorities of --store-ca-file; nil without.
	storeCAs  *x509.CertPool
	merchants auth.Merchants
	allow     callback.Allowlist
}

// pairs are the state key pairs, the current first.
func (s *settings) pairs() []auth.KeyPair {
	return append([]auth.KeyPair{{Hash: s.hashKey, Block: s.blockKey}}, s.previous...)
}

// hashKeys are the hash keys of pairs, the current first: they name in
// Redis what must not show in a key name.
func (s *settings) hashKeys() [][]byte {
	pairs := s.pairs()
	out := make([][]byte, len(pairs))
	for i, p := range pairs {
		out[i] = p.Hash
	}
	return out
}

// settings returns what Parse read of c, or reads it now for a Config
// built by hand; a value that does not read is an error naming its flag.
func (c Config) settings() (*settings, error) {
	if c.parsed == nil {
		if errs := c.check(); len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
	}
	s := *c.parsed
	if s.hashKey == nil {
		s.hashKey = securecookie.GenerateRandomKey(32)
	}
	if s.blockKey == nil {
		s.blockKey = securecookie.GenerateRandomKey(32)
	}
	return &s, nil
}
