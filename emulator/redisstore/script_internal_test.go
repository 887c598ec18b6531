package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestScriptLoadedOnce: a batch of script calls goes by SHA-1; a Redis
// that does not hold the script (a fresh one, after SCRIPT FLUSH) gets it
// in full once, and never by SCRIPT LOAD, however many batches follow.
func TestScriptLoadedOnce(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := Connect(context.Background(), srv.URL, 10*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	s := newScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`)
	for batch := range 3 {
		if batch == 2 {
			if err := srv.Do("SCRIPT", "FLUSH"); err != nil {
				t.Fatal(err)
			}
		}
		res := s.execMulti(ctx, c, rueidis.LuaExec{Keys: []string{"a"}, Args: []string{"1"}}, rueidis.LuaExec{Keys: []string{"b"}, Args: []string{"10"}})
		for i, want := range []int64{int64(batch + 1), int64(10 * (batch + 1))} {
			if got, err := res[i].AsInt64(); err != nil || got != want {
				t.Fatalf("batch %d, call %d: %d, %v; want %d", batch, i, got, err, want)
			}
		}
	}
	stats, err := srv.Query("INFO", "commandstats")
	if err != nil {
		t.Fatal(err)
	}
	calls := func(cmd string) string {
		for _, l := range strings.Split(stats, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "cmdstat_"+cmd+":calls="); ok {
				n, _, _ := strings.Cut(v, ",")
				return n
			}
		}
		return "0"
	}
	// Batch 1: two NOSCRIPT then two EVAL; batch 2: two EVALSHA; batch 3
	// (after the flush): as batch 1.
	for cmd, want := range map[string]string{"evalsha": "6", "eval": "4", "script|load": "0"} {
		if got := calls(cmd); got != want {
			t.Errorf("%s called %s times, want %s\n%s", cmd, got, want, stats)
		}
	}
}
