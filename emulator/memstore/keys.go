package memstore

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// KeyRegistry keeps the fingerprints of the state keys and the sealed
// namespace key in this process: one process agrees with itself, and the
// registry only keeps the rules of emulator.JudgeKeys and
// emulator.JudgeNamespaceKey, as the shared one does.
type KeyRegistry struct {
	now func() time.Time

	mu    sync.Mutex
	kept  emulator.KeyFingerprints
	until time.Time
	nsKey emulator.SealedKey // the namespace key: no time to live
}

var _ emulator.KeyRegistry = (*KeyRegistry)(nil)

// NewKeyRegistry returns an empty registry; now nil is time.Now.
func NewKeyRegistry(now func() time.Time) *KeyRegistry {
	if now == nil {
		now = time.Now
	}
	return &KeyRegistry{now: now}
}

// Check compares f with the fingerprints kept.
func (r *KeyRegistry) Check(_ context.Context, f emulator.KeyFingerprints, ttl time.Duration) (emulator.KeysVerdict, error) {
	if !f.Valid() {
		return emulator.KeysMismatch, errors.New("memstore: key fingerprints are 16 hex digits each")
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !now.Before(r.until) {
		r.kept = emulator.KeyFingerprints{}
	}
	v, replace := emulator.JudgeKeys(r.kept, f)
	if replace {
		r.kept = emulator.KeyFingerprints{Current: f.Current, Previous: slices.Clone(f.Previous)}
	}
	if v.Agree() {
		r.until = now.Add(ttl)
	}
	return v, nil
}

// NamespaceKey returns the namespace key kept in this process.
func (r *KeyRegistry) NamespaceKey(context.Context) (emulator.SealedKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return emulator.SealedKey{ID: r.nsKey.ID, Sealed: maps.Clone(r.nsKey.Sealed)}, nil
}

// KeepNamespaceKey keeps a sealed copy of the namespace key id, by the
// rule of emulator.JudgeNamespaceKey.
func (r *KeyRegistry) KeepNamespaceKey(_ context.Context, id, fp, sealed string) (emulator.SealedKey, error) {
	if id == "" || fp == "" || sealed == "" {
		return emulator.SealedKey{}, errors.New("memstore: a sealed namespace key needs its id, a fingerprint and the copy")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	keep, drop := emulator.JudgeNamespaceKey(r.nsKey, id, fp)
	if keep {
		if r.nsKey.ID == "" {
			r.nsKey = emulator.SealedKey{ID: id, Sealed: map[string]string{}}
		}
		delete(r.nsKey.Sealed, drop)
		r.nsKey.Sealed[fp] = sealed
	}
	return emulator.SealedKey{ID: r.nsKey.ID, Sealed: maps.Clone(r.nsKey.Sealed)}, nil
}
