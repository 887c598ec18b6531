package e2e

import (
	"net/http"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// The tenant rule for the pools that the earlier seams left shared,
// against the built binary: the transaction store, the console's
// sessions and live streams, the runtime scenarios.

// TestSeamsTransactionStoreShares: one token flooding lookups never
// evicts another token's transactions. In memory, at --store-max-entries
// the token holding the most loses its own oldest; in Redis each token
// keeps at most --store-max-entries-per-token, its own oldest going.
func TestSeamsTransactionStoreShares(t *testing.T) {
	const quiet, flood = "e2e-store-quiet", "e2e-store-flood"
	run := func(t *testing.T, p *program, kept, flooded int) {
		mine := lookups(t, p.URL, quiet, 20)
		floods := lookups(t, p.URL, flood, flooded)
		lost := 0
		for _, id := range mine {
			if r := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", quiet, map[string]any{"threeDsServerTransId": id}); r.Status != http.StatusOK {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("another token's flood of %d lookups evicted %d of the quiet token's %d transactions", flooded, lost, len(mine))
		}
		found := 0
		for _, id := range floods {
			if testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", flood, map[string]any{"threeDsServerTransId": id}).Status == http.StatusOK {
				found++
			}
		}
		if found != kept {
			t.Errorf("the flooding token keeps %d of its %d transactions, want %d", found, flooded, kept)
		}
	}
	t.Run("memory", func(t *testing.T) {
		run(t, startDefault(t, "--store-max-entries", "100"), 80, 200)
	})
	t.Run("redis", func(t *testing.T) {
		srv := testkit.StartRedis(t, testkit.RedisOptions{})
		run(t, startReplica(t, srv, "--store-max-entries-per-token", "50"), 50, 200)
	})
}
