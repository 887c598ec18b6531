package emulator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// SessionStore keeps the console's sign-in sessions: which bearer token a
// browser logged in with. The browser's cookie carries only a random
// session id (NewSessionID); the token stays on the server, and logging
// out ends the session everywhere. It is state that outlives a request:
// in memory by default, shared by every replica in a shared store.
// Implementations are safe for concurrent use.
type SessionStore interface {
	// Create opens a session for token, valid for ttl, and returns its id.
	Create(ctx context.Context, token string, ttl time.Duration) (string, error)
	// Token returns the token of session id; false when there is no such
	// session (never was, expired or ended).
	Token(ctx context.Context, id string) (string, bool, error)
	// Delete ends session id; ending an unknown session is no error.
	Delete(ctx context.Context, id string) error
}

// NewSessionID returns a random session id: 128 bits in hex.
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// ValidSessionID tells whether id can be a session id (NewSessionID), so
// that a store never uses anything else as a key.
func ValidSessionID(id string) bool {
	return len(id) == 32 && strings.Trim(id, "0123456789abcdef") == ""
}
