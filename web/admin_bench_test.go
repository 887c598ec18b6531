package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

// The automation API's costs: a list of 1000 transactions and one
// transaction's events, on the memory store and on Redis (store, namespace
// states and the shared journal), and 1000 waits held open at once.

// automationJournal holds 1000 transactions of one token and more, with
// room in bytes for them all.
var automationJournal = journal.Options{PerNamespace: 2000, MaxBytesPerNamespace: 256 << 20, MaxTotalBytes: 512 << 20}

// redisServer is the server as the binary wires it with a Redis --store:
// the store, runtime scenarios, namespace states and the shared journal,
// all in a redis-server of the benchmark's own.
func redisServer(b *testing.B) *web.Server {
	b.Helper()
	testkit.Need(b, "redis-server", "redis-server")
	srv := testkit.StartRedis(b, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, 2*time.Second, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	jc, err := redisstore.Connect(context.Background(), srv.URL, 2*time.Second, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(jc.Close)
	store, err := redisstore.NewStore(c, redisstore.Options{IndexKey: []byte("the benchmark's reference index key"), MaxAge: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	rt, err := redisstore.NewRuntime(c, redisstore.RuntimeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	spaces, err := redisstore.NewNamespaces(c, redisstore.NamespacesOptions{MaxAge: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(spaces.Close)
	j, err := redisstore.NewJournal(jc, redisstore.JournalOptions{Options: automationJournal, MaxAge: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(j.Close)
	return buildSandbox(b, envOptions{realClock: true, seed: 1, storeMaxAge: time.Hour, state: func(p *stateParts) {
		p.Store, p.Runtime, p.Namespaces, p.Events, p.Journal = store, rt, spaces, j, j
	}}, "http://127.0.0.1:8080").Server
}

// automationServers are the servers the benchmarks compare, by store.
func automationServers(b *testing.B) map[string]func() *web.Server {
	return map[string]func() *web.Server{
		"memory": func() *web.Server {
			return buildSandbox(b, envOptions{realClock: true, seed: 1, journal: true, journalOpt: automationJournal,
				maxWaits: [2]int{2000, 100}}, "http://127.0.0.1:8080").Server
		},
		"redis": func() *web.Server { return redisServer(b) },
	}
}

// get sends an API GET with token through srv.
func get(srv http.Handler, token, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

// post sends an API POST with token through srv.
func post(srv http.Handler, token, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

// idOf is the threeDsServerTransId of a lookup's answer.
func idOf(b *testing.B, rec *httptest.ResponseRecorder) string {
	b.Helper()
	const key = `"threeDsServerTransId":"`
	i := strings.Index(rec.Body.String(), key)
	if rec.Code != http.StatusOK || i < 0 {
		b.Fatalf("lookup: HTTP %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()[i+len(key) : i+len(key)+36]
}

// awaitList waits until token's listing holds n transactions (the shared
// journal writes a moment after the lookups).
func awaitList(b *testing.B, srv http.Handler, token string, n int) {
	b.Helper()
	testkit.Eventually(b, fmt.Sprintf("the listing holds %d transactions", n), func() bool {
		rec := get(srv, token, fmt.Sprintf("/admin/transactions?limit=%d", n))
		return strings.Count(rec.Body.String(), `"threeDsServerTransId"`) == n
	})
}

// BenchmarkAdminList1000 lists 1000 transactions of one token in one
// page: realistic frictionless lookups, each with its request kept.
func BenchmarkAdminList1000(b *testing.B) {
	lookup := rawLookup(b, scenarioFrictionless)
	for _, store := range []string{"memory", "redis"} {
		b.Run(store, func(b *testing.B) {
			srv := automationServers(b)[store]()
			for range 1000 {
				idOf(b, post(srv, "bench-list", "/authentication/brw", lookup))
			}
			awaitList(b, srv, "bench-list", 1000)
			b.ReportAllocs()
			b.ResetTimer()
			var size int
			for range b.N {
				rec := get(srv, "bench-list", "/admin/transactions?limit=1000")
				if rec.Code != http.StatusOK {
					b.Fatalf("HTTP %d %s", rec.Code, rec.Body)
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "answer-bytes")
		})
	}
}

// BenchmarkAdminTransaction reads one transaction with its events: a
// challenge looked up, opened, failed once, passed and enquired, among
// 1000 transactions of its token.
func BenchmarkAdminTransaction(b *testing.B) {
	lookup, challenge := rawLookup(b, scenarioFrictionless), rawLookup(b, scenarioChallenge)
	for _, store := range []string{"memory", "redis"} {
		b.Run(store, func(b *testing.B) {
			srv := automationServers(b)[store]()
			for range 999 {
				idOf(b, post(srv, "bench-tx", "/authentication/brw", lookup))
			}
			id := idOf(b, post(srv, "bench-tx", "/authentication/brw", challenge))
			get(srv, "", "/acs/hosted/"+id)
			post(srv, "bench-tx", "/challenge/"+id, []byte(`{"action":"otp","otp":"0000"}`))
			post(srv, "bench-tx", "/challenge/"+id, []byte(`{"action":"pass"}`))
			post(srv, "bench-tx", "/enquiry/", []byte(`{"threeDsServerTransId":"`+id+`"}`))
			awaitList(b, srv, "bench-tx", 1000)
			b.ReportAllocs()
			b.ResetTimer()
			var size int
			for range b.N {
				rec := get(srv, "bench-tx", "/admin/transactions/"+id)
				if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"type":"enquiry"`) {
					b.Fatalf("HTTP %d %.300s", rec.Code, rec.Body)
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "answer-bytes")
		})
	}
}

// cpuTime is the CPU time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heap is the live heap after a full collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkAdminWaits1000 holds 1000 waits (?wait=final&timeout=60s) open
// at once on the memory store, 50 tokens of 20 pending challenges each,
// through the handler (no connections: the sandbox's own cost), and
// reports what they take: heap and goroutines per wait, the CPU the
// process spends in one idle second while they are open, and the time
// from the first decision until every wait has answered (one decision
// per challenge, each waking its token's other waits to check).
func BenchmarkAdminWaits1000(b *testing.B) {
	const tokens, each = 50, 20
	challenge := rawLookup(b, scenarioChallenge)
	for range b.N {
		b.StopTimer()
		srv := buildSandbox(b, envOptions{realClock: true, seed: 1, journal: true, journalOpt: automationJournal,
			maxWaits: [2]int{tokens * each, each}}, "http://127.0.0.1:8080").Server
		var ids [tokens][each]string
		for t := range tokens {
			for i := range each {
				ids[t][i] = idOf(b, post(srv, fmt.Sprint("bench-wait-", t), "/authentication/brw", challenge))
			}
		}
		heapBefore, goBefore := heap(), runtime.NumGoroutine()
		var wg sync.WaitGroup
		finals := make(chan bool, tokens*each)
		for t := range tokens {
			for i := range each {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rec := get(srv, fmt.Sprint("bench-wait-", t), "/admin/transactions/"+ids[t][i]+"?wait=final&timeout=60s")
					finals <- rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), `"final":true`)
				}()
			}
		}
		testkit.Eventually(b, "every wait is open", func() bool {
			return strings.Contains(get(srv, "", "/metrics").Body.String(), fmt.Sprintf("\nthreeds_admin_waits_open %d\n", tokens*each))
		})
		heapOpen, goOpen := heap(), runtime.NumGoroutine()
		// The CPU of one idle second is what the benchmark measures: the
		// sleep is that second, not a wait for something.
		cpu := cpuTime(b)
		time.Sleep(time.Second)
		idle := cpuTime(b) - cpu
		b.StartTimer()
		start := time.Now()
		for t := range tokens {
			for i := range each {
				if rec := post(srv, fmt.Sprint("bench-wait-", t), "/challenge/"+ids[t][i], []byte(`{"action":"pass"}`)); rec.Code != http.StatusOK {
					b.Fatalf("decision: HTTP %d %s", rec.Code, rec.Body)
				}
			}
		}
		wg.Wait()
		ended := time.Since(start)
		b.StopTimer()
		close(finals)
		for ok := range finals {
			if !ok {
				b.Fatal("a wait did not answer final")
			}
		}
		b.ReportMetric(float64(heapOpen-heapBefore)/(tokens*each), "heap-bytes/wait")
		b.ReportMetric(float64(goOpen-goBefore)/(tokens*each), "goroutines/wait")
		b.ReportMetric(float64(idle.Microseconds()), "idle-cpu-µs/s")
		b.ReportMetric(float64(ended.Milliseconds()), "ms-to-end-all")
	}
}
