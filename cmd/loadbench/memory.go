package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

// memoryResult is the live heap a store holds after a number of lookups.
type memoryResult struct {
	Lookups    int
	MaxEntries int
	// Stored is how many transactions the store kept.
	Stored int
	// Checkpoints are the live heap (bytes above the empty engine) after
	// each quarter of the lookups.
	Checkpoints []int64
}

// BytesPerTx is the live heap per stored transaction at the end.
func (m memoryResult) BytesPerTx() float64 {
	return float64(m.Checkpoints[len(m.Checkpoints)-1]) / float64(m.Stored)
}

// liveHeap is the heap in use after two full collections.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// namespace is the token namespace of the stored transactions (the hex
// string web.Namespace makes of a bearer token).
const namespace = "5e1f0c2a9b7d4e61"

// measureMemory runs n frictionless lookups through Engine.Lookup into a
// fresh in-memory store bounded at maxEntries, each with its own
// externalReferenceId as a checkout farm sends them, and reports the live
// heap the store holds.
func measureMemory(ctx context.Context, req message.LookupRequest, n, maxEntries int) (memoryResult, error) {
	sb, err := newSandbox(maxEntries)
	if err != nil {
		return memoryResult{}, err
	}
	defer sb.Server.Close()
	engine := sb.Engine
	res := memoryResult{Lookups: n, MaxEntries: maxEntries}
	base := liveHeap()
	const quarters = 4
	var next atomic.Int64
	for q := 1; q <= quarters; q++ {
		end := int64(n * q / quarters)
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			firstErr error
		)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				r := req
				for {
					i := next.Add(1)
					if i > end || ctx.Err() != nil {
						return
					}
					// Fresh strings per lookup, as decoding each request
					// gives them: the reference, the card number (the
					// stored BIN points into it) and the namespace.
					r.ExternalReferenceID = fmt.Sprintf("ORD-%014d", i)
					r.Card.CardNumber = strings.Clone(req.Card.CardNumber)
					ns := strings.Clone(namespace)
					if _, err := engine.Lookup(ctx, ns, r, emulator.APICall{}); err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						return
					}
				}
			})
		}
		wg.Wait()
		next.Store(end)
		if firstErr != nil {
			return res, fmt.Errorf("memory: lookup: %w", firstErr)
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		res.Checkpoints = append(res.Checkpoints, liveHeap()-base)
	}
	res.Stored, _ = sb.Stored()
	runtime.KeepAlive(engine)
	return res, nil
}
