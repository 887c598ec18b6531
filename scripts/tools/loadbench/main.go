// Command loadbench measures the emulator against the net/http floor on
// loopback: it builds and starts the real emulator binary with its default
// flags, and a floor server that only reads the body and writes a canned
// response of the same size, each in a process of its own; drives both
// alternately with the same realistic lookup at a fixed concurrency, and
// prints throughput, latency percentiles and the emulator/floor ratio.
// Then it measures latency at fixed offered rates (open loop), mixed
// traffic (lookup, enquiry, headless challenge), the memory a stored
// transaction takes, and the cold start of the binary. With -peers, other
// mock servers (WireMock, Mockoon CLI, Prism) answering the same lookup
// canned take part in the lookup rounds; with -bounds, so does the floor
// doing one part of a lookup's work (checking or decoding the body) and
// nothing else, which bounds the ratio any server doing that work can
// reach; with -without, so does the emulator without one of its fast
// paths, and with -compare other builds of it, each with its CPU time and
// allocations per request. docs/performance.md shows its output.
//
// It is a module of its own (scripts/tools); from the repository's root:
//
//	go -C scripts/tools run ./loadbench                    # everything, several minutes
//	go -C scripts/tools run ./loadbench -wrk               # drive the lookup rounds with wrk
//	go -C scripts/tools run ./loadbench -duration 10s -memory 0 -coldstart 0
//	go -C scripts/tools run ./loadbench -wrk -bounds       # with the floor decoding the body too
//	go -C scripts/tools run ./loadbench -wrk -without logbuf,static-routes  # what two fast paths buy
//	go -C scripts/tools run ./loadbench -wrk -peers /tmp/peers  # beside the peers installed there with npm
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if isFloor(os.Getenv) {
		if err := serveFloor(os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}
