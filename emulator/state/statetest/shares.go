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
// by reference, and another namespace within its share loses none.
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
}

func put(t *testing.T, s state.Store, tx state.Transaction) {
	t.Helper()
	if err := s.Put(ctx, tx); err != nil {
		t.Fatalf("Put(%s): %v", tx.ThreeDSServerTransID, err)
	}
}
