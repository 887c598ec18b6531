package state

import (
	"context"
	"slices"
	"strings"
	"time"
)

// How the replicas sharing a store compare their state keys.
const (
	// KeysRecheck is how often a replica compares its keys with the
	// store's again.
	KeysRecheck = 30 * time.Second
	// KeysTTL is how long the store keeps the fingerprints after the last
	// replica that agrees with them checked: replicas that are all gone
	// leave none behind to warn the next ones.
	KeysTTL = 10 * time.Minute
	// MaxPreviousKeys bounds the previous fingerprints kept.
	MaxPreviousKeys = 16
	// MaxSealedCopies bounds the sealed copies of the namespace key a
	// store keeps, one per key pair that made or opened it: twice the
	// pairs a replica may hold, so that only a copy under a pair long
	// rotated away goes, as rarely as rotations come.
	MaxSealedCopies = 2 * MaxPreviousKeys
)

// KeyFingerprints name a replica's state keys without revealing them:
// the fingerprint of its current key pair and of each previous one
// (--state-previous-keys), each 16 hex digits.
type KeyFingerprints struct {
	Current  string
	Previous []string
}

// Valid tells whether every fingerprint is 16 lower-case hex digits, and
// there are at most MaxPreviousKeys previous ones.
func (f KeyFingerprints) Valid() bool {
	if len(f.Previous) > MaxPreviousKeys || !validFingerprint(f.Current) {
		return false
	}
	for _, p := range f.Previous {
		if !validFingerprint(p) {
			return false
		}
	}
	return true
}

func validFingerprint(s string) bool {
	return len(s) == 16 && strings.Trim(s, "0123456789abcdef") == ""
}

// KeysVerdict is what a replica's keys are to those the store keeps.
type KeysVerdict int

// The verdicts of KeyRegistry.Check.
const (
	// KeysFirst: the store kept none; it keeps this replica's now.
	KeysFirst KeysVerdict = iota
	// KeysSame: the store's current key is this replica's.
	KeysSame
	// KeysNewer: the store's current key is one of this replica's
	// previous ones (a rotation): it keeps this replica's now.
	KeysNewer
	// KeysOlder: this replica's current key is one of the store's
	// previous ones: another replica rotated, and still reads what this
	// one makes.
	KeysOlder
	// KeysMismatch: neither; the replicas refuse each other's challenge
	// pages and console sessions as forged.
	KeysMismatch
)

// Agree tells whether the verdict lets the replicas read each other's
// state.
func (v KeysVerdict) Agree() bool { return v != KeysMismatch }

// String names the verdict for the log.
func (v KeysVerdict) String() string {
	switch v {
	case KeysFirst:
		return "first"
	case KeysSame:
		return "same"
	case KeysNewer:
		return "newer"
	case KeysOlder:
		return "older"
	}
	return "mismatch"
}

// KeyRegistry keeps the fingerprints of the state keys of the replicas
// sharing a store, so that a replica started with other keys can say so
// rather than refuse the others' pages as forged without a word. It is
// state that outlives a request: in memory (where one process trivially
// agrees with itself) or in the shared store. Implementations are safe
// for concurrent use.
type KeyRegistry interface {
	// Check compares f with the fingerprints kept, atomically: none kept,
	// or f.Current's previous keys hold the kept current one (f is
	// newer), and it keeps f; the kept current one is f.Current, or one
	// of the kept previous ones is (f is older), and it keeps them; in
	// each of these cases for ttl more. Otherwise it changes nothing and
	// answers KeysMismatch.
	Check(ctx context.Context, f KeyFingerprints, ttl time.Duration) (KeysVerdict, error)
	// NamespaceKey returns the namespace key the store keeps: the zero
	// SealedKey when it keeps none.
	NamespaceKey(ctx context.Context) (SealedKey, error)
	// KeepNamespaceKey keeps sealed, the namespace key id sealed under the
	// key pair of fingerprint fp, atomically, by the rule of
	// JudgeNamespaceKey, and returns what the store keeps then.
	KeepNamespaceKey(ctx context.Context, id, fp, sealed string) (SealedKey, error)
}

// SealedKey is the namespace key as a store keeps it: the key that names
// every namespace (the keyed hashes of the bearer tokens) and the keys
// derived from it (the reference index), which must outlive a rotation
// of the state keys, or every namespace would change with the current
// key. The store keeps its id and a copy of it sealed (encrypted and
// authenticated) under each state key pair that made or opened it, by
// the pair's fingerprint: never the key in clear. It has no time to
// live.
type SealedKey struct {
	// ID names the key without revealing it: 16 hex digits.
	ID string
	// Sealed holds the sealed copies, by the fingerprint of the key pair
	// each is sealed under.
	Sealed map[string]string
}

// JudgeNamespaceKey is the rule of KeyRegistry.KeepNamespaceKey, stated
// once for every store, for the key kept (none when kept.ID is empty)
// and a copy of key id sealed under the pair of fingerprint fp: when the
// store keeps no key, id becomes its key with that one copy; when it
// keeps id, the copy of fp is added or replaced, and when that makes more
// than MaxSealedCopies, drop names another copy to remove; when it keeps
// another key, nothing changes (keep is false).
func JudgeNamespaceKey(kept SealedKey, id, fp string) (keep bool, drop string) {
	switch {
	case kept.ID == "":
		return true, ""
	case kept.ID != id:
		return false, ""
	}
	if _, ok := kept.Sealed[fp]; ok || len(kept.Sealed) < MaxSealedCopies {
		return true, ""
	}
	for other := range kept.Sealed {
		if other != fp {
			return true, other
		}
	}
	return true, ""
}

// JudgeKeys is the rule of KeyRegistry.Check, stated once for every
// store, for fingerprints kept (none
// when kept.Current is empty) and a replica's: the verdict, and whether
// the store keeps the replica's from now on.
func JudgeKeys(kept, f KeyFingerprints) (v KeysVerdict, replace bool) {
	switch {
	case kept.Current == "":
		return KeysFirst, true
	case kept.Current == f.Current:
		return KeysSame, false
	case slices.Contains(f.Previous, kept.Current):
		return KeysNewer, true
	case slices.Contains(kept.Previous, f.Current):
		return KeysOlder, false
	}
	return KeysMismatch, false
}

// String is the stored form of f: the fingerprints separated by spaces,
// the current one first.
func (f KeyFingerprints) String() string {
	return strings.Join(append([]string{f.Current}, f.Previous...), " ")
}

// ParseKeyFingerprints reads the stored form of KeyFingerprints; the zero
// value for an empty or unreadable one.
func ParseKeyFingerprints(s string) KeyFingerprints {
	parts := strings.Fields(s)
	if len(parts) == 0 {
		return KeyFingerprints{}
	}
	f := KeyFingerprints{Current: parts[0], Previous: parts[1:]}
	if !f.Valid() {
		return KeyFingerprints{}
	}
	return f
}
