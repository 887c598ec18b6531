package redisstore_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// BenchmarkRedisPut stores transactions with a reference from 32
// goroutines, as concurrent lookups do: the replica's side of the
// lookup's one round trip (encoding, the client, the pipeline), and
// Redis's: its CPU (INFO cpu), commands (INFO commandstats) and reads of
// client sockets (INFO stats) per Put. Sub-benchmarks: without a share
// per tenant, below the share, and at it (every Put then deletes the
// namespace's oldest).
func BenchmarkRedisPut(b *testing.B) {
	srv := testkit.StartRedis(b, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for _, bc := range []struct {
		name  string
		share int
		fill  int // Puts before the timer starts
	}{
		{"no-share", 0, 0},
		{"below-share", 1 << 30, 0},
		{"at-share", 1000, 1000},
	} {
		var n atomic.Int64 // across the runs of b.Run's function: ids stay unique
		b.Run(bc.name, func(b *testing.B) {
			s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour,
				Prefix: bc.name + ":", MaxEntriesPerTenant: bc.share})
			if err != nil {
				b.Fatal(err)
			}
			base := state.Transaction{Namespace: "bench", Status: "Y", ECI: "05", ACSTransID: "8f3c2a1e-5b7d-4c9e-a1f2-3b4c5d6e7f80",
				DSTransID: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", CardBIN: "40000000", CardScheme: "visa", Version: "2.2.0"}
			put := func() error {
				t := base
				i := n.Add(1)
				t.ThreeDSServerTransID = "00000000-0000-4000-8000-" + strconv.FormatInt(100000000000+i, 10)
				t.ExternalReferenceID = "ORD-" + strconv.FormatInt(i, 10)
				return s.Put(context.Background(), t)
			}
			for range bc.fill + 1 {
				if err := put(); err != nil {
					b.Fatal(err)
				}
			}
			before := redisWork(b, c)
			b.SetParallelism(16) // 32 goroutines on 2 CPUs
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := put(); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			after := redisWork(b, c)
			ops := float64(b.N)
			b.ReportMetric((after.cpu-before.cpu)*1e6/ops, "redis-µs/op")
			b.ReportMetric((after.cmds-before.cmds-1)/ops, "redis-cmds/op") // less the INFO
			b.ReportMetric((after.reads-before.reads)/ops, "redis-reads/op")
		})
	}
}

// work is what INFO says Redis did so far.
type work struct{ cpu, cmds, reads float64 }

// redisWork reads Redis's CPU seconds, commands and reads so far.
func redisWork(b *testing.B, c rueidis.Client) work {
	b.Helper()
	info, err := c.Do(context.Background(), c.B().Info().Section("everything").Build()).ToString()
	if err != nil {
		b.Fatal(err)
	}
	var w work
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch {
		case k == "used_cpu_user" || k == "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			w.cpu += f
		case k == "total_reads_processed":
			f, _ := strconv.ParseFloat(v, 64)
			w.reads = f
		case strings.HasPrefix(k, "cmdstat_"):
			calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			f, _ := strconv.ParseFloat(calls, 64)
			w.cmds += f
		}
	}
	return w
}
