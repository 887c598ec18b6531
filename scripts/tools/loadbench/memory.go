package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/sandboxtest"
)

// memoryResult is the live heap a store holds after a number of lookups.
type memoryResult struct {
	Lookups    int
	MaxEntries int
	// Stored is how many transactions the store kept.
	Stored int
	// Checkpoints are the live heap (bytes above the sandbox before its
	// first lookup) after each quarter of the lookups.
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

// memoryToken is the bearer token of the stored transactions: one
// namespace, as one checkout farm's.
const memoryToken = "loadbench-memory"

// startInProcess serves the sandbox in this process, wired as the binary
// wires it from the same flags (cmd/sandboxtest), without a line per
// request; with flags added to its defaults.
func startInProcess(flags ...string) (*sandboxtest.Sandbox, error) {
	sb, err := sandboxtest.New(sandboxtest.Flags(append([]string{"--log-level", "warn"}, flags...)...))
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	return sb, nil
}

// measureMemory sends n frictionless lookups of body (POST
// /authentication/brw) to a sandbox served in this process with a fresh
// memory store bounded at maxEntries, for one token as for all, each with
// its own externalReferenceId as a checkout farm sends them, and reports
// the live heap the store holds.
func measureMemory(ctx context.Context, body []byte, n, maxEntries int) (memoryResult, error) {
	bound := strconv.Itoa(maxEntries)
	sb, err := startInProcess("--store-max-entries", bound, "--store-max-entries-per-token", bound)
	if err != nil {
		return memoryResult{}, err
	}
	defer sb.Close()
	lookups, err := newReferenced(body)
	if err != nil {
		return memoryResult{}, err
	}
	client := sb.Client(memoryToken)
	client.HTTP = newClient(runtime.GOMAXPROCS(0))
	defer client.HTTP.CloseIdleConnections()
	res := memoryResult{Lookups: n, MaxEntries: maxEntries}
	base := liveHeap()
	const quarters = 4
	for q := range quarters {
		if err := sendLookups(ctx, client, lookups, n*q/quarters, n*(q+1)/quarters); err != nil {
			return res, fmt.Errorf("memory: %w", err)
		}
		res.Checkpoints = append(res.Checkpoints, liveHeap()-base)
	}
	stored, err := metric(ctx, client.HTTP, sb.URL, "threeds_store_transactions")
	if err != nil {
		return res, fmt.Errorf("memory: %w", err)
	}
	res.Stored = int(stored)
	return res, nil
}

// sendLookups sends the lookups of references from to to (excluded) with
// client, from as many workers as the client's process has CPUs.
func sendLookups(ctx context.Context, client *sandboxtest.Client, lookups referenced, from, to int) error {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next.Store(int64(from))
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(to) || ctx.Err() != nil {
					return
				}
				if _, err := client.Lookup(ctx, lookups.with(i)); err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, fmt.Errorf("lookup %d: %w", i, err))
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return cmp.Or(firstErr, ctx.Err())
}

// referenced makes lookup bodies that differ only in their
// externalReferenceId.
type referenced struct{ head, tail []byte }

// referenceField finds the externalReferenceId of a lookup body.
var referenceField = regexp.MustCompile(`"externalReferenceId"\s*:\s*"[^"\\]*"`)

// newReferenced splits body around its externalReferenceId's value.
func newReferenced(body []byte) (referenced, error) {
	loc := referenceField.FindIndex(body)
	if loc == nil {
		return referenced{}, errors.New("-body: no externalReferenceId in the lookup body")
	}
	value := bytes.LastIndexByte(body[loc[0]:loc[1]-1], '"') + loc[0] + 1
	return referenced{head: body[:value], tail: body[loc[1]-1:]}, nil
}

// with returns the body with the reference ORD- and i in 14 digits, in a
// buffer of its own.
func (r referenced) with(i int64) []byte {
	b := append(make([]byte, 0, len(r.head)+len(r.tail)+18), r.head...)
	b = fmt.Appendf(b, "ORD-%014d", i)
	return append(b, r.tail...)
}
