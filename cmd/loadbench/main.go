// Command loadbench measures the emulator against the net/http floor on
// loopback: it starts, in this process, the real emulator (wired as
// cmd/threeds-sandbox wires it) and a floor server that only reads the
// body and writes a canned response of the same size, drives both
// alternately with the same realistic lookup at a fixed concurrency, and
// prints throughput, latency percentiles and the emulator/floor ratio.
// Then it measures mixed traffic (lookup, enquiry, headless challenge),
// the memory a stored transaction takes, and the cold start of the
// binary. BENCHMARKS.md shows its output.
//
//	go run ./cmd/loadbench                    # everything, about 70 s
//	go run ./cmd/loadbench -wrk               # drive the lookup rounds with wrk
//	go run ./cmd/loadbench -duration 10s -memory 0 -coldstart 0
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}
