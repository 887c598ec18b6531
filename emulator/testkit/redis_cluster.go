package testkit

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RedisCluster is a Redis Cluster of a test: redis-server processes with
// cluster mode on, their slots assigned by redis-cli --cluster create.
type RedisCluster struct {
	// Nodes are the servers, primaries first; URLs of any of them name
	// the cluster.
	Nodes []*Redis
}

// StartRedisCluster starts primaries redis-server nodes (and replicas
// replicas of each) on free loopback ports, joins them in a cluster with
// redis-cli --cluster create and waits until every node says the cluster
// is ok. Everything is killed when tb ends. It needs redis-server and
// redis-cli (Debian: redis-server, which brings redis-tools): without
// them the test is skipped, or fails when CI=true.
func StartRedisCluster(tb testing.TB, primaries, replicas int) *RedisCluster {
	tb.Helper()
	return StartRedisClusterWith(tb, primaries, replicas, RedisOptions{})
}

// StartRedisClusterWith is StartRedisCluster with the nodes' options
// (Cluster is set): with TLS, the nodes speak TLS only, to clients and
// to each other, and their URLs are rediss://.
func StartRedisClusterWith(tb testing.TB, primaries, replicas int, opt RedisOptions) *RedisCluster {
	tb.Helper()
	cli := Need(tb, "redis-cli", "redis-tools")
	c := &RedisCluster{}
	args := []string{"--cluster", "create"}
	if opt.TLS != nil {
		args = append([]string{"--tls", "--cacert", opt.TLS.File}, args...)
	}
	opt.Cluster = true
	for range primaries * (1 + replicas) {
		n := StartRedis(tb, opt)
		c.Nodes = append(c.Nodes, n)
		args = append(args, n.Addr)
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		tb.Fatalf("redis-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	c.WaitOK(tb)
	return c
}

// WaitOK waits until every node says cluster_state:ok and
// knows every slot, and every replica has copied its primary
// (master_link_status:up): a replica still at its first copy cannot be
// promoted.
func (c *RedisCluster) WaitOK(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, n := range c.Nodes {
		for {
			info, err := n.Query("CLUSTER", "INFO")
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_slots_ok:16384") {
				break
			}
			if time.Now().After(deadline) {
				tb.Fatalf("the cluster node %s is not ok after 30s: %v\n%s", n.Addr, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for {
			info, err := n.Query("INFO", "replication")
			if err == nil && (strings.Contains(info, "role:master") || strings.Contains(info, "master_link_status:up")) {
				break
			}
			if time.Now().After(deadline) {
				tb.Fatalf("the cluster node %s has not copied its primary after 30s: %v\n%s", n.Addr, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
