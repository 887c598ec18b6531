package statetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// fp is a fingerprint of the tests: 16 hex digits of c.
func fp(c byte) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

// keys is the fingerprints of a replica with current key cur and
// previous keys prev.
func keys(cur byte, prev ...byte) state.KeyFingerprints {
	f := state.KeyFingerprints{Current: fp(cur)}
	for _, p := range prev {
		f.Previous = append(f.Previous, fp(p))
	}
	return f
}

// RunKeyRegistry runs the contract every state.KeyRegistry keeps on
// two values over one new, empty registry, as two replicas see it (the
// same value twice for a local one): the first keys are kept; a rotation
// (new current, old as previous) replaces them and the replicas still on
// the old keys agree; unrelated keys are a mismatch that changes nothing;
// the fingerprints go when no agreeing replica renews them; the namespace
// key is kept once, with a sealed copy per key pair and no time to live.
func RunKeyRegistry(t *testing.T, newRegistries func(t *testing.T) (a, b state.KeyRegistry)) {
	ctx := context.Background()
	check := func(t *testing.T, r state.KeyRegistry, f state.KeyFingerprints, ttl time.Duration, want state.KeysVerdict) {
		t.Helper()
		if got, err := r.Check(ctx, f, ttl); err != nil || got != want {
			t.Errorf("Check(%v) = %v, %v; want %v", f, got, err, want)
		}
	}
	t.Run("Rotation", func(t *testing.T) {
		a, b := newRegistries(t)
		check(t, a, keys('1'), time.Hour, state.KeysFirst)
		check(t, b, keys('1'), time.Hour, state.KeysSame)
		check(t, b, keys('2', '1'), time.Hour, state.KeysNewer)
		check(t, a, keys('1'), time.Hour, state.KeysOlder)
		check(t, a, keys('1', '0'), time.Hour, state.KeysOlder)
		check(t, b, keys('2'), time.Hour, state.KeysSame)
		check(t, a, keys('3'), time.Hour, state.KeysMismatch)
		check(t, a, keys('4', '5', '1'), time.Hour, state.KeysMismatch)
		check(t, b, keys('2', '1'), time.Hour, state.KeysSame)
		check(t, a, keys('1'), time.Hour, state.KeysOlder)
		// The next rotation: the keys before the last are forgotten.
		check(t, a, keys('6', '2'), time.Hour, state.KeysNewer)
		check(t, b, keys('2', '1'), time.Hour, state.KeysOlder)
		check(t, b, keys('1'), time.Hour, state.KeysMismatch)
	})
	t.Run("Invalid", func(t *testing.T) {
		a, _ := newRegistries(t)
		for _, f := range []state.KeyFingerprints{{}, {Current: "short"}, {Current: fp('A')}, {Current: fp('1'), Previous: []string{"x y"}}} {
			if _, err := a.Check(ctx, f, time.Hour); err == nil {
				t.Errorf("Check(%v): no error", f)
			}
		}
		check(t, a, keys('7'), time.Hour, state.KeysFirst)
	})
	t.Run("Expiry", func(t *testing.T) {
		a, b := newRegistries(t)
		check(t, a, keys('1'), 300*time.Millisecond, state.KeysFirst)
		check(t, b, keys('9'), time.Hour, state.KeysMismatch)
		deadline := time.Now().Add(3 * time.Second)
		for {
			v, err := b.Check(ctx, keys('9'), time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if v == state.KeysFirst {
				break
			}
			if v != state.KeysMismatch || time.Now().After(deadline) {
				t.Fatalf("a stranger's keys: %v; want a mismatch, then kept once the others' expire", v)
			}
			time.Sleep(50 * time.Millisecond)
		}
		check(t, a, keys('1'), time.Hour, state.KeysMismatch)
	})
	t.Run("Concurrent", func(t *testing.T) {
		a, b := newRegistries(t)
		check(t, a, keys('1'), time.Hour, state.KeysFirst)
		var wg sync.WaitGroup
		for i := range 20 {
			r, f := a, keys('1')
			if i%2 == 1 {
				r, f = b, keys('2', '1')
			}
			wg.Go(func() {
				if v, err := r.Check(ctx, f, time.Hour); err != nil || !v.Agree() {
					t.Errorf("Check(%v) during a rotation = %v, %v", f, v, err)
				}
			})
		}
		wg.Wait()
		check(t, a, keys('1'), time.Hour, state.KeysOlder)
	})
	t.Run("NamespaceKey", func(t *testing.T) {
		a, b := newRegistries(t)
		read := func(t *testing.T, r state.KeyRegistry) state.SealedKey {
			t.Helper()
			k, err := r.NamespaceKey(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		keep := func(t *testing.T, r state.KeyRegistry, id, fp, sealed string) state.SealedKey {
			t.Helper()
			k, err := r.KeepNamespaceKey(ctx, id, fp, sealed)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		if k := read(t, a); k.ID != "" || len(k.Sealed) != 0 {
			t.Fatalf("a new store keeps the namespace key %+v, want none", k)
		}
		idA, idB := fp('a'), fp('b')
		if k := keep(t, a, idA, fp('1'), "sealed under 1"); k.ID != idA || k.Sealed[fp('1')] != "sealed under 1" || len(k.Sealed) != 1 {
			t.Fatalf("the first key kept: %+v", k)
		}
		// A rotation adds a copy under the new pair; the old copy stays
		// for the replicas still on the old keys.
		if k := keep(t, b, idA, fp('2'), "sealed under 2"); k.ID != idA || len(k.Sealed) != 2 || k.Sealed[fp('1')] != "sealed under 1" {
			t.Fatalf("a copy added: %+v", k)
		}
		if k := read(t, a); k.ID != idA || k.Sealed[fp('2')] != "sealed under 2" {
			t.Fatalf("another replica reads %+v", k)
		}
		// Another key (a replica with unrelated keys) changes nothing.
		if k := keep(t, b, idB, fp('3'), "another key"); k.ID != idA || len(k.Sealed) != 2 {
			t.Fatalf("another key kept over the first: %+v", k)
		}
		if k := keep(t, a, idA, fp('1'), "sealed again under 1"); k.Sealed[fp('1')] != "sealed again under 1" || len(k.Sealed) != 2 {
			t.Fatalf("a copy replaced: %+v", k)
		}
		// Bounded: the copy being kept stays, another goes.
		for i := range state.MaxSealedCopies + 3 {
			f := fmt.Sprintf("%016x", 0x1000+i)
			if k := keep(t, a, idA, f, "copy "+f); len(k.Sealed) > state.MaxSealedCopies || k.Sealed[f] != "copy "+f {
				t.Fatalf("copy %d: %d copies kept (at most %d), its own %q", i, len(k.Sealed), state.MaxSealedCopies, k.Sealed[f])
			}
		}
		for _, bad := range [][3]string{{"", fp('1'), "x"}, {idA, "", "x"}, {idA, fp('1'), ""}} {
			if _, err := a.KeepNamespaceKey(ctx, bad[0], bad[1], bad[2]); err == nil {
				t.Errorf("KeepNamespaceKey(%q, %q, %q): no error", bad[0], bad[1], bad[2])
			}
		}
	})
}
