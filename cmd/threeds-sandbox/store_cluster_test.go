package main

import (
	"io"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestStoreCluster: a --store naming a node of a Redis Cluster stops the
// start-up at once with the configuration's exit code and a message that
// says what to use instead, not the hint to wait longer (waiting does not
// mend it), whichever node it names.
func TestStoreCluster(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	for _, n := range []*testkit.Redis{cluster.Nodes[0], cluster.Nodes[2]} {
		env := map[string]string{"THREEDS_STORE": n.URL, "THREEDS_STATE_HASH_KEY": testHashKey, "THREEDS_STATE_BLOCK_KEY": testBlockKey}
		var stderr testkit.Buffer
		err := run(t.Context(), []string{"--addr", "127.0.0.1:0"}, envOf(env), environOf(env), io.Discard, &stderr, nil)
		if code := exitCode(err); code != exitUsage {
			t.Errorf("node %s: exit code %d, want %d (configuration)", n.Addr, code, exitUsage)
		}
		msg := stderr.String()
		for _, want := range []string{"threeds-sandbox: [store] store " + n.URL, "Redis Cluster", "use a single Redis"} {
			if !strings.Contains(msg, want) {
				t.Errorf("node %s: the start-up error lacks %q:\n%s", n.Addr, want, msg)
			}
		}
		if strings.Contains(msg, "--store-wait") {
			t.Errorf("node %s: the start-up error suggests waiting:\n%s", n.Addr, msg)
		}
	}
}
