package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestGCTrace(t *testing.T) {
	var g gcTrace
	// Lines arrive cut anywhere, with other output between them.
	for _, chunk := range []string{
		"gc 5 @0.657s 1%: 0.043+122+0.060 ms clock, 0.086+0/3.9/89+0.12 ms cpu, 12->13->9 MB, 12 MB goal, 0 MB stacks, 0 MB globals, 2 P\ngc 6 @3.3",
		"79s 0%: 1.0+35+0.021 ms clock, 2.0+1.3/15/0+0.042 ms cpu, 72->72->8 MB, 75 MB goal, 0 MB stacks, 0 MB globals, 2 P\n",
		"panic: not a gc line\n",
		"gc 7 @4.958s 0%: 5.9+6+0.1 ms clock, 2.8+0.36/2.0/0+0.50 ms cpu, 72->72->9 MB, 75 MB goal, 0 MB stacks, 0 MB globals, 2 P\n",
	} {
		if n, err := g.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if n := g.count(); n != 3 {
		t.Fatalf("%d collections read, want 3", n)
	}
	w := g.since(1)
	want := &gcWindow{N: 2, STW: 1021*time.Microsecond + 6000*time.Microsecond, MaxSTW: 6 * time.Millisecond, Mark: 41 * time.Millisecond}
	if *w != *want {
		t.Errorf("since(1) = %+v, want %+v", *w, *want)
	}
	if w := g.since(5); w.N != 0 {
		t.Errorf("since(5) = %+v, want none", *w)
	}

	servers := []*server{{Name: nameEmulator, gc: &g}, {Name: nameFloor}}
	rs := []roundResult{{nameEmulator: {P99: 30 * time.Millisecond, GC: w}, nameFloor: {P99: 10 * time.Millisecond}}}
	var b bytes.Buffer
	printGC(&b, rs, servers)
	if row := "| 1 | emulator | 30.00ms | 10.00ms | 2 | 7.02ms | 6.00ms | 41.00ms |"; !strings.Contains(b.String(), row) {
		t.Errorf("output lacks %q:\n%s", row, b.String())
	}
	b.Reset()
	printGC(&b, rs, []*server{{Name: nameFloor}})
	if b.Len() != 0 {
		t.Errorf("printed without a traced server:\n%s", b.String())
	}
}
