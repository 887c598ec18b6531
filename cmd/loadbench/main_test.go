package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		target string
		ok     bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://localhost:8080/3ds", true},
		{"http://[::1]:8080", true},
		{"http://127.0.0.2:8080", true},
		{"http://10.0.0.5:8080", false},
		{"https://sandbox.example.com", false},
		{"127.0.0.1:8080", false}, // no scheme
		{"ftp://127.0.0.1", false},
	}
	for _, tt := range tests {
		err := checkLoopback(tt.target)
		if got := err == nil; got != tt.ok {
			t.Errorf("checkLoopback(%q): got error %v, want accepted %v", tt.target, err, tt.ok)
		}
	}
}

func TestParseOptionsRefuses(t *testing.T) {
	tests := [][]string{
		{"-target", "http://192.0.2.1:8080"},
		{"-concurrency", "0"},
		{"-rounds", "0"},
		{"-duration", "10ms"},
		{"extra"},
	}
	for _, args := range tests {
		if _, err := parseOptions(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseOptions(%q): got no error, want one", args)
		}
	}
}

const wrkReport = `Running 5s test @ http://127.0.0.1:40000/authentication/brw
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.42ms    7.61ms  59.41ms   92.84%
    Req/Sec     7.10k   291.55     8.29k    70.00%
  71234 requests in 5.01s, 36.58MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  14218.36
Transfer/sec:      7.30MB
loadbench-p50 1884
loadbench-p90 9329
loadbench-p99 48058
`

func TestParseWRK(t *testing.T) {
	s, err := parseWRK(wrkReport)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Requests, 71234; got != want {
		t.Errorf("Requests: got %d, want %d", got, want)
	}
	if got, want := s.Errors, 7; got != want {
		t.Errorf("Errors: got %d, want %d", got, want)
	}
	if got, want := s.Elapsed, 5010*time.Millisecond; got != want {
		t.Errorf("Elapsed: got %s, want %s", got, want)
	}
	if got, want := []time.Duration{s.P50, s.P90, s.P99}, []time.Duration{1884 * time.Microsecond, 9329 * time.Microsecond, 48058 * time.Microsecond}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("percentiles: got %v, want %v", got, want)
	}
	if _, err := parseWRK("unable to connect to 127.0.0.1:1 Connection refused"); err == nil {
		t.Error("parseWRK of a failed run: got no error, want one")
	}
}

func TestPercentilesAndMedian(t *testing.T) {
	var l []time.Duration
	for i := 100; i >= 1; i-- {
		l = append(l, time.Duration(i)*time.Millisecond)
	}
	p50, p90, p99 := percentiles(l)
	if p50 != 51*time.Millisecond || p90 != 91*time.Millisecond || p99 != 100*time.Millisecond {
		t.Errorf("percentiles: got %s %s %s, want 51ms 91ms 100ms", p50, p90, p99)
	}
	if got := median([]float64{0.5, 0.7, 0.6}); got != 0.6 {
		t.Errorf("median of 3: got %v, want 0.6", got)
	}
	if got := median([]float64{1, 2, 3, 4}); got != 2.5 {
		t.Errorf("median of 4: got %v, want 2.5", got)
	}
}

// TestRunShort runs a tiny lookup and mixed benchmark against the
// in-process emulator and floor, and checks the report's shape.
func TestRunShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers and drives them for 2s")
	}
	var out, progress bytes.Buffer
	args := []string{"-duration", "2s", "-rounds", "1", "-concurrency", "4", "-memory", "2000", "-memory-bound", "500", "-coldstart", "0",
		"-body", "../../emulator/wire/testdata/lookup.json"}
	if err := run(context.Background(), args, &out, &progress); err != nil {
		t.Fatalf("run: %v\n%s", err, progress.String())
	}
	report := out.String()
	for _, want := range []string{
		"## Lookup: emulator vs floor", "Emulator/floor throughput ratio", "## Mixed traffic",
		"| headless challenge |", "## Memory per stored transaction", "| 500 | 500 |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "| 1 | emulator | 0 |") {
		t.Errorf("the emulator answered nothing:\n%s", report)
	}
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "| 1 |") && !strings.HasSuffix(line, "| 0 |") {
			t.Errorf("errors in round: %s", line)
		}
	}
}
