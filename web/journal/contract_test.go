package journal_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/journal"
	"github.com/threeds-sandbox/threeds-sandbox/web/journal/journaltest"
)

func TestContractMemory(t *testing.T) {
	journaltest.Run(t, func(t *testing.T, opt journal.Options) journaltest.Pair {
		j := journal.NewMemory(opt)
		return journaltest.Pair{Writer: j, Reader: j, Sync: func() {}}
	})
}

// TestContractRedis runs the contract on a real redis-server, with two
// journals over it as two replicas: one records, the other reads.
func TestContractRedis(t *testing.T) {
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var n atomic.Int64
	journaltest.Run(t, func(t *testing.T, opt journal.Options) journaltest.Pair {
		ro := journal.RedisOptions{Options: opt, Prefix: fmt.Sprintf("test%d:", n.Add(1)), MaxAge: time.Hour, Timeout: time.Second}
		w, err := journal.NewRedis(c, ro)
		if err != nil {
			t.Fatal(err)
		}
		r, err := journal.NewRedis(c, ro)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
		t.Cleanup(r.Close)
		return journaltest.Pair{Writer: w, Reader: r, Sync: func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}}
	})
}

// TestRedisDown: with Redis gone, recording neither blocks nor fails the
// caller (the events are counted as dropped), the reads answer an error
// that says the store is unavailable, and Close returns.
func TestRedisDown(t *testing.T) {
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	j, err := journal.NewRedis(c, journal.RedisOptions{Prefix: "down:", MaxAge: time.Hour, Timeout: 200 * time.Millisecond, Queue: 16})
	if err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	start := time.Now()
	for i := range 1000 {
		j.Record(ctx, ev("n", fmt.Sprint(i), emulator.EventLookup, 0, "Y"))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("1000 events took %v to record with Redis down, want no wait", d)
	}
	if _, err := j.List(ctx, "n", 0); !errors.Is(err, emulator.ErrUnavailable) {
		t.Errorf("List with Redis down: %v, want ErrUnavailable", err)
	}
	if _, _, err := j.Get(ctx, "n", "1"); !errors.Is(err, emulator.ErrUnavailable) {
		t.Errorf("Get with Redis down: %v, want ErrUnavailable", err)
	}
	if _, err := j.Version(ctx, "n"); !errors.Is(err, emulator.ErrUnavailable) {
		t.Errorf("Version with Redis down: %v, want ErrUnavailable", err)
	}
	done := make(chan struct{})
	go func() { j.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10s with Redis down")
	}
	if st := j.Stats(); st.Dropped < 900 || st.Recorded != 0 {
		t.Errorf("Stats = %+v, want the events counted as dropped", st)
	}
}

// TestRedisPublishesTheNamespace: a batch of events publishes the
// namespace it changed, which other replicas' consoles wait on.
func TestRedisPublishesTheNamespace(t *testing.T) {
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	got := make(chan string, 8)
	sub, cancel := c.Dedicate()
	defer cancel()
	sub.SetPubSubHooks(rueidis.PubSubHooks{OnMessage: func(m rueidis.PubSubMessage) { got <- m.Message }})
	if err := sub.Do(ctx, sub.B().Subscribe().Channel("pre:j:changed").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	j, err := journal.NewRedis(c, journal.RedisOptions{Prefix: "pre:", MaxAge: time.Hour, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.Record(ctx, ev("token-ns:1", "tx", emulator.EventLookup, 0, "Y"))
	select {
	case ns := <-got:
		if ns != "token-ns:1" {
			t.Errorf("published %q, want the namespace token-ns:1", ns)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no change published within 5s of an event")
	}
}
