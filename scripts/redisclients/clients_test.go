// Package redisclients measures the two well-kept Go clients of Redis on
// the lookup path's Redis work, to choose one (docs/performance.md): the script
// that stores a transaction record and its reference index with a TTL,
// and a GET, from 64 goroutines at once as the emulator's handlers call
// them. It is a module of its own so that the sandbox depends only on the
// client it chose. It starts a redis-server on a free loopback port
// (REDIS_ADDR names one already running instead):
//
//	cd scripts/redisclients && go test -run '^$' -bench . -benchmem -count 5
package redisclients

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// put is the lookup's write: the record and the reference index, with
// the same time to live, in one atomic step.
const put = `redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1`

var record = strings.Repeat("r", 330) // a transaction record's size

// serverAddr is the address of the Redis the benchmarks use.
var serverAddr string

// TestMain starts redis-server (unless REDIS_ADDR is set) and stops it.
func TestMain(m *testing.M) {
	serverAddr = os.Getenv("REDIS_ADDR")
	var stop func()
	if serverAddr == "" {
		var err error
		if serverAddr, stop, err = startRedis(); err != nil {
			fmt.Fprintln(os.Stderr, "redisclients:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// startRedis starts redis-server without persistence on a free port and
// waits until it answers.
func startRedis() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start redis-server: %w", err)
	}
	a := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// Polls the port every 20 ms, for as long as a start may take on a
	// busy machine: the pace of the poll, not an assertion on time.
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", a); err == nil {
			c.Close()
			return a, func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }, nil
		}
	}
	_ = cmd.Process.Kill()
	return "", nil, fmt.Errorf("redis-server on %s did not answer within 2m", a)
}

func addr() string { return serverAddr }

var seq atomic.Uint64

func keys() (string, string, string) {
	n := seq.Add(1)
	id := fmt.Sprintf("8a880dc0-d2d2-4067-bcb1-%012d", n)
	return "3ds:t:" + id, fmt.Sprintf("3ds:r:5e1f0c2a9b7d4e61:ORD-%d", n), id
}

func BenchmarkGoRedisPut(b *testing.B) {
	c := goredis.NewClient(&goredis.Options{Addr: addr(), PoolSize: 64})
	defer c.Close()
	s := goredis.NewScript(put)
	ctx := context.Background()
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			k1, k2, id := keys()
			if err := s.Run(ctx, c, []string{k1, k2}, record, id, 3600).Err(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkRueidisPut(b *testing.B) {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr()}, DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s := rueidis.NewLuaScript(put)
	ctx := context.Background()
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			k1, k2, id := keys()
			if err := s.Exec(ctx, c, []string{k1, k2}, []string{record, id, "3600"}).Error(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkGoRedisGet(b *testing.B) {
	c := goredis.NewClient(&goredis.Options{Addr: addr(), PoolSize: 64})
	defer c.Close()
	ctx := context.Background()
	c.Set(ctx, "3ds:t:get", record, 0)
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Get(ctx, "3ds:t:get").Bytes(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkRueidisGet(b *testing.B) {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr()}, DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	c.Do(ctx, c.B().Set().Key("3ds:t:get").Value(record).Build())
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Do(ctx, c.B().Get().Key("3ds:t:get").Build()).AsBytes(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
