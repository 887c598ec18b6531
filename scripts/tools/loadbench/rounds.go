package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// roundStats are the medians over rounds of one server's figures.
type roundStats struct {
	rps           float64
	p50, p90, p99 time.Duration
	errors        int
}

// medianStats takes the medians of the rounds of the server named name.
func medianStats(rs []roundResult, name string) roundStats {
	var rps []float64
	var p50, p90, p99 []time.Duration
	errs := 0
	for _, r := range rs {
		s := r[name]
		rps, p50, p90, p99 = append(rps, s.RPS()), append(p50, s.P50), append(p90, s.P90), append(p99, s.P99)
		errs += s.Errors
	}
	return roundStats{median(rps), median(p50), median(p90), median(p99), errs}
}

// roundResult is one round: the stats of each server, by name.
type roundResult map[string]*stats

// Ratio is the throughput of the server named name over the floor's in
// the round.
func (r roundResult) Ratio(name string) float64 { return r[name].RPS() / r[nameFloor].RPS() }

// rounds measures each server for d, taking turns, n times. The order
// rotates each round so no server always runs on a warmer machine.
func rounds(ctx context.Context, n int, servers []*server, d time.Duration, measure func(*server, time.Duration) (*stats, error), progress func(string, ...any)) ([]roundResult, error) {
	out := make([]roundResult, n)
	for r := range n {
		out[r] = roundResult{}
		for i := range servers {
			s := servers[(i+r)%len(servers)]
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			st, err := measure(s, d)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", r+1, s.Name, err)
			}
			progress("round %d %-14s %8.0f req/s  p50 %-8s p99 %-8s errors %d", r+1, s.Name, st.RPS(), fmtDur(st.P50), fmtDur(st.P99), st.Errors)
			out[r][s.Name] = st
		}
	}
	return out, nil
}

// median returns the median of v (the mean of the middle two for an even
// count).
func median[T ~int64 | ~float64](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printRounds prints the table of rounds, the medians and the throughput
// ratio of each emulator to the floor. Closed-loop latency at saturation
// is mostly queueing (connections / throughput): the latency target is
// checked at fixed rates.
func printRounds(w io.Writer, rs []roundResult, servers []*server) {
	fmt.Fprintln(w, "| Round | Server | req/s | p50 | p90 | p99 | errors |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|")
	for i, r := range rs {
		for _, sv := range servers {
			s := r[sv.Name]
			fmt.Fprintf(w, "| %d | %s | %.0f | %s | %s | %s | %d |\n", i+1, sv.Name, s.RPS(), fmtDur(s.P50), fmtDur(s.P90), fmtDur(s.P99), s.Errors)
		}
	}
	for _, sv := range servers {
		m := medianStats(rs, sv.Name)
		fmt.Fprintf(w, "| **median** | **%s** | **%.0f** | **%s** | **%s** | **%s** | %d |\n", sv.Name, m.rps, fmtDur(m.p50), fmtDur(m.p90), fmtDur(m.p99), m.errors)
	}
	fmt.Fprintln(w)
	for _, sv := range servers[:len(servers)-1] {
		if sv.Peer || sv.Bound || sv.Without {
			continue // printPeers, printBounds
		}
		ratios := make([]float64, len(rs))
		strs := make([]string, len(rs))
		for i, r := range rs {
			ratios[i] = r.Ratio(sv.Name)
			strs[i] = fmt.Sprintf("%.2f", ratios[i])
		}
		target := ratioTargets[sv.Name]
		fmt.Fprintf(w, "%s/floor throughput ratio: **%.3f** (median of rounds: %s). Target >= %.2f: %s.\n",
			capitalize(sv.Name), median(ratios), strings.Join(strs, ", "), target, verdict(median(ratios) >= target))
	}
	fmt.Fprintln(w)
}

// capitalize upper-cases the first letter of a server's name.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// printKinds prints the figures of the server named name per request
// kind (medians of the rounds).
func printKinds(w io.Writer, rs []roundResult, name string) {
	fmt.Fprintf(w, "%s, per request kind (medians of the rounds):\n", capitalize(name))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Kind | req/s | p50 | p99 | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, kind := range []string{"lookup", "enquiry", "challenge lookup", "headless challenge"} {
		var rps []float64
		var p50, p99 []time.Duration
		errs := 0
		for _, r := range rs {
			if k := r[name].ByKind[kind]; k != nil {
				rps, p50, p99 = append(rps, k.RPS()), append(p50, k.P50), append(p99, k.P99)
				errs += k.Errors
			}
		}
		if len(rps) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %d |\n", kind, median(rps), fmtDur(median(p50)), fmtDur(median(p99)), errs)
	}
	fmt.Fprintln(w)
}

// printBounds prints, for each bound of the lookup rounds rs (the floor
// doing part of a lookup's work, -bounds), its throughput, its ratio to
// the floor and each emulator's ratio to it. A bound's ratio to the floor
// is the most an emulator doing that work, and more, could reach.
func printBounds(w io.Writer, rs []roundResult, servers []*server) {
	bounds := slices.DeleteFunc(slices.Clone(servers), func(s *server) bool { return !s.Bound })
	if len(bounds) == 0 {
		return
	}
	fmt.Fprintf(w, "## Bounds\n\nThe bounds took part in the lookup rounds above, in the same turns: the floor's process answering the same canned answer after doing one part of a lookup's work, and nothing else. `%s` checks the body with `json.Valid`, the least any JSON API does with a body; `%s` decodes it with `json.Unmarshal` into an `any` (encoding/json's generic decoding, no field judged); `%s` decodes and validates it with the emulator's own `wire.DecodeLookup` (every field's rules, all problems collected), the first step of a lookup; with Redis, `%s` does that and then a lookup's two writes to the benchmark's Redis (the transaction's `SET PX` of %d bytes and its reference's, pipelined by a client set up as the emulator's store sets up its own, ids cycling through %d), the least a server storing each lookup in Redis does. A bound's ratio to the floor is the most any server doing that work, and more, can reach on this machine. Ratios are medians of the rounds' ratios; per round in brackets.\n\n",
		workJSON.Name(), workStd.Name(), workWire.Name(), workRedis.Name(), redisFloorValue, redisFloorKeys)
	printBeside(w, "Bound", rs, bounds, emulators(servers))
}
