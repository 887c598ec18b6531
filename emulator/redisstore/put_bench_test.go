package redisstore_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// BenchmarkRedisPut stores transactions with a reference from 32
// goroutines, as concurrent lookups do: the replica's side of the
// lookup's one round trip (encoding, the client, the pipeline).
func BenchmarkRedisPut(b *testing.B) {
	srv := testkit.StartRedis(b, testkit.RedisOptions{})
	c, err := redisstore.Connect(context.Background(), srv.URL, time.Second, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := redisstore.NewStore(c, redisstore.Options{IndexKey: testIndexKey, MaxAge: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	base := state.Transaction{Namespace: "bench", Status: "Y", ECI: "05", ACSTransID: "8f3c2a1e-5b7d-4c9e-a1f2-3b4c5d6e7f80",
		DSTransID: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", CardBIN: "40000000", CardScheme: "visa", Version: "2.2.0"}
	var n atomic.Int64
	b.SetParallelism(16) // 32 goroutines on 2 CPUs
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t := base
			i := n.Add(1)
			t.ThreeDSServerTransID = "00000000-0000-4000-8000-" + strconv.FormatInt(100000000000+i, 10)
			t.ExternalReferenceID = "ORD-" + strconv.FormatInt(i, 10)
			if err := s.Put(context.Background(), t); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
