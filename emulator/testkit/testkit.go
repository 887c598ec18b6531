// Package testkit is what the project's tests share: a settable clock, a
// free loopback port, lookup bodies, and starters for the real servers
// and browser the tests drive (redis-server, nginx, headless Chromium),
// each on a free loopback port in a directory of its own and stopped when
// the test ends.
//
// A test that needs a program the machine lacks is skipped, but under CI
// (CI=true) it fails instead: there every program is installed, and a
// skipped test would pass for nothing.
//
// It imports no package of the project but examples, so the tests of any
// package, the engine's own included, may use it.
package testkit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// InCI reports whether the tests run under CI (CI=true), where a missing
// program fails a test rather than skipping it.
func InCI() bool { return os.Getenv("CI") == "true" }

// Need returns the path of program name: found on the PATH or at one of
// paths. Without it, tb is skipped, or failed under CI with how CI
// installs it (the Debian package pkg).
func Need(tb testing.TB, name, pkg string, paths ...string) string {
	tb.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if InCI() {
		tb.Fatalf("%s is not installed (.ci/run installs it with apt-get install %s)", name, pkg)
	}
	tb.Skipf("%s is not installed: skipped (the test fails instead when CI=true)", name)
	return ""
}

// FreePort returns a loopback TCP port nobody listens on now.
//
// The caller's server binds it later, so the port is drawn at random from
// below the kernel's ephemeral range: a port the kernel hands out for
// "listen on :0" or as a connection's source port could be taken by any
// other process in between (a busy machine's test suites open thousands of
// connections), while one below that range is taken only by another
// random draw.
func FreePort(tb testing.TB) int {
	tb.Helper()
	if lo, hi := drawRange(); hi > lo {
		for range 64 {
			p := lo + rand.IntN(hi-lo)
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err == nil {
				ln.Close()
				return p
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// drawRange is the range FreePort draws from: from 10000 up to the
// first port of the kernel's ephemeral range (32768 by default on Linux).
// An empty range leaves FreePort to the kernel's choice.
func drawRange() (lo, hi int) {
	lo, hi = 10000, 32768
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return lo, hi
	}
	if first, err := strconv.Atoi(fields[0]); err == nil {
		hi = first
	}
	return lo, hi
}

// Budget is the most allocations, and bytes allocated, one call of Fn
// may make: a path of the hot code, checked by CheckBudgets. Fn returns
// an error when the call itself failed.
type Budget struct {
	Name     string
	Max      float64 // allocations per call
	MaxBytes float64 // bytes allocated per call; 0 leaves them unchecked
	Fn       func() error
}

// CheckBudgets runs each budget's Fn runs times as a subtest of t and
// fails the subtest when a call averages more allocations, or bytes,
// than its budget, or fails. It counts allocations, never time, so the
// check holds on any machine. Under the race detector, which instruments
// memory accesses and changes the counts, t is skipped: .ci/run checks
// the budgets without it (go test -run TestAllocBudgets).
func CheckBudgets(t *testing.T, runs int, budgets ...Budget) {
	t.Helper()
	if Race {
		t.Skip("allocation counts differ under the race detector; run go test -run TestAllocBudgets without -race")
	}
	for _, b := range budgets {
		t.Run(b.Name, func(t *testing.T) {
			var err error
			allocs, bytes := perRun(runs, func() {
				if e := b.Fn(); e != nil && err == nil {
					err = e
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if allocs > b.Max {
				t.Errorf("got %.0f allocs/op, want at most %.0f (the budget in bench_test.go)", allocs, b.Max)
			}
			if b.MaxBytes > 0 && bytes > b.MaxBytes {
				t.Errorf("got %.0f B/op, want at most %.0f (the budget in bench_test.go)", bytes, b.MaxBytes)
			}
			t.Logf("%.0f allocs/op (budget %.0f), %.0f B/op (budget %.0f)", allocs, b.Max, bytes, b.MaxBytes)
		})
	}
}

// perRun is testing.AllocsPerRun that also counts the bytes: the mean
// allocations and bytes of runs calls of f, after one call to warm up,
// on one OS thread of Go code.
func perRun(runs int, f func()) (allocs, bytes float64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs), float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// Buffer is a bytes.Buffer safe for concurrent use: a program under test
// writes its log into it while the test reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor returns what was written once it holds want, or, after five
// seconds without it, what was written then: a program's log may hold
// its lines back for a moment under load.
func (b *Buffer) WaitFor(want string) string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := b.String()
		if strings.Contains(s, want) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// FreeAddr returns 127.0.0.1:port for a free loopback port.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	return fmt.Sprintf("127.0.0.1:%d", FreePort(tb))
}

// ServeTCP listens on a free loopback port until tb ends, handing each
// connection to serve (which may keep it: it is closed at the end), and
// returns the port: a peer that is no HTTP server, such as one that hangs
// up at once or never says a word.
func ServeTCP(tb testing.TB, serve func(net.Conn)) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			serve(c)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}
