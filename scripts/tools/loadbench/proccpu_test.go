package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name string
		stat string
		want time.Duration
		ok   bool
	}{
		{"plain", "4242 (threeds-sandbox) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 8 0 100 0 0", 3250 * time.Millisecond, true},
		{"name with spaces and parentheses", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 1 0 0", 30 * time.Millisecond, true},
		{"cut short", "7 (x) R 1 7", 0, false},
		{"no name", "garbage", 0, false},
		{"not numbers", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 a b 0 0", 0, false},
	}
	for _, tc := range tests {
		got, ok := parseStatCPU(tc.stat)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		if _, ok := processCPU(os.Getpid()); !ok {
			t.Error("processCPU of this process: not read")
		}
	}
	if _, ok := processCPU(0); ok {
		t.Error("processCPU(0): read, want false")
	}
}

func TestPrintProcessCPU(t *testing.T) {
	servers := []*server{{Name: nameEmulator}, {Name: "peer", Peer: true}, {Name: nameFloor}}
	rs := []roundResult{
		{nameEmulator: {CPU: 50 * time.Microsecond}, "peer": {}, nameFloor: {CPU: 20 * time.Microsecond}},
		{nameEmulator: {CPU: 40 * time.Microsecond}, "peer": {}, nameFloor: {CPU: 30 * time.Microsecond}},
	}
	var b bytes.Buffer
	printProcessCPU(&b, rs, servers)
	out := b.String()
	for _, want := range []string{"| emulator | 50, 40 | **45 µs** | 22222 |", "| floor | 20, 30 | **25 µs** | 40000 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| peer |") {
		t.Errorf("a server without CPU figures is printed:\n%s", out)
	}
}
