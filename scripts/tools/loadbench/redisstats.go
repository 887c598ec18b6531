package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// targetRedisCPU is the most Redis's own CPU time a lookup may cost (user
// plus system, from INFO cpu), with the shared journal: one Redis core
// then serves at least 100k lookups per second.
const targetRedisCPU = 10 * time.Microsecond

// targetTail is the most an emulator's p99 may be, as a multiple of the
// floor's p99 in the same round.
const targetTail = 2.0

// redisSnapshot is what Redis says of its work so far: its CPU time, the
// calls of each command (INFO commandstats; a script's own calls
// included) and the reads it processed on client sockets (INFO stats
// total_reads_processed: a pipeline that arrives at once is one read,
// so these are the round trips as Redis sees them).
type redisSnapshot struct {
	cpu     float64 // seconds, used_cpu_user + used_cpu_sys
	mainCPU float64 // seconds, the same of the main thread alone
	reads   int64
	in, out int64 // total_net_input_bytes, total_net_output_bytes
	calls   map[string]int64
}

// redisUsage is the work Redis did during one window, per lookup.
type redisUsage struct {
	Lookups  int
	CPU      time.Duration // per lookup
	Commands float64       // per lookup
	Reads    float64       // per lookup
	// MainCPU is the part of CPU spent by Redis's main thread (the rest:
	// the append-only file's fsync, the allocator's threads).
	MainCPU time.Duration
	// In and Out are the bytes received from and sent to clients per lookup.
	In, Out float64
	// Top are the commands with the most calls, "NAME n.nn" per lookup.
	Top []string
}

// snapshot reads INFO cpu, stats and commandstats.
func (r *redisProc) snapshot(ctx context.Context) (redisSnapshot, error) {
	info, err := r.client.Do(ctx, r.client.B().Info().Section("everything").Build()).ToString()
	if err != nil {
		return redisSnapshot{}, fmt.Errorf("redis INFO: %w", err)
	}
	return parseRedisInfo(info), nil
}

// parseRedisInfo reads the figures of a redisSnapshot out of INFO's text.
func parseRedisInfo(info string) redisSnapshot {
	s := redisSnapshot{calls: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch {
		case k == "used_cpu_user" || k == "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			s.cpu += f
		case k == "used_cpu_user_main_thread" || k == "used_cpu_sys_main_thread":
			f, _ := strconv.ParseFloat(v, 64)
			s.mainCPU += f
		case k == "total_reads_processed":
			s.reads, _ = strconv.ParseInt(v, 10, 64)
		case k == "total_net_input_bytes":
			s.in, _ = strconv.ParseInt(v, 10, 64)
		case k == "total_net_output_bytes":
			s.out, _ = strconv.ParseInt(v, 10, 64)
		case strings.HasPrefix(k, "cmdstat_"):
			calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			n, _ := strconv.ParseInt(calls, 10, 64)
			s.calls[strings.ToUpper(strings.TrimPrefix(k, "cmdstat_"))] = n
		}
	}
	return s
}

// usage is the work between snapshots a and b, spread over lookups.
func usage(a, b redisSnapshot, lookups int) *redisUsage {
	u := &redisUsage{Lookups: lookups}
	if lookups <= 0 {
		return u
	}
	n := float64(lookups)
	u.CPU = time.Duration((b.cpu - a.cpu) / n * float64(time.Second))
	u.Reads = float64(b.reads-a.reads) / n
	u.MainCPU = time.Duration((b.mainCPU - a.mainCPU) / n * float64(time.Second))
	u.In, u.Out = float64(b.in-a.in)/n, float64(b.out-a.out)/n
	type call struct {
		name string
		n    int64
	}
	var calls []call
	var total int64
	for name, c := range b.calls {
		if strings.HasPrefix(name, "INFO") || strings.HasPrefix(name, "CONFIG") {
			continue // the benchmark's own
		}
		if d := c - a.calls[name]; d > 0 {
			calls, total = append(calls, call{name, d}), total+d
		}
	}
	u.Commands = float64(total) / n
	slices.SortFunc(calls, func(x, y call) int {
		if x.n != y.n {
			return int(y.n - x.n)
		}
		return strings.Compare(x.name, y.name)
	})
	for i, c := range calls {
		if i == 8 {
			break
		}
		u.Top = append(u.Top, fmt.Sprintf("%s %.2f", c.name, float64(c.n)/n))
	}
	return u
}

// isRedisEmulator tells the servers whose state is in the benchmark's
// Redis: the emulators on Redis, and the bound doing a lookup's writes.
func isRedisEmulator(name string) bool {
	return strings.HasPrefix(name, nameRedis) || name == workRedis.Name()
}

// withRedisUsage wraps measure so that the windows of the emulators on
// Redis also record Redis's work (stats.Redis).
func withRedisUsage(ctx context.Context, redis *redisProc, measure func(*server, time.Duration) (*stats, error)) func(*server, time.Duration) (*stats, error) {
	if redis == nil {
		return measure
	}
	return func(s *server, d time.Duration) (*stats, error) {
		if !isRedisEmulator(s.Name) {
			return measure(s, d)
		}
		before, err := redis.snapshot(ctx)
		if err != nil {
			return nil, err
		}
		st, err := measure(s, d)
		if err != nil {
			return nil, err
		}
		after, err := redis.snapshot(ctx)
		if err != nil {
			return nil, err
		}
		st.Redis = usage(before, after, st.Requests-st.Errors)
		return st, nil
	}
}

// printRedisUsage prints, for each round and emulator on Redis, Redis's
// CPU, commands and reads per lookup, and checks the CPU target on the
// emulator with the shared journal.
func printRedisUsage(w io.Writer, rs []roundResult, servers []*server) {
	var names []string
	for _, s := range servers {
		if isRedisEmulator(s.Name) {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintln(w, "## Redis per lookup")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Redis's own work during each window of the lookup rounds above, divided by the lookups answered: CPU time (`INFO cpu`, used_cpu_user + used_cpu_sys of the whole process, and of its main thread), commands (`INFO commandstats`, a script's and a MULTI's own commands counted each) and reads of client sockets (`INFO stats` total_reads_processed: a pipeline that arrives at once is one read, these are the round trips as Redis sees them), bytes received and sent (total_net_input_bytes, total_net_output_bytes). Both emulators on Redis share the one redis-server; the other's background work in the window (its journal's last batch, the callback poller) counts too.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Round | Server | lookups | Redis CPU per lookup | of it the main thread | commands per lookup | reads per lookup | bytes in / out per lookup | commands with most calls, per lookup |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---|")
	cpus := map[string][]time.Duration{}
	for i, r := range rs {
		for _, name := range names {
			u := r[name].Redis
			if u == nil {
				continue
			}
			cpus[name] = append(cpus[name], u.CPU)
			fmt.Fprintf(w, "| %d | %s | %d | %.1f µs | %.1f µs | %.2f | %.2f | %.0f / %.0f | %s |\n", i+1, name, u.Lookups,
				float64(u.CPU)/float64(time.Microsecond), float64(u.MainCPU)/float64(time.Microsecond), u.Commands, u.Reads, u.In, u.Out, strings.Join(u.Top, ", "))
		}
	}
	fmt.Fprintln(w)
	for _, name := range names {
		if len(cpus[name]) == 0 {
			continue
		}
		m := median(cpus[name])
		line := fmt.Sprintf("%s: Redis CPU per lookup, median of rounds **%.1f µs**", capitalize(name), float64(m)/float64(time.Microsecond))
		if name == nameRedis {
			line += fmt.Sprintf(". Target <= %s: %s", fmtDur(targetRedisCPU), verdict(m <= targetRedisCPU))
			if b := cpus[workRedis.Name()]; len(b) > 0 {
				line += fmt.Sprintf(" (%s, the lookup's two writes alone on this Redis: %.1f µs)", workRedis.Name(), float64(median(b))/float64(time.Microsecond))
			}
		}
		fmt.Fprintln(w, line+".")
	}
	fmt.Fprintln(w)
}

// printTail prints each emulator's p99 over the floor's p99 in every
// round; the target holds only if it holds in every round.
func printTail(w io.Writer, rs []roundResult, servers []*server) {
	fmt.Fprintf(w, "Tail: p99 over the floor's p99 in the same round (target <= %.0fx in every round):\n\n", targetTail)
	for _, s := range servers {
		if s.Name == nameFloor || s.Peer || s.Bound {
			continue
		}
		strs := make([]string, len(rs))
		worst := 0.0
		for i, r := range rs {
			x := float64(r[s.Name].P99) / float64(r[nameFloor].P99)
			worst = max(worst, x)
			strs[i] = fmt.Sprintf("%.2f", x)
		}
		fmt.Fprintf(w, "- %s: %s; worst %.2f: %s.\n", s.Name, strings.Join(strs, ", "), worst, verdict(worst <= targetTail))
	}
	fmt.Fprintln(w)
}
