package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state/statetest"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// testIndexKey keys the names of the reference index in the tests.
var testIndexKey = []byte("the tests' reference index key, 32+ bytes")

// connect opens a client to srv for the test.
func connect(t *testing.T, srv *testkit.Redis) rueidis.Client {
	t.Helper()
	c, err := redisstore.Connect(context.Background(), srv.URL, patient, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// patient is the timeout of a test's store where the timeout is not what
// the test is about: far beyond a call's time on a busy machine, so
// that a slow moment never reads as Redis being down.
const patient = 10 * time.Second

// TestContract runs the state.Store contract against a real
// redis-server, each test under a prefix of its own.
func TestContract(t *testing.T) {
	t.Parallel()
	runContract(t, single(t))
}

func runContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.Run(t, func(t *testing.T, maxAge time.Duration) state.Store {
		return newStore(t, c, maxAge, 1000)
	})
}

// TestSharesContract runs the contract of each tenant's share of the
// transactions against a real redis-server, as the memory store does.
func TestSharesContract(t *testing.T) {
	t.Parallel()
	runSharesContract(t, single(t))
}

func runSharesContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.RunShares(t, func(t *testing.T, perTenant int) state.Store {
		return newStore(t, c, time.Hour, perTenant)
	})
}

// TestShareForgetsExpiredFirst: a namespace's expired transactions still
// listed in its set (they leave it only when the count passes the share)
// never cost it a live one: past its share, the expired go first.
func TestShareForgetsExpiredFirst(t *testing.T) {
	t.Parallel()
	c := connect(t, testkit.StartRedis(t, testkit.RedisOptions{}))
	const maxAge = 300 * time.Millisecond
	s := newStore(t, c, maxAge, 2)
	ctx := context.Background()
	for _, id := range []string{"old-1", "old-2"} {
		if err := s.Put(ctx, statetest.Transaction("ns", id, "")); err != nil {
			t.Fatal(err)
		}
	}
	// Redis expires keys by its own clock: let the transactions' 300ms
	// pass (a longer sleep changes nothing).
	time.Sleep(maxAge + 100*time.Millisecond)
	for _, id := range []string{"new-1", "new-2"} {
		if err := s.Put(ctx, statetest.Transaction("ns", id, "")); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"new-1", "new-2"} {
		if _, err := s.Get(ctx, id); err != nil {
			t.Errorf("%s, within the share once the expired are gone: %v", id, err)
		}
	}
	if err := s.Put(ctx, statetest.Transaction("ns", "new-3", "")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "new-1"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("new-1, the oldest live one past the share: %v, want ErrNotFound", err)
	}
	for _, id := range []string{"new-2", "new-3"} {
		if _, err := s.Get(ctx, id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// newStore is a Store over c under the test's own prefix.
func newStore(t *testing.T, c rueidis.Client, maxAge time.Duration, perTenant int) state.Store {
	t.Helper()
	s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, Prefix: t.Name() + ":", MaxAge: maxAge, MaxEntriesPerTenant: perTenant, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCapturesContract runs the captures contract against a real
// redis-server, with two values over it as two replicas, each test under
// a prefix of its own; b also holds a previous key, as after a rotation.
func TestCapturesContract(t *testing.T) {
	t.Parallel()
	runCapturesContract(t, single(t))
}

func runCapturesContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.RunCaptures(t, func(t *testing.T, perTenant int) (a, b state.Captures) {
		opt := redisstore.CapturesOptions{Prefix: t.Name() + ":", Timeout: patient, Keys: [][]byte{[]byte("capture key")}, PerTenant: perTenant}
		ra, err := redisstore.NewCaptures(c, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Keys = append(opt.Keys, []byte("an older key"))
		rb, err := redisstore.NewCaptures(c, opt)
		if err != nil {
			t.Fatal(err)
		}
		return ra, rb
	})
}

// TestCallbacksContract runs the result callbacks' contract against a
// real redis-server, two values over it as two replicas, each test under
// a prefix of its own.
func TestCallbacksContract(t *testing.T) {
	t.Parallel()
	runCallbacksContract(t, single(t))
}

func runCallbacksContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.RunCallbacks(t, func(t *testing.T, b state.CallbackBounds) (state.Callbacks, state.Callbacks) {
		// A cached URL is never read again within the test: only the
		// announcements carry a change from one replica to the other.
		opt := redisstore.CallbacksOptions{Prefix: t.Name() + ":", Timeout: patient, Revalidate: time.Hour, Bounds: b}
		ra, err := redisstore.NewCallbacks(c, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ra.Close)
		rb, err := redisstore.NewCallbacks(dial(t), opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rb.Close)
		return ra, rb
	})
}

// TestUnavailable: with Redis down every call fails within the timeout
// with an error wrapping ErrUnavailable, and works again once Redis is
// back, with the same client.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{AppendOnly: true})
	c := connect(t, srv)
	// One store of the client for the calls with Redis up, where a slow
	// moment must not read as an outage; one with a timeout of 300ms for
	// the calls with Redis down.
	s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	down, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tx := statetest.Transaction("ns", "id-before", "ORD-B")
	if err := s.Put(ctx, tx); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	calls := map[string]func() error{
		"Put":  func() error { return down.Put(ctx, statetest.Transaction("ns", "id-during", "")) },
		"Get":  func() error { _, err := down.Get(ctx, "id-before"); return err },
		"Ref":  func() error { _, err := down.GetByExternalRef(ctx, "ns", "ORD-B"); return err },
		"Ping": func() error { return down.Ping(ctx) },
		"Update": func() error {
			_, err := down.Update(ctx, "id-before", func(*state.Transaction) error { return nil })
			return err
		},
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		if !errors.Is(err, state.ErrUnavailable) {
			t.Errorf("%s with Redis down: %v, want ErrUnavailable", name, err)
		}
		// Far beyond the timeout on a busy machine, far below a hang.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s took %s with a timeout of 300ms", name, d)
		}
	}
	srv.Start()
	testkit.Eventually(t, "the client reconnects once Redis is back", func() bool { return s.Ping(ctx) == nil })
	if got, err := s.Get(ctx, "id-before"); err != nil || got.ExternalReferenceID != "ORD-B" {
		t.Errorf("after the restart: %v, want the transaction kept by the append-only file", err)
	}
	if _, err := s.Get(ctx, "id-during"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("the Put that failed stored something: %v", err)
	}
}

func TestConnect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := redisstore.Connect(ctx, "redis://127.0.0.1:1/0", 200*time.Millisecond, 0); err == nil {
		t.Error("Connect to a closed port succeeded")
	}
	if _, err := redisstore.Connect(ctx, "http://example.com", time.Second, 0); err == nil {
		t.Error("Connect accepted an http URL")
	}
	// With a wait, a server that comes up later is reached.
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	srv.Stop()
	go func() {
		// A server that comes up a moment after the first try: a stand-in
		// for a slow start, not a wait of the test.
		time.Sleep(700 * time.Millisecond)
		srv.Start()
	}()
	c, err := redisstore.Connect(ctx, srv.URL, 300*time.Millisecond, testkit.Patience)
	if err != nil {
		t.Fatalf("Connect with a wait: %v", err)
	}
	c.Close()
	for in, want := range map[string]string{
		"redis://user:secret@host:6379/0": "redis://user:***@host:6379/0",
		"rediss://:secret@host:6380":      "rediss://:***@host:6380",
		"redis://host:6379":               "redis://host:6379",
	} {
		if got := redisstore.Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestRuntimeContract runs the state.RuntimeScenarios contract against
// a real redis-server, with two Runtimes over it as two replicas.
func TestRuntimeContract(t *testing.T) {
	t.Parallel()
	runRuntimeContract(t, single(t))
}

func runRuntimeContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.RunRuntime(t, func(t *testing.T, lim scenarios.RuntimeLimits) (a, b state.RuntimeScenarios) {
		opt := redisstore.RuntimeOptions{Prefix: t.Name() + ":", Revalidate: 200 * time.Millisecond, Timeout: patient,
			Limits: lim}
		ra, err := redisstore.NewRuntime(c, opt)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := redisstore.NewRuntime(c, opt)
		return ra, rb
	})
}

// TestRuntimeOfAnEarlierVersionGivesWay: runtime scenarios kept before
// the namespaces were counted by their bytes give way at the total as
// those added since do.
func TestRuntimeOfAnEarlierVersionGivesWay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c := connect(t, srv)
	docOf := func(id string) []byte {
		return []byte("scenarios:\n  - id: " + id + "\n    match: {cardPrefix: \"4" + strings.Repeat(id[1:], 8)[:8] + "\"}\n    frictionless: {status: N, reason: \"05\"}\n")
	}
	one, err := scenarios.ParseRuntime(docOf("b1"))
	if err != nil {
		t.Fatal(err)
	}
	size := scenarios.DocumentBytes(one)
	rt, err := redisstore.NewRuntime(c, redisstore.RuntimeOptions{Prefix: "earlier:", Timeout: patient, Limits: scenarios.RuntimeLimits{MaxTotalBytes: 4*size + size/2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, add := range []struct{ ns, id string }{{"big", "b1"}, {"big", "b2"}, {"big", "b3"}, {"small", "s1"}} {
		if _, err := rt.Add(ctx, add.ns, docOf(add.id)); err != nil {
			t.Fatalf("%s %s: %v", add.ns, add.id, err)
		}
	}
	if err := c.Do(ctx, c.B().Del().Key("earlier:sbz").Build()).Error(); err != nil { // as an earlier version kept them
		t.Fatal(err)
	}
	if _, err := rt.Add(ctx, "newcomer", docOf("n1")); err != nil {
		t.Fatalf("a newcomer at the total: %v", err)
	}
	for ns, want := range map[string]int{"big": 2, "small": 1, "newcomer": 1} {
		if list, err := rt.List(ctx, ns); err != nil || len(list) != want {
			t.Errorf("%s holds %d scenarios (%v), want %d", ns, len(list), err, want)
		}
	}
}

// TestNamespacesContract runs the state.Namespaces contract against a
// real redis-server, with two Namespaces over it as two replicas.
func TestNamespacesContract(t *testing.T) {
	t.Parallel()
	runNamespacesContract(t, single(t))
}

func runNamespacesContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.RunNamespaces(t, func(t *testing.T) (a, b state.Namespaces) {
		opt := redisstore.NamespacesOptions{Prefix: t.Name() + ":", MaxAge: time.Hour, Timeout: patient}
		na, err := redisstore.NewNamespaces(c, opt)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := redisstore.NewNamespaces(c, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(na.Close)
		t.Cleanup(nb.Close)
		return na, nb
	})
}

// TestPutKeepsAStoredTransaction: a second Put of an id is refused and the
// stored transaction stays as it was, with or without a reference.
func TestPutKeepsAStoredTransaction(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	s, err := redisstore.NewStore(connect(t, srv), redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ref := range []string{"", "ORD-2"} {
		first := statetest.Transaction("ns", "dup-"+ref, "ORD-1")
		if err := s.Put(ctx, first); err != nil {
			t.Fatal(err)
		}
		again := statetest.Transaction("ns", "dup-"+ref, ref)
		again.Status = "N"
		if err := s.Put(ctx, again); err == nil || errors.Is(err, state.ErrUnavailable) {
			t.Errorf("second Put of %s (reference %q): %v, want refused", again.ThreeDSServerTransID, ref, err)
		}
		got, err := s.Get(ctx, first.ThreeDSServerTransID)
		if err != nil || got.Status != first.Status || got.ExternalReferenceID != "ORD-1" {
			t.Errorf("after a refused Put: %+v, %v; want the first transaction", got, err)
		}
	}
}

// TestSessionsContract runs the session contract on a real redis-server,
// with two stores over it as two replicas, each test under a prefix of
// its own.
func TestSessionsContract(t *testing.T) {
	t.Parallel()
	runSessionsContract(t, single(t))
}

func runSessionsContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.RunSessions(t, func(t *testing.T, max int) (a, b state.SessionStore) {
		opt := redisstore.SessionsOptions{Prefix: t.Name() + ":", Max: max, Timeout: patient}
		ra, _ := redisstore.NewSessions(c, opt)
		rb, _ := redisstore.NewSessions(dial(t), opt)
		return ra, rb
	})
}

// TestSessionOfAnEarlierVersion: a console session key of an earlier
// version, which held the token itself, is no session: reading it ends
// it, and ending it works.
func TestSessionOfAnEarlierVersion(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	s, err := redisstore.NewSessions(connect(t, srv), redisstore.SessionsOptions{Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range []string{"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"} {
		if err := srv.Do("SET", "3ds:cs:"+id, "the-raw-token", "EX", "3600"); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := s.Session(ctx, "0123456789abcdef0123456789abcdef"); ok || err != nil {
		t.Errorf("Session of an earlier version's key = %v, %v; want none", ok, err)
	}
	if err := s.Delete(ctx, "fedcba9876543210fedcba9876543210"); err != nil {
		t.Errorf("Delete of an earlier version's key: %v", err)
	}
	if n, err := srv.Query("EXISTS", "3ds:cs:0123456789abcdef0123456789abcdef", "3ds:cs:fedcba9876543210fedcba9876543210"); err != nil || n != "0" {
		t.Errorf("the earlier version's keys: %s left, %v", n, err)
	}
}

// TestKeyRegistryContract runs the key registry's contract on a real
// redis-server, two values over it as two replicas, each test under a
// prefix of its own.
func TestKeyRegistryContract(t *testing.T) {
	t.Parallel()
	runKeyRegistryContract(t, single(t))
}

func runKeyRegistryContract(t *testing.T, dial dialer) {
	c := dial(t)
	statetest.RunKeyRegistry(t, func(t *testing.T) (a, b state.KeyRegistry) {
		ra, _ := redisstore.NewKeyRegistry(c, t.Name()+":", time.Second)
		rb, _ := redisstore.NewKeyRegistry(dial(t), t.Name()+":", time.Second)
		return ra, rb
	})
}

// TestCallbacksEarlierOutbox: deliveries an earlier version queued, in
// one sorted set for every namespace, are claimed and delivered.
func TestCallbacksEarlierOutbox(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	const prefix = "earlier:"
	for i, ns := range []string{"ns-a", "ns-b"} {
		id := fmt.Sprint("tx-", i)
		if err := srv.Do("HSET", prefix+"cb:d", id, `{"n":"`+ns+`","a":1,"t":"","r":0}`); err != nil {
			t.Fatal(err)
		}
		if err := srv.Do("ZADD", prefix+"cb:q", fmt.Sprint(t0.UnixMilli()), id); err != nil {
			t.Fatal(err)
		}
	}
	cb, err := redisstore.NewCallbacks(connect(t, srv), redisstore.CallbacksOptions{Prefix: prefix, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cb.Close)
	got, err := cb.Claim(context.Background(), t0, time.Minute, 10, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("Claim = %+v, %v; want both earlier deliveries", got, err)
	}
	for _, d := range got {
		if d.Attempt != 1 || d.Namespace != map[string]string{"tx-0": "ns-a", "tx-1": "ns-b"}[d.ID] {
			t.Errorf("claimed %+v", d)
		}
		if err := cb.Done(context.Background(), d); err != nil {
			t.Error(err)
		}
	}
	if n, _ := srv.Query("EXISTS", prefix+"cb:q", prefix+"cb:d", prefix+"cb:c", prefix+"cb:w", prefix+"cb:r"); n != "0" {
		t.Errorf("%s outbox keys left after every delivery was done", n)
	}
}

// TestReferenceKeyNames: the reference index names a reference by a
// keyed hash: no key of Redis holds the reference as sent (a card number
// included), the index still finds the newest transaction of each
// namespace's reference, and a store under another index key (other
// state keys entirely) finds none of them.
func TestReferenceKeyNames(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	c := connect(t, srv)
	s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	refs := []string{"4111111111111111", "ORD-2026-000123", "a:b:c"}
	for i, ref := range refs {
		for _, ns := range []string{"ns-a", "ns-b"} {
			if err := s.Put(ctx, statetest.Transaction(ns, fmt.Sprintf("%s-%d", ns, i), ref)); err != nil {
				t.Fatal(err)
			}
		}
	}
	keys, err := srv.Query("KEYS", "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(keys, "\n") {
		for _, ref := range refs {
			if strings.Contains(k, ref) {
				t.Errorf("key %q holds the reference %q", k, ref)
			}
		}
	}
	for i, ref := range refs {
		for _, ns := range []string{"ns-a", "ns-b"} {
			if got, err := s.GetByExternalRef(ctx, ns, ref); err != nil || got.ThreeDSServerTransID != fmt.Sprintf("%s-%d", ns, i) {
				t.Errorf("GetByExternalRef(%s, %q) = %s, %v", ns, ref, got.ThreeDSServerTransID, err)
			}
		}
	}
	other, _ := redisstore.NewStore(c, redisstore.Options{IndexKey: []byte("another index key of 32 bytes.."), MaxAge: time.Hour, Timeout: patient})
	if _, err := other.GetByExternalRef(ctx, "ns-a", refs[0]); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("a store under another index key: %v, want ErrNotFound", err)
	}
	if _, err := redisstore.NewStore(c, redisstore.Options{MaxAge: time.Hour}); err == nil {
		t.Error("NewStore without an index key: no error")
	}
}

// dialer opens a client of the test's Redis, a new one at each call (as
// another replica would).
type dialer func(t *testing.T) rueidis.Client

// single starts a redis-server for the test and dials it.
func single(t *testing.T) dialer {
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	return func(t *testing.T) rueidis.Client { return connect(t, srv) }
}

// TestShareExactAcrossReplicas: two replicas storing into one namespace
// keep its share, the newest, and no more than state.ShareSlack beyond
// it (exact below 64, trimmed back to the share once past the slack),
// whichever of them stored which, and after Redis lost its scripts
// (SCRIPT FLUSH on every node) too. On a cluster (TestClusterContracts)
// the replicas are two clients of two nodes.
func TestShareExactAcrossReplicas(t *testing.T) {
	t.Parallel()
	runShareExactAcrossReplicas(t, single(t))
}

func runShareExactAcrossReplicas(t *testing.T, dial dialer) {
	c := dial(t)
	c2 := dial(t)
	for _, share := range []int{5, 128} {
		t.Run(strconv.Itoa(share), func(t *testing.T) {
			a, b := newStore(t, c, time.Hour, share), newStore(t, c2, time.Hour, share)
			ctx := context.Background()
			slack := state.ShareSlack(share)
			n := 3*share + 2*slack + 1
			id := func(i int) string { return fmt.Sprintf("tx-%d", i) }
			for i := range n {
				s := a
				if i%3 == 0 {
					s = b
				}
				if i == n/2 {
					for addr, node := range c.Nodes() {
						if err := node.Do(ctx, c.B().ScriptFlush().Build()).Error(); err != nil {
							t.Fatalf("%s: %v", addr, err)
						}
					}
				}
				if err := s.Put(ctx, statetest.Transaction("ns", id(i), "")); err != nil {
					t.Fatalf("put tx-%d: %v", i, err)
				}
				if stored := i + 1; share < 64 || stored%(slack+1) == 0 || stored >= share-1 && stored <= share+2*slack+2 || stored == n {
					statetest.CheckShare(t, a, share, stored, id)
				}
			}
		})
	}
}

// TestShareListOutlivesItsIDs: the list of a namespace's ids always has a
// TTL, at least MaxAge from its newest id, though not every lookup
// renews it; a list Redis lost gets one again with the next lookup.
func TestShareListOutlivesItsIDs(t *testing.T) {
	t.Parallel()
	runShareListOutlivesItsIDs(t, single(t))
}

func runShareListOutlivesItsIDs(t *testing.T, dial dialer) {
	c := dial(t)
	const maxAge = time.Hour
	ctx := context.Background()
	for _, share := range []int{100, 2} { // below the share, and at it (trimmed by every lookup)
		t.Run(strconv.Itoa(share), func(t *testing.T) {
			s := newStore(t, c, maxAge, share)
			list := t.Name() + ":tl:ns"
			if redisstore.IsCluster(c) {
				list = t.Name() + ":tl:{ns}"
			}
			for i := range 6 {
				if i == 3 {
					if err := c.Do(ctx, c.B().Del().Key(list).Build()).Error(); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Put(ctx, statetest.Transaction("ns", fmt.Sprintf("tx-%d", i), "")); err != nil {
					t.Fatal(err)
				}
				ms, err := c.Do(ctx, c.B().Pttl().Key(list).Build()).AsInt64()
				if err != nil {
					t.Fatal(err)
				}
				if ms < (maxAge - time.Minute).Milliseconds() {
					t.Errorf("after tx-%d the list's TTL is %d ms, want at least MaxAge", i, ms)
				}
			}
		})
	}
}
