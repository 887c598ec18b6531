package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// gcTrace reads the GODEBUG=gctrace=1 lines an emulator writes to its
// standard error and keeps each collection's pauses and mark time.
type gcTrace struct {
	mu      sync.Mutex
	partial []byte
	gcs     []gcEvent
}

// gcEvent is one collection: its two stop-the-world pauses (sweep
// termination and mark termination) together, and its concurrent mark,
// in wall-clock time.
type gcEvent struct{ stw, mark time.Duration }

// gcLine matches a gctrace line: "gc 6 @3.379s 0%: 1.0+35+0.021 ms clock, ...".
var gcLine = regexp.MustCompile(`^gc \d+ @[0-9.]+s \d+%: ([0-9.]+)\+([0-9.]+)\+([0-9.]+) ms clock`)

// Write takes the process's standard error, line by line.
func (g *gcTrace) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.partial = append(g.partial, p...)
	for {
		i := bytes.IndexByte(g.partial, '\n')
		if i < 0 {
			break
		}
		if e, ok := parseGCLine(string(g.partial[:i])); ok {
			g.gcs = append(g.gcs, e)
		}
		g.partial = g.partial[i+1:]
	}
	if len(g.partial) > 64<<10 { // not gctrace: drop it
		g.partial = g.partial[:0]
	}
	return len(p), nil
}

// parseGCLine reads one gctrace line.
func parseGCLine(line string) (gcEvent, bool) {
	m := gcLine.FindStringSubmatch(line)
	if m == nil {
		return gcEvent{}, false
	}
	ms := func(s string) time.Duration {
		f, _ := strconv.ParseFloat(s, 64)
		return time.Duration(f * float64(time.Millisecond))
	}
	return gcEvent{stw: ms(m[1]) + ms(m[3]), mark: ms(m[2])}, true
}

// count is how many collections were read so far.
func (g *gcTrace) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.gcs)
}

// gcWindow sums the collections of one window.
type gcWindow struct {
	N         int
	STW, Mark time.Duration // totals
	MaxSTW    time.Duration
}

// since sums the collections after the first n.
func (g *gcTrace) since(n int) *gcWindow {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := &gcWindow{}
	for _, e := range g.gcs[min(n, len(g.gcs)):] {
		w.N++
		w.STW += e.stw
		w.Mark += e.mark
		w.MaxSTW = max(w.MaxSTW, e.stw)
	}
	return w
}

// withGCTrace wraps measure so that the windows of a server whose
// gctrace is read also record its collections (stats.GC).
func withGCTrace(measure func(*server, time.Duration) (*stats, error)) func(*server, time.Duration) (*stats, error) {
	return func(s *server, d time.Duration) (*stats, error) {
		if s.gc == nil {
			return measure(s, d)
		}
		n := s.gc.count()
		st, err := measure(s, d)
		if err != nil {
			return nil, err
		}
		st.GC = s.gc.since(n)
		return st, nil
	}
}

// printGC prints, beside each round's p99 and the floor's, the
// collections of each emulator whose gctrace was read (-gctrace).
func printGC(w io.Writer, rs []roundResult, servers []*server) {
	var traced []*server
	for _, s := range servers {
		if s.gc != nil {
			traced = append(traced, s)
		}
	}
	if len(traced) == 0 {
		return
	}
	fmt.Fprintln(w, "Garbage collection in the lookup rounds (the emulators ran with GODEBUG=gctrace=1): collections in the window, their stop-the-world pauses (sweep and mark termination) in all and the longest, and their concurrent marks' wall-clock time in all, beside the round's p99 and the floor's:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Round | Server | p99 | floor's p99 | collections | stop-the-world in all | longest | mark in all |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
	for i, r := range rs {
		for _, s := range traced {
			st := r[s.Name]
			g := st.GC
			if g == nil {
				continue
			}
			fmt.Fprintf(w, "| %d | %s | %s | %s | %d | %s | %s | %s |\n", i+1, s.Name, fmtDur(st.P99), fmtDur(r[nameFloor].P99),
				g.N, fmtDur(g.STW), fmtDur(g.MaxSTW), fmtDur(g.Mark))
		}
	}
	fmt.Fprintln(w)
}
