package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestClusterRefused: a --store naming any node of a Redis Cluster (here
// three primaries made by redis-cli --cluster create) is refused at once,
// with an error that says why and what to use instead, rather than
// accepted and left answering CROSSSLOT request by request (readiness
// 503 for ever). Waiting does not mend it: the refusal comes at once
// even with a long Wait. A single Redis is still taken.
func TestClusterRefused(t *testing.T) {
	cluster := testkit.StartRedisCluster(t, 3, 0)
	for _, n := range cluster.Nodes {
		start := time.Now()
		c, err := redisstore.ConnectWith(context.Background(), n.URL, redisstore.ConnectOptions{Timeout: time.Second, Wait: 20 * time.Second})
		if err == nil {
			c.Close()
			t.Fatalf("node %s of a cluster: connected, want ErrCluster", n.Addr)
		}
		if !errors.Is(err, redisstore.ErrCluster) || !strings.Contains(err.Error(), "single Redis") {
			t.Errorf("node %s: %v, want ErrCluster saying what to use", n.Addr, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("node %s: refused after %s, want at once", n.Addr, d)
		}
	}
	single := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), single.URL, time.Second, 0)
	if err != nil {
		t.Fatalf("single Redis: %v", err)
	}
	c.Close()
}
