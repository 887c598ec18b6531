// Package session keeps the web console's sessions: which bearer token a
// browser logged in with. The browser's cookie carries only a random
// session id; the token stays on the server, and logging out ends the
// session everywhere. Sessions live in this process (Memory) or in Redis
// (Redis), where every replica sees them and a restart keeps them.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
)

// Store keeps sessions. Implementations are safe for concurrent use.
type Store interface {
	// Create opens a session for token, valid for ttl, and returns its id.
	Create(ctx context.Context, token string, ttl time.Duration) (string, error)
	// Token returns the token of session id; false when there is no such
	// session (never was, expired or ended).
	Token(ctx context.Context, id string) (string, bool, error)
	// Delete ends session id; ending an unknown session is no error.
	Delete(ctx context.Context, id string) error
}

// newID returns a random session id: 128 bits in hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// validID tells whether id can be a session id, so that nothing else is
// ever used as a key.
func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	return strings.Trim(id, "0123456789abcdef") == ""
}

// DefaultMaxSessions bounds the sessions Memory keeps.
const DefaultMaxSessions = 10000

// Memory keeps sessions in this process, at most Max of them: beyond it
// the session that expires first is ended.
type Memory struct {
	max int
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]memorySession
}

type memorySession struct {
	token   string
	expires time.Time
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory keeping at most max sessions
// (DefaultMaxSessions when max <= 0).
func NewMemory(max int) *Memory {
	if max <= 0 {
		max = DefaultMaxSessions
	}
	return &Memory{max: max, now: time.Now, sessions: map[string]memorySession{}}
}

// Create opens a session.
func (m *Memory) Create(_ context.Context, token string, ttl time.Duration) (string, error) {
	id := newID()
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sessions) >= m.max {
		first, at := "", time.Time{}
		for k, s := range m.sessions {
			if !s.expires.After(now) {
				delete(m.sessions, k)
				continue
			}
			if first == "" || s.expires.Before(at) {
				first, at = k, s.expires
			}
		}
		if len(m.sessions) >= m.max {
			delete(m.sessions, first)
		}
	}
	m.sessions[id] = memorySession{token: strings.Clone(token), expires: now.Add(ttl)}
	return id, nil
}

// Token returns the token of a live session.
func (m *Memory) Token(_ context.Context, id string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return "", false, nil
	}
	if !s.expires.After(m.now()) {
		delete(m.sessions, id)
		return "", false, nil
	}
	return s.token, true, nil
}

// Delete ends a session.
func (m *Memory) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, id)
	return nil
}

// Redis keeps sessions in Redis, one key each (prefix "cs:" id) with the
// session's time to live.
type Redis struct {
	c       rueidis.Client
	prefix  string
	timeout time.Duration
}

var _ Store = (*Redis)(nil)

// NewRedis returns the sessions kept over client c under prefix
// (redisstore.DefaultPrefix when empty); every call is bounded by timeout.
func NewRedis(c rueidis.Client, prefix string, timeout time.Duration) (*Redis, error) {
	if c == nil {
		return nil, errors.New("session: NewRedis needs a client")
	}
	if prefix == "" {
		prefix = redisstore.DefaultPrefix
	}
	if timeout <= 0 {
		timeout = redisstore.DefaultTimeout
	}
	return &Redis{c: c, prefix: prefix + "cs:", timeout: timeout}, nil
}

func (r *Redis) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.timeout)
}

// Create opens a session.
func (r *Redis) Create(ctx context.Context, token string, ttl time.Duration) (string, error) {
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	id := newID()
	err := r.c.Do(ctx, r.c.B().Set().Key(r.prefix+id).Value(token).Px(ttl).Build()).Error()
	return id, redisstore.Classify("create a console session", err)
}

// Token returns the token of a live session.
func (r *Redis) Token(ctx context.Context, id string) (string, bool, error) {
	if !validID(id) {
		return "", false, nil
	}
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	tok, err := r.c.Do(ctx, r.c.B().Get().Key(r.prefix+id).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, redisstore.Classify("read a console session", err)
	}
	return tok, true, nil
}

// Delete ends a session.
func (r *Redis) Delete(ctx context.Context, id string) error {
	if !validID(id) {
		return nil
	}
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	return redisstore.Classify("end a console session", r.c.Do(ctx, r.c.B().Del().Key(r.prefix+id).Build()).Error())
}
