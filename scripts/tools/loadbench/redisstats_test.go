package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRedisUsage(t *testing.T) {
	before := parseRedisInfo("# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.000000\r\nused_cpu_sys_main_thread:1.0\r\nused_cpu_user_main_thread:1.0\r\n# Stats\r\ntotal_reads_processed:100\r\ntotal_net_input_bytes:1000\r\ntotal_net_output_bytes:10\r\n" +
		"# Commandstats\r\ncmdstat_set:calls=10,usec=5,usec_per_call=0.5,rejected_calls=0,failed_calls=0\r\ncmdstat_info:calls=3,usec=1\r\n")
	after := parseRedisInfo("used_cpu_sys:1.600000\r\nused_cpu_user:2.100000\r\nused_cpu_sys_main_thread:1.05\r\nused_cpu_user_main_thread:1.1\r\ntotal_reads_processed:150\r\ntotal_net_input_bytes:51000\r\ntotal_net_output_bytes:2010\r\n" +
		"cmdstat_set:calls=210,usec=5\r\ncmdstat_exec:calls=100,usec=5\r\ncmdstat_info:calls=9,usec=1\r\ncmdstat_script|load:calls=1,usec=1\r\n")
	u := usage(before, after, 100)
	tests := []struct {
		name      string
		got, want any
	}{
		{"cpu per lookup", u.CPU.Round(time.Microsecond), 2000 * time.Microsecond},
		{"reads per lookup", u.Reads, 0.5},
		{"main thread per lookup", u.MainCPU.Round(time.Microsecond), 1500 * time.Microsecond},
		{"bytes in per lookup", u.In, 500.0},
		{"bytes out per lookup", u.Out, 20.0},
		{"commands per lookup (INFO left out)", u.Commands, 3.01},
		{"top", strings.Join(u.Top, "; "), "SET 2.00; EXEC 1.00; SCRIPT|LOAD 0.01"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if z := usage(before, after, 0); z.CPU != 0 || z.Commands != 0 {
		t.Errorf("no lookups: %+v, want zeros", z)
	}
}

func TestPrintTailAndRedisUsage(t *testing.T) {
	servers := []*server{{Name: nameEmulator}, {Name: nameRedis}, {Name: nameFloor}}
	rs := []roundResult{
		{nameEmulator: {P99: 3 * time.Millisecond}, nameRedis: {P99: 5 * time.Millisecond, Redis: &redisUsage{Lookups: 10, CPU: 8 * time.Microsecond, Commands: 4, Reads: 0.4}}, nameFloor: {P99: 2 * time.Millisecond}},
		{nameEmulator: {P99: 3 * time.Millisecond}, nameRedis: {P99: 3 * time.Millisecond, Redis: &redisUsage{Lookups: 10, CPU: 12 * time.Microsecond}}, nameFloor: {P99: 2 * time.Millisecond}},
	}
	var b bytes.Buffer
	printTail(&b, rs, servers)
	printRedisUsage(&b, rs, servers)
	out := b.String()
	for _, want := range []string{
		"- emulator: 1.50, 1.50; worst 1.50: met.",
		"- emulator-redis: 2.50, 1.50; worst 2.50: NOT met.",
		"| 1 | emulator-redis | 10 | 8.0 µs | 0.0 µs | 4.00 | 0.40 | 0 / 0 |",
		"median of rounds **10.0 µs**. Target <= 10µs: met.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// The Redis bound's rows, and its median beside the target.
	bound := &server{Name: workRedis.Name(), Bound: true}
	rs[0][bound.Name] = &stats{Redis: &redisUsage{Lookups: 20, CPU: 14 * time.Microsecond, Commands: 2}}
	rs[1][bound.Name] = &stats{Redis: &redisUsage{Lookups: 20, CPU: 16 * time.Microsecond, Commands: 2}}
	b.Reset()
	printRedisUsage(&b, rs, append(servers, bound))
	for _, want := range []string{
		"| 2 | floor+decode+redis | 20 | 16.0 µs |",
		"Target <= 10µs: met (floor+decode+redis, the lookup's two writes alone on this Redis: 15.0 µs).",
		"Floor+decode+redis: Redis CPU per lookup, median of rounds **15.0 µs**.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
