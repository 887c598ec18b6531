package redisstore

import (
	"hash/fnv"
	"testing"
)

// TestGroups: a single Redis keeps one group with the whole bound; a
// cluster as many as each hold a full share, at most maxGroups, whose
// parts add up to the bound; every tenant has a group, the same each
// time.
func TestGroups(t *testing.T) {
	t.Parallel()
	single, cluster := keyspace{prefix: "3ds:"}, keyspace{prefix: "3ds:", cluster: true}
	for _, tt := range []struct {
		total, share, single, cluster int
	}{
		{10000, 16, 1, 16},     // console sessions, defaults
		{100000, 10000, 1, 10}, // the outbox, defaults
		{10, 16, 1, 1},         // a bound under a share
		{100, 3, 1, 16},
		{31, 16, 1, 1},
		{32, 16, 1, 2},
		{5, 0, 1, 1},
	} {
		if got := single.groupCount(tt.total, tt.share); got != tt.single {
			t.Errorf("one Redis, %d of %d: %d groups, want %d", tt.share, tt.total, got, tt.single)
		}
		n := cluster.groupCount(tt.total, tt.share)
		if n != tt.cluster {
			t.Errorf("a cluster, %d of %d: %d groups, want %d", tt.share, tt.total, n, tt.cluster)
		}
		sum := 0
		for i := range n {
			b := groupBound(tt.total, n, i)
			if tt.share > 0 && n > 1 && b < tt.share {
				t.Errorf("group %d of %d holds %d, under a share of %d", i, n, b, tt.share)
			}
			sum += b
		}
		if sum != tt.total {
			t.Errorf("%d groups' parts of %d add up to %d", n, tt.total, sum)
		}
	}
	seen := map[int]bool{}
	for i := range 200 {
		g := groupOf(string(rune('a'+i%26))+string(rune('0'+i/26)), 16)
		if g < 0 || g >= 16 {
			t.Fatalf("group %d of 16", g)
		}
		seen[g] = true
	}
	if len(seen) != 16 || groupOf("ns", 1) != 0 {
		t.Errorf("200 tenants in %d of 16 groups", len(seen))
	}
	// The group is FNV-1a of the name, the same in every replica and
	// every release: the standard library's hash says what it must be.
	for _, tenant := range []string{"ns", "5e1f0c2a9b7d4e61", ""} {
		h := fnv.New32a()
		h.Write([]byte(tenant))
		if got, want := groupOf(tenant, 16), int(h.Sum32()%16); got != want {
			t.Errorf("groupOf(%q, 16) = %d, want %d (FNV-1a)", tenant, got, want)
		}
	}
	if cluster.groupN("cs", 3) != "3ds:{cs3}" || single.groupN("cs", 0) != "3ds:" {
		t.Errorf("group prefixes %q, %q", cluster.groupN("cs", 3), single.groupN("cs", 0))
	}
}
