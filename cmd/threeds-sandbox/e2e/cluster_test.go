//go:build full

package e2e

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestReplicasOnCluster: two replicas of the built binary on a Redis
// Cluster of three primaries, each --store naming another node, serve
// as on one Redis: a lookup on one is the other's enquiry by id and by
// reference; a challenge hops between them; a capture posted to one is
// continued by a lookup on the other; the transactions list and a
// runtime scenario are shared; and the automation API's promises hold
// replica by replica, its wait ended by a decision taken on the other
// (the cluster's pub/sub).
func TestReplicasOnCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes and a Redis Cluster")
	}
	cluster := testkit.StartRedisCluster(t, 3, 0)
	const shopID, shopKey = "cluster-shop", "cluster-shop-api-key-0123456789"
	args := []string{"--merchants", shopID + ":" + shopKey, "--public-url", "http://sandbox.example"}
	start := func(node *testkit.Redis) *program {
		p := startReplica(t, node, args...)
		p.URL = "http://" + p.Addr // where the test reaches it
		return p
	}
	a, b := start(cluster.Nodes[0]), start(cluster.Nodes[2])

	// A frictionless lookup on one is the other's enquiry, by id and by
	// reference.
	y := a.lookup(t, testkit.LookupBody(t, "4000000000009003", func(m map[string]any) { m["externalReferenceId"] = "cluster-ref-1" }))
	id := y.Str("threeDsServerTransId")
	if got := b.enquiry(t, id); got.Str("transactionStatus") != "Y" || got.Str("eci") != "05" {
		t.Errorf("enquiry by id on the other replica: %s", got.Raw)
	}
	byRef := testkit.Call(t, http.MethodPost, b.URL+"/enquiry/", testToken, map[string]any{"externalReferenceId": "cluster-ref-1"})
	if byRef.Status != http.StatusOK || byRef.Str("threeDsServerTransId") != id {
		t.Errorf("enquiry by reference on the other replica: HTTP %d %s", byRef.Status, byRef.Raw)
	}

	// A headless challenge hopping between replicas at every step.
	chID, _ := hopChallenge(t, a, b)

	// A capture on one, its lookup on the other, its JWT replayed refused.
	token := accessToken(t, a.URL, shopID, shopKey)
	captureAcross(t, a, b, shopID, shopKey, token, "cluster")

	// The transactions list on either holds both.
	for _, p := range []*program{a, b} {
		list := testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions", testToken, nil)
		ids := listIDs(list)
		if list.Status != http.StatusOK || !slices.Contains(ids, id) || !slices.Contains(ids, chID) {
			t.Errorf("transactions list on %s: HTTP %d %v, want %s and %s", p.Addr, list.Status, ids, id, chID)
		}
	}

	// A runtime scenario added on one is used by the other within a second.
	add := testkit.Call(t, http.MethodPost, a.URL+"/admin/scenarios", testToken, map[string]any{"scenarios": []map[string]any{{
		"id": "cluster-decline", "match": map[string]any{"cardNumber": "4111111111111111"},
		"frictionless": map[string]any{"status": "R", "reason": "11"},
	}}})
	if add.Status != http.StatusCreated {
		t.Fatalf("add a runtime scenario: %d %s", add.Status, add.Raw)
	}
	testkit.Eventually(t, "the other replica uses the runtime scenario", func() bool {
		return b.lookup(t, testkit.LookupBody(t, "4111111111111111", nil)).Str("status") == "R"
	})

	// A namespace's change reaches the other replica when the cluster bus
	// delivers its announcement, at the latest when the replica reads the
	// state again (every second). The bound leaves room for a loaded
	// machine, where 2 s (the revalidation, then the requests that see
	// it on each replica) was passed while other tests ran.
	t.Run("automation replica by replica", func(t *testing.T) {
		checkAutomation(t, &entry{urls: []string{a.URL, b.URL}, replicas: []string{a.URL, b.URL}, announced: true})
	})

	for _, p := range []*program{a, b} {
		if ready := testkit.Call(t, http.MethodGet, p.URL+"/readyz", "", nil); ready.Status != http.StatusOK {
			t.Errorf("readyz of %s on the cluster: %d %s", p.Addr, ready.Status, strings.TrimSpace(ready.Raw))
		}
	}
}
