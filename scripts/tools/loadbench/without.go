package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// fastPath is a hand-written fast path of the emulator, and how to build
// or start the emulator without it: with build tags, or with flags.
type fastPath struct {
	Name string
	Tags string
	Args []string
}

// fastPaths are the paths -without knows.
var fastPaths = []fastPath{
	{Name: "logbuf", Tags: "without_logbuf"},
	{Name: "gcheadroom", Args: []string{"--gc-headroom-mib", "0"}},
	{Name: "static-routes", Tags: "without_static_routes"},
}

// findFastPaths returns the fast paths of a comma-separated list of names.
func findFastPaths(list string) ([]fastPath, error) {
	var out []fastPath
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i := slices.IndexFunc(fastPaths, func(p fastPath) bool { return p.Name == n })
		if i < 0 {
			names := make([]string, len(fastPaths))
			for j, p := range fastPaths {
				names[j] = p.Name
			}
			return nil, fmt.Errorf("-without: no fast path %q (want some of %s)", n, strings.Join(names, ", "))
		}
		out = append(out, fastPaths[i])
	}
	return out, nil
}

// startWithout builds and starts one emulator per fast path of paths,
// each without it, named emulator-without-<path>.
func startWithout(ctx context.Context, paths []fastPath, bin, dir string, log bool, progress func(string, ...any)) ([]*server, error) {
	var out []*server
	for _, p := range paths {
		b := bin
		if p.Tags != "" {
			progress("go build -tags %s ./cmd/threeds-sandbox", p.Tags)
			var err error
			if b, err = buildTagged(ctx, dir, p.Tags); err != nil {
				closeAll(out)
				return nil, err
			}
		}
		s, err := startEmulator(ctx, nameEmulator+"-without-"+p.Name, b, log, p.Args...)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		s.Without = true
		out = append(out, s)
	}
	return out, nil
}

// mallocs reads the emulator's count of heap allocations since it
// started (go_memstats_mallocs_total of /metrics).
func mallocs(ctx context.Context, client *http.Client, base string) (float64, error) {
	return metric(ctx, client, base, "go_memstats_mallocs_total")
}

// metric reads the value of the metric name, one without labels, of the
// emulator at base (GET /metrics).
func metric(ctx context.Context, client *http.Client, base, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("metrics of %s: %w", base, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return 0, fmt.Errorf("metrics of %s: no %s (HTTP %d)", base, name, resp.StatusCode)
}

// cpuTicks reads the CPU time (user and system, in clock ticks) the
// process pid has used; 0 where /proc is not there.
func cpuTicks(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in brackets: utime and
	// stime are the 14th and 15th of the line, the 12th and 13th after it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return u + k
}

// clockTick is the length of a clock tick of /proc/<pid>/stat (USER_HZ,
// 100 on Linux).
const clockTick = 10 * time.Millisecond

// allocCounter counts the allocations and the CPU time per request of
// emulators over the lookup rounds.
type allocCounter struct {
	before, ticks map[string]float64
	per, cpu      map[string]float64
}

// start reads the emulators' counts before the rounds.
func (a *allocCounter) start(ctx context.Context, client *http.Client, emus []*server) error {
	a.before, a.ticks = map[string]float64{}, map[string]float64{}
	for _, e := range emus {
		n, err := mallocs(ctx, client, e.URL)
		if err != nil {
			return err
		}
		a.before[e.Name], a.ticks[e.Name] = n, cpuTicks(e.pid)
	}
	return nil
}

// stop reads them after the rounds rs and keeps each one's allocations
// per request served.
func (a *allocCounter) stop(ctx context.Context, client *http.Client, emus []*server, rs []roundResult) error {
	a.per, a.cpu = map[string]float64{}, map[string]float64{}
	for _, e := range emus {
		ticks := cpuTicks(e.pid) - a.ticks[e.Name]
		n, err := mallocs(ctx, client, e.URL)
		if err != nil {
			return err
		}
		reqs := 0
		for _, r := range rs {
			reqs += r[e.Name].Requests
		}
		if reqs > 0 {
			a.per[e.Name] = (n - a.before[e.Name]) / float64(reqs)
			a.cpu[e.Name] = ticks * float64(clockTick/time.Microsecond) / float64(reqs)
		}
	}
	return nil
}

// printWithout prints, for each emulator without a fast path, its
// throughput and allocations per request beside the emulator's, from the
// same rounds.
func printWithout(w io.Writer, rs []roundResult, servers []*server, allocs allocCounter) {
	without := slices.DeleteFunc(slices.Clone(servers), func(s *server) bool { return !s.Without })
	if len(without) == 0 {
		return
	}
	fmt.Fprintf(w, "## Without each fast path\n\nEach `emulator-without-<path>` took part in the lookup rounds above, in the same turns: the emulator built or started without that one fast path. Ratios are medians of the rounds' ratios, per round in brackets; allocations and CPU time per request are the emulator process's own across the rounds (go_memstats_mallocs_total of /metrics and /proc/<pid>/stat, over the requests served): unlike throughput, they hardly move with what else runs on the machine.\n\n")
	fmt.Fprintln(w, "| server | req/s | /floor | /emulator | allocs/request | CPU µs/request | CPU /emulator's |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	ratio := func(num, den string) string { return ratioCell(rs, num, den, "**%.3f**") }
	for _, s := range slices.Concat([]*server{servers[0]}, without) {
		rel := "1"
		if s.Without {
			rel = ratio(s.Name, nameEmulator)
		}
		cpu := "-"
		if c := allocs.cpu[nameEmulator]; c > 0 {
			cpu = fmt.Sprintf("%.3f", allocs.cpu[s.Name]/c)
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %.1f | %.1f | %s |\n", s.Name, medianStats(rs, s.Name).rps, ratio(s.Name, nameFloor), rel, allocs.per[s.Name], allocs.cpu[s.Name], cpu)
	}
	fmt.Fprintln(w)
}
