package memstore

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// KeyRegistry keeps the fingerprints of the state keys and the sealed
// namespace key in this process: one process agrees with itself, and the
// registry only keeps the rules of state.JudgeKeys and
// state.JudgeNamespaceKey, as the shared one does.
type KeyRegistry struct {
	now func() time.Time

	mu    sync.Mutex
	kept  state.KeyFingerprints
	until time.Time
	nsKey state.SealedKey // the namespace key: no time to live
}

var _ state.KeyRegistry = (*KeyRegistry)(nil)

// NewKeyRegistry returns an empty registry; now nil is time.Now.
func NewKeyRegistry(now func() time.Time) *KeyRegistry {
	if now == nil {
		now = time.Now
	}
	return &KeyRegistry{now: now}
}

// Check compares f with the fingerprints kept.
func (r *KeyRegistry) Check(_ context.Context, f state.KeyFingerprints, ttl time.Duration) (state.KeysVerdict, error) {
	if !f.Valid() {
		return state.KeysMismatch, errors.New("memstore: key fingerprints are 16 hex digits each")
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !now.Before(r.until) {
		r.kept = state.KeyFingerprints{}
	}
	v, replace := state.JudgeKeys(r.kept, f)
	if replace {
		r.kept = state.KeyFingerprints{Current: f.Current, Previous: slices.Clone(f.Previous)}
	}
	if v.Agree() {
		r.until = now.Add(ttl)
	}
	return v, nil
}

// NamespaceKey returns the namespace key kept in this process.
func (r *KeyRegistry) NamespaceKey(context.Context) (state.SealedKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return state.SealedKey{ID: r.nsKey.ID, Sealed: maps.Clone(r.nsKey.Sealed)}, nil
}

// KeepNamespaceKey keeps a sealed copy of the namespace key id, by the
// rule of state.JudgeNamespaceKey.
func (r *KeyRegistry) KeepNamespaceKey(_ context.Context, id, fp, sealed string) (state.SealedKey, error) {
	if id == "" || fp == "" || sealed == "" {
		return state.SealedKey{}, errors.New("memstore: a sealed namespace key needs its id, a fingerprint and the copy")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	keep, drop := state.JudgeNamespaceKey(r.nsKey, id, fp)
	if keep {
		if r.nsKey.ID == "" {
			r.nsKey = state.SealedKey{ID: id, Sealed: map[string]string{}}
		}
		delete(r.nsKey.Sealed, drop)
		r.nsKey.Sealed[fp] = sealed
	}
	return state.SealedKey{ID: r.nsKey.ID, Sealed: maps.Clone(r.nsKey.Sealed)}, nil
}
