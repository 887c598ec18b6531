package state

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// Bounds of the console's sessions, the same in every SessionStore.
const (
	// MaxSessionsPerToken bounds the sessions of one token (one
	// Session.TokenHash): a new one beyond it ends the token's session
	// that expires first, its oldest.
	MaxSessionsPerToken = 16
	// DefaultMaxSessions bounds the sessions of all tokens together: a
	// new one beyond it ends the session that expires first.
	DefaultMaxSessions = 10000
)

// Session is what a console session keeps of the bearer token it was
// opened with: never the token, only what the console needs to check it
// again and to read its namespace.
type Session struct {
	// TokenHash is a keyed hash of the token (hex, 16 to 64 digits): the
	// console checks it against the configured tokens' hashes, and the
	// store counts a token's sessions by it.
	TokenHash string
	// Namespace is the token's namespace when the session was opened.
	Namespace string
	// Expires is when an access token expires; zero for a static token.
	Expires time.Time
}

// SessionStore keeps the console's sign-in sessions. The browser's
// cookie carries only a random session id (NewSessionID); the store keeps
// the session's Session, and logging out ends it everywhere. It keeps at
// most MaxSessionsPerToken sessions of a token and a bounded number in
// all, ending the one that expires first beyond either bound. It is state
// that outlives a request: in memory by default, shared by every replica
// in a shared store. Implementations are safe for concurrent use.
type SessionStore interface {
	// Create opens a session, valid for ttl, and returns its id. A
	// Session whose TokenHash is not ValidTokenHash is an error.
	Create(ctx context.Context, s Session, ttl time.Duration) (string, error)
	// Session returns session id; false when there is no such session
	// (never was, expired or ended).
	Session(ctx context.Context, id string) (Session, bool, error)
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

// ValidTokenHash tells whether h can be a Session's TokenHash: 16 to 64
// lower-case hex digits, so that a store may use it in a key.
func ValidTokenHash(h string) bool {
	return len(h) >= 16 && len(h) <= 64 && strings.Trim(h, "0123456789abcdef") == ""
}
