package memstore

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// KeyRegistry keeps the fingerprints of the state keys in this process:
// one process agrees with itself, and the registry only keeps the rule
// of emulator.JudgeKeys, as the shared one does.
type KeyRegistry struct {
	now func() time.Time

	mu    sync.Mutex
	kept  emulator.KeyFingerprints
	until time.Time
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
