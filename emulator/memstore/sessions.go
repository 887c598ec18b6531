package memstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/fairshare"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Sessions keeps the console's sessions in this process: at most
// state.MaxSessionsPerToken of a token and max in all. Beyond the
// token's bound its session that expires first is ended; at the bound of
// all, the expired ones go, or else the token holding the most sessions
// (package fairshare) loses its own that expires first, never a token
// holding fewer.
type Sessions struct {
	max int
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]session
	byToken  map[string]map[string]struct{} // token hash -> session ids
	held     fairshare.Holdings             // sessions by token hash
}

type session struct {
	state.Session
	ends time.Time // when the session expires
}

var _ state.SessionStore = (*Sessions)(nil)

// NewSessions returns an empty store keeping at most max sessions
// (state.DefaultMaxSessions when max <= 0); now nil is time.Now.
func NewSessions(max int, now func() time.Time) *Sessions {
	if max <= 0 {
		max = state.DefaultMaxSessions
	}
	if now == nil {
		now = time.Now
	}
	return &Sessions{max: max, now: now, sessions: map[string]session{}, byToken: map[string]map[string]struct{}{}}
}

// Create opens a session.
func (m *Sessions) Create(_ context.Context, s state.Session, ttl time.Duration) (string, error) {
	if !state.ValidTokenHash(s.TokenHash) {
		return "", errors.New("memstore: a console session needs the keyed hash of its token")
	}
	id := state.NewSessionID()
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	mine := m.byToken[s.TokenHash]
	if len(mine) >= state.MaxSessionsPerToken {
		endFirst(m, mine, now)
	}
	if len(m.sessions) >= m.max {
		endExpired(m, now)
	}
	if len(m.sessions) >= m.max {
		most, _ := m.held.Largest()
		endFirst(m, m.byToken[most], now)
	}
	s.TokenHash, s.Namespace = strings.Clone(s.TokenHash), strings.Clone(s.Namespace)
	m.sessions[id] = session{Session: s, ends: now.Add(ttl)}
	if m.byToken[s.TokenHash] == nil {
		m.byToken[s.TokenHash] = map[string]struct{}{}
	}
	m.byToken[s.TokenHash][id] = struct{}{}
	m.held.Add(s.TokenHash, 1)
	return id, nil
}

// endExpired ends every expired session.
func endExpired(m *Sessions, now time.Time) {
	for id, s := range m.sessions {
		if !s.ends.After(now) {
			m.end(id)
		}
	}
}

// endFirst ends, among the sessions of ids, every expired one, and the
// one that expires first when none had.
func endFirst[V any](m *Sessions, ids map[string]V, now time.Time) {
	first, at, ended := "", time.Time{}, false
	for id := range ids {
		s := m.sessions[id]
		if !s.ends.After(now) {
			m.end(id)
			ended = true
			continue
		}
		if first == "" || s.ends.Before(at) {
			first, at = id, s.ends
		}
	}
	if !ended && first != "" {
		m.end(first)
	}
}

// end removes session id; m.mu is held.
func (m *Sessions) end(id string) {
	s, ok := m.sessions[id]
	if !ok {
		return
	}
	delete(m.sessions, id)
	m.held.Add(s.TokenHash, -1)
	if mine := m.byToken[s.TokenHash]; mine != nil {
		delete(mine, id)
		if len(mine) == 0 {
			delete(m.byToken, s.TokenHash)
		}
	}
}

// Session returns a live session.
func (m *Sessions) Session(_ context.Context, id string) (state.Session, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return state.Session{}, false, nil
	}
	if !s.ends.After(m.now()) {
		m.end(id)
		return state.Session{}, false, nil
	}
	return s.Session, true, nil
}

// Delete ends a session.
func (m *Sessions) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.end(id)
	return nil
}
