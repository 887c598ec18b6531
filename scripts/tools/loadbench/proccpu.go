package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// processCPU reads the CPU time (user plus system) process pid has used,
// from /proc/PID/stat; false where there is no /proc.
func processCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a
// /proc/PID/stat line; the command name (field 2) may hold spaces, so
// fields are counted after its closing parenthesis.
func parseStatCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(user+sys) * time.Second / clockTicks, true
}

// withProcessCPU wraps measure so that the windows of a server started as
// a process of its own also record its CPU time per request (stats.CPU);
// not a peer's, whose process may only start the one that serves.
func withProcessCPU(measure func(*server, time.Duration) (*stats, error)) func(*server, time.Duration) (*stats, error) {
	return func(s *server, d time.Duration) (*stats, error) {
		if s.Peer {
			return measure(s, d)
		}
		before, ok := processCPU(s.pid)
		st, err := measure(s, d)
		if err != nil || !ok {
			return st, err
		}
		after, ok := processCPU(s.pid)
		if ok && st.Requests > 0 {
			st.CPU = (after - before) / time.Duration(st.Requests)
		}
		return st, nil
	}
}

// printProcessCPU prints each server's own CPU time per request in every
// round, and the requests one core of it would answer at that cost.
func printProcessCPU(w io.Writer, rs []roundResult, servers []*server) {
	var rows []string
	for _, s := range servers {
		var cpus []time.Duration
		strs := make([]string, 0, len(rs))
		for _, r := range rs {
			if c := r[s.Name].CPU; c > 0 {
				cpus = append(cpus, c)
				strs = append(strs, fmt.Sprintf("%.0f", float64(c)/float64(time.Microsecond)))
			}
		}
		if len(cpus) == 0 {
			continue
		}
		m := median(cpus)
		rows = append(rows, fmt.Sprintf("| %s | %s | **%.0f µs** | %.0f |", s.Name, strings.Join(strs, ", "), float64(m)/float64(time.Microsecond), float64(time.Second)/float64(m)))
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "Each server's own CPU time per request in the lookup rounds (utime + stime of /proc/PID/stat around the window; the load generator and Redis not included), and the requests per second one core would answer at that cost:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| Server | µs per request, per round | median | requests/s per core |")
	fmt.Fprintln(w, "|---|---|---:|---:|")
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
	fmt.Fprintln(w)
}
