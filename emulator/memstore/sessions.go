package memstore

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// DefaultMaxSessions bounds the console sessions Sessions keeps.
const DefaultMaxSessions = 10000

// Sessions keeps the console's sessions in this process, at most max of
// them: beyond it the session that expires first is ended.
type Sessions struct {
	max int
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]session
}

type session struct {
	token   string
	expires time.Time
}

var _ emulator.SessionStore = (*Sessions)(nil)

// NewSessions returns an empty store keeping at most max sessions
// (DefaultMaxSessions when max <= 0).
func NewSessions(max int) *Sessions {
	if max <= 0 {
		max = DefaultMaxSessions
	}
	return &Sessions{max: max, now: time.Now, sessions: map[string]session{}}
}

// Create opens a session.
func (m *Sessions) Create(_ context.Context, token string, ttl time.Duration) (string, error) {
	id := emulator.NewSessionID()
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
	m.sessions[id] = session{token: strings.Clone(token), expires: now.Add(ttl)}
	return id, nil
}

// Token returns the token of a live session.
func (m *Sessions) Token(_ context.Context, id string) (string, bool, error) {
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
func (m *Sessions) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, id)
	return nil
}
