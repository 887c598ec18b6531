package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state/statetest"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestClusterContracts runs every contract the single Redis passes on a
// Redis Cluster of three primaries made by redis-cli --cluster create,
// each client dialling another node (any node names the cluster). A
// multi-key step across slots would fail them (CROSSSLOT, or the
// client's refusal to build the command). Every node is watched as
// TestScriptsDeclareTheirKeys watches the single Redis, the slot groups
// spread: the cluster's run of the suites checks both.
func TestClusterContracts(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	var ws []*scriptWatch
	for _, n := range cluster.Nodes {
		ws = append(ws, watchScripts(t, n))
	}
	var n atomic.Int64
	dial := func(t *testing.T) rueidis.Client {
		node := cluster.Nodes[int(n.Add(1))%len(cluster.Nodes)]
		c := connect(t, node)
		if c.Mode() != rueidis.ClientModeCluster {
			t.Fatalf("node %s: a %s client, want a cluster client", node.Addr, c.Mode())
		}
		return c
	}
	runDeclaredSuites(t, dial, ws)
}

// TestClusterSpreads: on a cluster, the transactions, references, shares
// and journals of many namespaces land on every primary, not one.
func TestClusterSpreads(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	c := connect(t, cluster.Nodes[0])
	s := newStore(t, c, time.Hour, 100)
	ctx := context.Background()
	for i := range 60 {
		ns := fmt.Sprintf("%064x", i*7919)
		if err := s.Put(ctx, statetest.Transaction(ns, fmt.Sprintf("id-%d", i), fmt.Sprintf("ORD-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for _, node := range cluster.Nodes {
		for _, kind := range []string{":t:", ":r:{", ":tl:{"} {
			keys, err := node.Query("EVAL", "return #redis.call('KEYS', ARGV[1])", "0", "*"+kind+"*")
			if err != nil {
				t.Fatal(err)
			}
			if keys == "0" {
				t.Errorf("node %s holds no key of the kind %q of 60 namespaces", node.Addr, kind)
			}
		}
	}
}

// TestClusterSpreadsSlotGroups: on a cluster, the console sessions, the
// runtime scenarios and the callbacks' outbox of many tokens, under the
// default bounds, land on every primary (their slot groups, "{cs<i>}",
// "{rs<i>}" and "{cb<i>}"), not all on one node.
func TestClusterSpreadsSlotGroups(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	c := connect(t, cluster.Nodes[0])
	ctx := context.Background()
	sessions, err := redisstore.NewSessions(c, redisstore.SessionsOptions{Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := redisstore.NewRuntime(c, redisstore.RuntimeOptions{Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := redisstore.NewCallbacks(c, redisstore.CallbacksOptions{Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cb.Close)
	now := time.Now()
	const tokens = 60
	for i := range tokens {
		ns := fmt.Sprintf("%064x", i*7919)
		id, err := sessions.Create(ctx, state.Session{TokenHash: fmt.Sprintf("%032x", i*104729+1), Namespace: ns}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := sessions.Session(ctx, id); !ok || err != nil {
			t.Fatalf("session %d read back: %v, %v", i, ok, err)
		}
		doc := fmt.Sprintf("scenarios:\n  - id: s%d\n    match: {cardPrefix: \"4%05d\"}\n    frictionless: {status: N, reason: \"05\"}\n", i, i)
		if _, err := rt.Add(ctx, ns, []byte(doc)); err != nil {
			t.Fatal(err)
		}
		if _, err := cb.Schedule(ctx, state.Delivery{ID: fmt.Sprint("tx-", i), Namespace: ns, Due: now}, now); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := cb.Claim(ctx, now, time.Minute, 2*tokens, 0); err != nil || len(got) != tokens {
		t.Errorf("claimed %d of %d deliveries, one per token, across the groups: %v", len(got), tokens, err)
	}
	for _, node := range cluster.Nodes {
		for _, tag := range []string{"{cs", "{rs", "{cb"} {
			keys, err := node.Query("EVAL", "return #redis.call('KEYS', ARGV[1])", "0", "*"+tag+"*")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("node %s: %s keys of %s…}", node.Addr, keys, tag)
			if keys == "0" {
				t.Errorf("node %s holds no key of %q of %d tokens", node.Addr, tag+"…}", tokens)
			}
		}
	}
}

// TestClusterPolicyEveryNode: the eviction policy is read on every node
// of a cluster: one primary of three under allkeys-lru is refused.
func TestClusterPolicyEveryNode(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	c := connect(t, cluster.Nodes[0])
	s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckPolicy(context.Background()); err != nil {
		t.Fatalf("every node under noeviction: %v", err)
	}
	if err := cluster.Nodes[2].Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"); err != nil {
		t.Fatal(err)
	}
	s, _ = redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient})
	var pe *redisstore.PolicyError
	if err := s.CheckPolicy(context.Background()); !errors.As(err, &pe) || pe.Policy != "allkeys-lru" {
		t.Errorf("one node under allkeys-lru: %v, want its PolicyError", err)
	}
}

// TestClusterRefusals: what a cluster cannot serve is refused at once,
// saying why: a database other than 0, a key prefix with a brace.
func TestClusterRefusals(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	url := cluster.Nodes[1].URL
	if i := strings.LastIndex(url, "/"); i > len("redis://") {
		url = url[:i]
	}
	_, err := redisstore.ConnectWith(context.Background(), url+"/3", redisstore.ConnectOptions{Timeout: time.Second, Wait: 10 * time.Second})
	if !errors.Is(err, redisstore.ErrCluster) || !strings.Contains(err.Error(), "database 0") {
		t.Errorf("database 3 of a cluster: %v, want ErrCluster saying database 0", err)
	}
	c := connect(t, cluster.Nodes[1])
	if _, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient, Prefix: "app{1}:"}); !errors.Is(err, redisstore.ErrCluster) {
		t.Errorf("a prefix with a hash tag on a cluster: %v, want ErrCluster", err)
	}
}

// TestClusterWakes: on a cluster a change published on one node wakes
// the waiters of a replica subscribed through another: the console's
// journal waiters and the namespaces' watchers, for namespaces of every
// primary's slots.
func TestClusterWakes(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	ctx := context.Background()
	for i, node := range cluster.Nodes {
		writer, reader := connect(t, cluster.Nodes[(i+1)%len(cluster.Nodes)]), connect(t, node)
		jo := redisstore.JournalOptions{Prefix: fmt.Sprintf("wake%d:", i), MaxAge: time.Hour, Timeout: patient}
		w, err := redisstore.NewJournal(writer, jo)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Close)
		r, err := redisstore.NewJournal(reader, jo)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.Close)
		no := redisstore.NamespacesOptions{Prefix: jo.Prefix, MaxAge: time.Hour, Timeout: patient}
		nw, err := redisstore.NewNamespaces(writer, no)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nw.Close)
		nr, err := redisstore.NewNamespaces(reader, no)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nr.Close)
		// The readers' subscriptions are made once a change of a probe
		// namespace wakes them; until then a publication goes unheard.
		probe := fmt.Sprintf("%064x", 1_000_000+i)
		testkit.Eventually(t, "the readers of node "+node.Addr+" hear the writers", func() bool {
			journalWoken, clockWoken := r.Changed(probe), nr.Changed(probe)
			w.Record(ctx, ev(probe, "probe", state.EventLookup, 0, "Y"))
			if _, err := nw.Advance(ctx, probe, time.Hour, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
			heard := func(ch <-chan struct{}) bool {
				select {
				case <-ch:
					return true
				case <-time.After(200 * time.Millisecond):
					return false
				}
			}
			return heard(journalWoken) && heard(clockWoken)
		})
		for k := range 6 {
			ns := fmt.Sprintf("%064x", (i*6+k)*104729)
			journalWoken, clockWoken := r.Changed(ns), nr.Changed(ns)
			w.Record(ctx, ev(ns, "tx", state.EventLookup, 0, "Y"))
			if _, err := nw.Advance(ctx, ns, time.Hour, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
			for what, ch := range map[string]<-chan struct{}{"journal": journalWoken, "clock": clockWoken} {
				select {
				case <-ch:
				case <-time.After(testkit.Patience):
					t.Errorf("node %s, namespace %d: the %s's waiter not woken within %s", node.Addr, k, what, testkit.Patience)
				}
			}
		}
	}
}

// TestClusterFailover: on a cluster of three primaries with a replica
// each, a primary is stopped (SHUTDOWN, which waits for its replica to
// catch up) while lookups are written, and its replica is promoted by
// the cluster (cluster-node-timeout 2s). Every transaction whose Put was
// acknowledged, before, during and after the failover, is read back
// after it, by id and by reference; Puts fail (unacknowledged) only
// while the slots of the stopped primary have none.
func TestClusterFailover(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 1)
	primary := cluster.Nodes[0]
	if role, err := primary.Query("INFO", "replication"); err != nil || !strings.Contains(role, "role:master") {
		t.Fatalf("node %s: %q (%v), want a primary", primary.Addr, role, err)
	}
	c := connect(t, cluster.Nodes[1])
	s := newStore(t, c, time.Hour, 1000)
	ctx := context.Background()

	type acked struct{ ns, id, ref string }
	var (
		stop     atomic.Bool
		failed   atomic.Int64
		done     = make(chan []acked, 4)
		seq      atomic.Int64
		writers  = 4
		stoppedC = make(chan struct{})
	)
	for w := range writers {
		go func() {
			var mine []acked
			for !stop.Load() {
				n := seq.Add(1)
				a := acked{ns: fmt.Sprintf("%064x", (n%50)*7919), id: fmt.Sprintf("fo-%d-%d", w, n), ref: fmt.Sprintf("ORD-%d", n)}
				pctx, cancel := context.WithTimeout(ctx, time.Second)
				err := s.Put(pctx, statetest.Transaction(a.ns, a.id, a.ref))
				cancel()
				if err != nil {
					failed.Add(1)
					// A writer's pause before it tries again, while the
					// slots have no primary: its pace, not a wait.
					time.Sleep(20 * time.Millisecond)
					continue
				}
				mine = append(mine, a)
			}
			done <- mine
		}()
	}
	testkit.Eventually(t, "the writers put 200 transactions", func() bool { return seq.Load() >= 200 })
	before := seq.Load()
	go func() {
		defer close(stoppedC)
		primary.Stop()
	}()
	<-stoppedC
	// The cluster promotes the replica once the others agree the primary
	// failed (cluster-node-timeout), then says it is ok again.
	promoted := func() bool {
		for _, n := range cluster.Nodes[3:] {
			if role, err := n.Query("INFO", "replication"); err == nil && strings.Contains(role, "role:master") {
				return true
			}
		}
		return false
	}
	testkit.Eventually(t, "a replica is promoted and the cluster ok again after a primary stopped", func() bool {
		info, err := cluster.Nodes[1].Query("CLUSTER", "INFO")
		return promoted() && err == nil && strings.Contains(info, "cluster_state:ok")
	})
	during := seq.Load()
	// Transactions written after the promotion too.
	testkit.Eventually(t, "the writers put 200 more transactions after the promotion", func() bool { return seq.Load() >= during+200 })
	stop.Store(true)
	var all []acked
	for range writers {
		all = append(all, <-done...)
	}
	t.Logf("%d Puts acknowledged (%d tried before the stop, %d before the promotion), %d failed during the failover", len(all), before, during, failed.Load())
	if len(all) < int(before) {
		t.Fatalf("only %d Puts acknowledged", len(all))
	}
	lost := 0
	for _, a := range all {
		got, err := s.Get(ctx, a.id)
		if err != nil || got.ExternalReferenceID != a.ref {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged transaction %s: %v", a.id, err)
			}
			continue
		}
		byRef, err := s.GetByExternalRef(ctx, a.ns, a.ref)
		if err != nil || byRef.ThreeDSServerTransID != a.id {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged reference %s of %s: %v", a.ref, a.id, err)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged transactions lost in the failover", lost, len(all))
	}
}

// TestClusterTLS: a cluster whose nodes speak TLS only is reached by a
// rediss:// URL of any node with the authority that signed them, and
// passes the store's contract; without that authority it is refused at
// once as untrusted.
func TestClusterTLS(t *testing.T) {
	t.Parallel()
	ca := testkit.NewTestCA(t, "cluster CA")
	cluster := testkit.StartRedisClusterWith(t, 3, 0, testkit.RedisOptions{TLS: ca})
	var n atomic.Int64
	runContract(t, func(t *testing.T) rueidis.Client {
		node := cluster.Nodes[int(n.Add(1))%len(cluster.Nodes)]
		c, err := redisstore.ConnectWith(context.Background(), node.URL, redisstore.ConnectOptions{Timeout: patient, RootCAs: ca.Pool})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		if c.Mode() != rueidis.ClientModeCluster {
			t.Fatalf("node %s: a %s client, want a cluster client", node.Addr, c.Mode())
		}
		return c
	})
	if _, err := redisstore.ConnectWith(context.Background(), cluster.Nodes[0].URL, redisstore.ConnectOptions{Timeout: time.Second, Wait: 10 * time.Second}); !errors.Is(err, redisstore.ErrUntrusted) {
		t.Errorf("without the authority: %v, want ErrUntrusted", err)
	}
}

// TestClusterSeveralAddresses: a URL naming several nodes (?addr=) starts
// on the cluster while the first of them is down, as a replica must when
// one node is lost.
func TestClusterSeveralAddresses(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisCluster(t, 3, 0)
	dead := testkit.FreeAddr(t)
	url := "redis://" + dead + "/0?addr=" + cluster.Nodes[1].Addr + "&addr=" + cluster.Nodes[2].Addr
	c, err := redisstore.ConnectWith(context.Background(), url, redisstore.ConnectOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("several addresses, the first down: %v", err)
	}
	defer c.Close()
	if !redisstore.IsCluster(c) {
		t.Fatalf("a %s client, want a cluster client", c.Mode())
	}
	s := newStore(t, c, time.Hour, 10)
	for i := range 20 {
		if err := s.Put(context.Background(), statetest.Transaction(fmt.Sprintf("ns-%d", i), fmt.Sprintf("id-%d", i), "ORD")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClusterUnavailable: with every node of a cluster down, each call
// fails within its timeout with an error wrapping ErrUnavailable (the
// spec's 503, never a 500), and the same client works again once the
// nodes are back, every acknowledged transaction kept by their
// append-only files.
func TestClusterUnavailable(t *testing.T) {
	t.Parallel()
	cluster := testkit.StartRedisClusterWith(t, 3, 0, testkit.RedisOptions{AppendOnly: true})
	c := connect(t, cluster.Nodes[0])
	// One store of the client for the calls with the cluster up, where a
	// slow moment must not read as an outage; one with a timeout of
	// 300ms for the calls with the cluster down.
	s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: patient, MaxEntriesPerTenant: 100})
	if err != nil {
		t.Fatal(err)
	}
	down, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour, Timeout: 300 * time.Millisecond, MaxEntriesPerTenant: 100})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 10 {
		if err := s.Put(ctx, statetest.Transaction(fmt.Sprintf("ns-%d", i), fmt.Sprintf("before-%d", i), "ORD-B")); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range cluster.Nodes {
		n.Stop()
	}
	calls := map[string]func() error{
		"Put":  func() error { return down.Put(ctx, statetest.Transaction("ns-1", "during", "ORD-D")) },
		"Get":  func() error { _, err := down.Get(ctx, "before-1"); return err },
		"Ref":  func() error { _, err := down.GetByExternalRef(ctx, "ns-1", "ORD-B"); return err },
		"Ping": func() error { return down.Ping(ctx) },
	}
	for name, call := range calls {
		start := time.Now()
		if err := call(); !errors.Is(err, state.ErrUnavailable) {
			t.Errorf("%s with the cluster down: %v, want ErrUnavailable", name, err)
		}
		// Far beyond the timeout on a busy machine, far below a hang.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s took %s with a timeout of 300ms", name, d)
		}
	}
	for _, n := range cluster.Nodes {
		n.Start()
	}
	cluster.WaitOK(t)
	testkit.Eventually(t, "the client reconnects once the cluster is back", func() bool { return s.Ping(ctx) == nil })
	for i := range 10 {
		if got, err := s.Get(ctx, fmt.Sprintf("before-%d", i)); err != nil || got.ExternalReferenceID != "ORD-B" {
			t.Errorf("before-%d after the restart: %v", i, err)
		}
	}
}
