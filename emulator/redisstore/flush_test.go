package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state/statetest"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// readsProcessed is Redis's count of reads of client sockets
// (INFO stats total_reads_processed): the round trips as it sees them.
func readsProcessed(t *testing.T, c rueidis.Client) int64 {
	t.Helper()
	info, err := c.Do(context.Background(), c.B().Info().Section("stats").Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_reads_processed:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("INFO stats has no total_reads_processed")
	return 0
}

// TestFlushDelayGathersWrites: with a FlushDelay, the Puts of concurrent
// requests reach Redis together, so Redis reads several lookups at once
// (the point of the delay: its cost is mostly per read). 32 requests
// make 20 Puts each, in rounds that begin together: with a 100 ms delay
// each round of 32 reaches Redis in about one read (at most two allowed);
// without it, 59-107 reads here, as the client writes whenever its
// writer runs. The rounds begin together, and the delay is long, so that
// a machine busy elsewhere, which delays a request's goroutine by tens of
// milliseconds, does not spread a round over several flushes: free
// running with a 20 ms delay, CI read 74 times beside the end-to-end
// tests.
func TestFlushDelayGathersWrites(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := redisstore.ConnectWith(context.Background(), srv.URL, redisstore.ConnectOptions{Timeout: 5 * time.Second, FlushDelay: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s := newStore(t, c, time.Hour, 1000)
	const workers, each = 32, 20
	before := readsProcessed(t, c)
	errs := make(chan error, workers*each)
	for i := range each {
		var round sync.WaitGroup
		begin := make(chan struct{})
		for w := range workers {
			round.Go(func() {
				tx := statetest.Transaction(fmt.Sprintf("ns-%d", w%4), fmt.Sprintf("tx-%d-%d", w, i), fmt.Sprintf("ORD-%d-%d", w, i))
				<-begin
				if err := s.Put(context.Background(), tx); err != nil {
					errs <- err
				}
			})
		}
		close(begin)
		round.Wait()
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	reads := readsProcessed(t, c) - before - 1 // the second INFO
	t.Logf("Redis read %d times for %d rounds of %d Puts", reads, each, workers)
	if reads > 2*each {
		t.Errorf("Redis read %d times for %d rounds of %d concurrent Puts with a 100ms FlushDelay, want at most %d: about one read per round", reads, each, workers, 2*each)
	}
}

// TestFlushDelayHoldsNoLoneRequest: a request alone, with nothing else in
// flight, is written at once whatever the FlushDelay: with a delay
// longer than the call's own bound, sequential Puts and Gets would fail
// if the client held them.
func TestFlushDelayHoldsNoLoneRequest(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c, err := redisstore.ConnectWith(context.Background(), srv.URL, redisstore.ConnectOptions{Timeout: 5 * time.Second, FlushDelay: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s := newStore(t, c, time.Hour, 1000)
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		tx := statetest.Transaction("ns", fmt.Sprintf("alone-%d", i), fmt.Sprintf("ORD-%d", i))
		if err := s.Put(ctx, tx); err != nil {
			t.Fatalf("Put %d alone, FlushDelay a minute: %v", i, err)
		}
		if _, err := s.GetByExternalRef(ctx, "ns", tx.ExternalReferenceID); err != nil {
			t.Fatalf("GetByExternalRef %d alone: %v", i, err)
		}
		cancel()
	}
}
