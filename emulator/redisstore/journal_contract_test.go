package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state/statetest"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestContractRedis runs the contract on a real redis-server, with two
// journals over it as two replicas: one records, the other reads.
func TestJournalContract(t *testing.T) {
	t.Parallel()
	runJournalContract(t, single(t))
}

func runJournalContract(t *testing.T, dial dialer) {
	c := dial(t)
	var n atomic.Int64
	statetest.RunJournal(t, func(t *testing.T, opt journal.Options) statetest.JournalPair {
		ro := redisstore.JournalOptions{Options: opt, Prefix: fmt.Sprintf("test%d:", n.Add(1)), MaxAge: time.Hour, Timeout: patient}
		w, err := redisstore.NewJournal(c, ro)
		if err != nil {
			t.Fatal(err)
		}
		r, err := redisstore.NewJournal(c, ro)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
		t.Cleanup(r.Close)
		return statetest.JournalPair{Writer: w, Reader: r, Sync: func() {
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
	t.Parallel()
	ctx := context.Background()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c := connect(t, srv)
	j, err := redisstore.NewJournal(c, redisstore.JournalOptions{Prefix: "down:", MaxAge: time.Hour, Timeout: 200 * time.Millisecond, Queue: 16})
	if err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	start := time.Now()
	for i := range 1000 {
		j.Record(ctx, ev("n", fmt.Sprint(i), state.EventLookup, 0, "Y"))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("1000 events took %v to record with Redis down, want no wait", d)
	}
	if _, err := j.List(ctx, "n", 0); !errors.Is(err, state.ErrUnavailable) {
		t.Errorf("List with Redis down: %v, want ErrUnavailable", err)
	}
	if _, _, err := j.Get(ctx, "n", "1"); !errors.Is(err, state.ErrUnavailable) {
		t.Errorf("Get with Redis down: %v, want ErrUnavailable", err)
	}
	if _, err := j.Version(ctx, "n"); !errors.Is(err, state.ErrUnavailable) {
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
	t.Parallel()
	ctx := context.Background()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c := connect(t, srv)
	got := make(chan string, 8)
	sub, cancel := c.Dedicate()
	defer cancel()
	sub.SetPubSubHooks(rueidis.PubSubHooks{OnMessage: func(m rueidis.PubSubMessage) { got <- m.Message }})
	if err := sub.Do(ctx, sub.B().Subscribe().Channel("pre:j:changed").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	j, err := redisstore.NewJournal(c, redisstore.JournalOptions{Prefix: "pre:", MaxAge: time.Hour, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.Record(ctx, ev("token-ns:1", "tx", state.EventLookup, 0, "Y"))
	select {
	case ns := <-got:
		if ns != "token-ns:1" {
			t.Errorf("published %q, want the namespace token-ns:1", ns)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no change published within 5s of an event")
	}
}

// ev is an event of transaction id of namespace ns, at t0 + at.
func ev(ns, id string, kind state.EventKind, at time.Duration, status string) state.Event {
	return state.Event{Namespace: ns, Kind: kind, Time: testkit.T0.Add(at),
		Transaction: state.Summary{ThreeDSServerTransID: id, Status: status}}
}
