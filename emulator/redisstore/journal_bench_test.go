package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// redisCPU is the CPU time redis-server has used, from INFO cpu.
func redisCPU(b *testing.B, c rueidis.Client) time.Duration {
	b.Helper()
	info, err := c.Do(context.Background(), c.B().Info().Section("cpu").Build()).ToString()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatal(err)
			}
			total += f
		}
	}
	return time.Duration(total * float64(time.Second))
}

// selfCPU is the CPU time this process has used.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchJournal starts a redis-server for b and returns a shared journal
// over it (prefix "bench:"), its client, and the realistic lookup body of
// the wire testdata; all are closed when b ends.
func benchJournal(b *testing.B) (*redisstore.Journal, rueidis.Client, []byte) {
	b.Helper()
	srv := testkit.StartRedis(b, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	body := testkit.LookupJSON()
	j, err := redisstore.NewJournal(c, redisstore.JournalOptions{Prefix: "bench:", MaxAge: time.Hour, Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(j.Close) // before the client's: cleanups run last first
	return j, c, body
}

// BenchmarkRedisRecord records lookups as the load benchmark sends them
// (each a new transaction of one of four tokens, with its request body
// and answer) and reports the Redis CPU each costs besides the time the
// journal takes in the process.
func BenchmarkRedisRecord(b *testing.B) {
	j, c, body := benchJournal(b)
	events := make([]state.Event, 4096)
	for i := range events {
		id := fmt.Sprintf("8a880dc0-d2d2-4067-bcb1-%012d", i)
		events[i] = state.Event{
			Namespace: fmt.Sprintf("token-%d", i%4), Kind: state.EventLookup, Time: time.Now(), Detail: "pass -> Y",
			Request: body,
			Transaction: state.Summary{ThreeDSServerTransID: id, ExternalReferenceID: "ORD-1", ScenarioID: "visa-frictionless",
				MaskedPAN: "400000******1091", CardBIN: "400000", CardScheme: "VISA", Version: "2.2.0", Status: "Y", ECI: "05",
				CardholderName: "Jane Doe", MerchantName: "Example Shop", Amount: "129.99", Currency: "EUR"},
			Lookup: &message.LookupResponse{Status: "Y", ThreeDSServerTransID: id, ECI: "05"},
		}
	}
	ctx := context.Background()
	// Fill the namespaces to their bounds first: each event then evicts.
	for i := range 1000 {
		ev := events[i%len(events)]
		ev.Transaction.ThreeDSServerTransID = "warm-" + strconv.Itoa(i)
		j.Record(ctx, ev)
	}
	if err := j.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	cpu0, self0 := redisCPU(b, c), selfCPU(b)
	b.ResetTimer()
	for i := range b.N {
		ev := events[i%len(events)]
		ev.Transaction.ThreeDSServerTransID = ev.Transaction.ThreeDSServerTransID + strconv.Itoa(i)
		j.Record(ctx, ev)
		if i%512 == 511 {
			if err := j.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := j.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(redisCPU(b, c)-cpu0)/float64(time.Microsecond)/float64(b.N), "redis-µs/event")
	b.ReportMetric(float64(selfCPU(b)-self0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/event")
	if f := os.Getenv("JOURNAL_BENCH_STATS"); f != "" {
		// Where Redis spent its time, for a closer look.
		info, _ := c.Do(ctx, c.B().Info().Section("commandstats").Build()).ToString()
		if err := os.WriteFile(f, []byte(fmt.Sprintf("N=%d\n%s", b.N, info)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if st := j.Stats(); st.Dropped > 0 {
		b.Fatalf("%d events dropped", st.Dropped)
	}
}

// BenchmarkRedisRead reads back a namespace filled to its default bound
// of openings (400 lookups, each followed by five enquiries): what a console page
// costs, the list of transactions or one transaction's events, now that
// every read folds the namespace's streams.
func BenchmarkRedisRead(b *testing.B) {
	j, c, body := benchJournal(b)
	ctx := context.Background()
	t0 := time.Now()
	var last string
	for i := range 400 {
		id := fmt.Sprintf("8a880dc0-d2d2-4067-bcb1-%012d", i)
		sum := state.Summary{ThreeDSServerTransID: id, ExternalReferenceID: "ORD-1", ScenarioID: "visa-challenge",
			MaskedPAN: "400000******1109", CardBIN: "400000", CardScheme: "VISA", Version: "2.2.0", Status: "C",
			CardholderName: "Jane Doe", MerchantName: "Example Shop", Amount: "129.99", Currency: "EUR"}
		at := t0.Add(time.Duration(i) * time.Second)
		j.Record(ctx, state.Event{Namespace: "ns", Kind: state.EventLookup, Time: at, Request: body, Transaction: sum,
			Lookup: &message.LookupResponse{Status: "C", ThreeDSServerTransID: id}})
		for k := range 5 {
			j.Record(ctx, state.Event{Namespace: "ns", Kind: state.EventEnquiry, Time: at.Add(time.Duration(k+1) * time.Millisecond),
				Request: []byte(`{"threeDsServerTransId":"` + id + `"}`), Transaction: sum,
				Enquiry: &message.EnquiryResponse{TransactionStatus: "C", ThreeDSServerTransID: id}})
		}
		last = id
	}
	if err := j.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	// What the namespace's events take in Redis, compressed, next to
	// their bytes as the bounds count them.
	var stored int64
	for _, k := range []string{"o", "s"} {
		n, err := c.Do(ctx, c.B().MemoryUsage().Key("bench:j:ns:"+k).Samples(0).Build()).AsInt64()
		if err != nil {
			b.Fatal(err)
		}
		stored += n
	}
	plain, err := c.Do(ctx, c.B().Hget().Key("bench:j:ns:m").Field("b").Build()).AsInt64()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("a namespace at its bounds: %d bytes of events take %d bytes of Redis (%.1fx smaller)", plain, stored, float64(plain)/float64(stored))
	b.Run("List", func(b *testing.B) {
		for b.Loop() {
			if l, err := j.List(ctx, "ns", 200); err != nil || len(l) == 0 {
				b.Fatalf("List = %d, %v", len(l), err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := j.Get(ctx, "ns", last); err != nil || !ok {
				b.Fatalf("Get = %v, %v", ok, err)
			}
		}
	})
}
