package statetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// SharesFactory returns a new, empty store keeping at most perTenant
// transactions of one namespace.
type SharesFactory func(t *testing.T, perTenant int) state.Store

// RunShares checks each tenant's share of the transactions: a namespace
// storing beyond its share loses its own oldest transactions, by id and
// by reference, and another namespace within its share loses none. Below
// a share of 64 the share is exact; above, a namespace keeps its newest
// share and at most state.ShareSlack(share) more, and is trimmed back to
// its share once it passes that.
func RunShares(t *testing.T, newStore SharesFactory) {
	t.Run("FloodEvictsOnlyItsOwn", func(t *testing.T) {
		const share = 8
		s := newStore(t, share)
		for i := range share / 2 {
			put(t, s, Transaction("quiet", fmt.Sprintf("quiet-%d", i), fmt.Sprintf("Q-%d", i)))
		}
		const flood = 5 * share
		for i := range flood {
			put(t, s, Transaction("flood", fmt.Sprintf("flood-%d", i), fmt.Sprintf("F-%d", i)))
		}
		for i := range share / 2 {
			if _, err := s.Get(ctx, fmt.Sprintf("quiet-%d", i)); err != nil {
				t.Errorf("quiet-%d (within its share) after another's flood: %v", i, err)
			}
			if _, err := s.GetByExternalRef(ctx, "quiet", fmt.Sprintf("Q-%d", i)); err != nil {
				t.Errorf("reference Q-%d after another's flood: %v", i, err)
			}
		}
		kept := 0
		for i := range flood {
			_, err := s.Get(ctx, fmt.Sprintf("flood-%d", i))
			switch {
			case err == nil:
				kept++
				if i < flood-share {
					t.Errorf("flood-%d kept beyond the share: the oldest must go first", i)
				}
			case !errors.Is(err, state.ErrNotFound):
				t.Fatalf("flood-%d: %v", i, err)
			case i >= flood-share:
				t.Errorf("flood-%d, among the newest %d of its namespace, is gone", i, share)
			}
		}
		if kept != share {
			t.Errorf("the flooding namespace keeps %d transactions, want its share %d", kept, share)
		}
		if _, err := s.GetByExternalRef(ctx, "flood", "F-0"); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("the reference of an evicted transaction: %v, want ErrNotFound", err)
		}
	})
	t.Run("SlackAboveSixtyFour", func(t *testing.T) {
		const share = 128 // slack 2
		slack := state.ShareSlack(share)
		if slack != 2 {
			t.Fatalf("ShareSlack(%d) = %d, want 2", share, slack)
		}
		s := newStore(t, share)
		id := func(i int) string { return fmt.Sprintf("slack-%d", i) }
		checks := map[int]bool{share - 1: true, share: true, share + 1: true, share + slack: true, share + slack + 1: true,
			share + slack + 2: true, 2*share + 1: true, 3 * share: true}
		for i := range 3 * share {
			put(t, s, Transaction("slack", id(i), fmt.Sprintf("S-%d", i)))
			if checks[i+1] {
				CheckShare(t, s, share, i+1, id)
			}
		}
		if _, err := s.GetByExternalRef(ctx, "slack", "S-0"); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("the reference of an evicted transaction: %v, want ErrNotFound", err)
		}
	})
}

// CheckShare fails t unless of the transactions id(0) to id(stored-1),
// stored in that order into one namespace of s, s keeps the newest
// min(stored, share), at most share plus state.ShareSlack(share) in all
// and none older than those, and exactly share when stored is
// share+slack+1 (the Put that passes the bound trims back to the share).
// It answers how many s keeps.
func CheckShare(t *testing.T, s state.Store, share, stored int, id func(int) string) int {
	t.Helper()
	slack := state.ShareSlack(share)
	kept := 0
	for k := range stored {
		_, err := s.Get(ctx, id(k))
		switch {
		case err == nil:
			kept++
			if k < stored-share-slack {
				t.Errorf("after %d stored: %s kept beyond the share %d plus slack %d", stored, id(k), share, slack)
			}
		case !errors.Is(err, state.ErrNotFound):
			t.Fatalf("%s: %v", id(k), err)
		case k >= stored-share:
			t.Errorf("after %d stored: %s, among the newest %d, is gone", stored, id(k), share)
		}
	}
	if lo, hi := min(stored, share), min(stored, share+slack); kept < lo || kept > hi {
		t.Errorf("after %d stored: %d kept, want %d to %d", stored, kept, lo, hi)
	}
	if stored == share+slack+1 && kept != share {
		t.Errorf("after %d stored (share %d plus slack %d, plus one): %d kept, want the share", stored, share, slack, kept)
	}
	return kept
}

func put(t *testing.T, s state.Store, tx state.Transaction) {
	t.Helper()
	if err := s.Put(ctx, tx); err != nil {
		t.Fatalf("Put(%s): %v", tx.ThreeDSServerTransID, err)
	}
}
