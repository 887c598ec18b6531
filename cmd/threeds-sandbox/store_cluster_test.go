package main

import (
	"io"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestStoreCluster: a --store naming a node of a Redis Cluster with what
// a cluster cannot serve (a database other than 0, a key prefix holding
// a hash tag) stops the start-up at once with the configuration's exit
// code and a message that says what to change, not the hint to wait
// longer (waiting does not mend it), whichever node it names.
func TestStoreCluster(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	for _, n := range []*testkit.Redis{cluster.Nodes[0], cluster.Nodes[2]} {
		db3 := strings.TrimSuffix(n.URL, "/0") + "/3"
		for _, c := range []struct {
			store  string
			extra  []string
			wants  []string
			reason string
		}{
			{db3, nil, []string{"threeds-sandbox: [store] store " + db3, "Redis Cluster", "database 0"}, "database 3"},
			{n.URL, []string{"--store-prefix", "app{x}:"}, []string{"Redis Cluster", "brace"}, "a prefix with a hash tag"},
		} {
			env := map[string]string{"THREEDS_STORE": c.store, "THREEDS_STATE_HASH_KEY": testHashKey, "THREEDS_STATE_BLOCK_KEY": testBlockKey}
			var stderr testkit.Buffer
			err := run(t.Context(), append([]string{"--addr", "127.0.0.1:0"}, c.extra...), envOf(env), environOf(env), io.Discard, &stderr, nil)
			if code := exitCode(err); code != exitUsage {
				t.Errorf("node %s, %s: exit code %d, want %d (configuration)", n.Addr, c.reason, code, exitUsage)
			}
			msg := stderr.String()
			for _, want := range c.wants {
				if !strings.Contains(msg, want) {
					t.Errorf("node %s, %s: the start-up error lacks %q:\n%s", n.Addr, c.reason, want, msg)
				}
			}
			if strings.Contains(msg, "--store-wait") {
				t.Errorf("node %s, %s: the start-up error suggests waiting:\n%s", n.Addr, c.reason, msg)
			}
		}
	}
}
