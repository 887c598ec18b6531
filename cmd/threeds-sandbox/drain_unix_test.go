//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestSecondSignalSkipsTheDrain: a SIGTERM while the program drains ends
// the drain at once. The test sends a real SIGTERM to its own process,
// which every listener of the process gets: it is not parallel (go test
// runs it while no parallel test runs), so that no other test's program
// drains then and no exec passes the signal on to its command.
func TestSecondSignalSkipsTheDrain(t *testing.T) {
	p := startProgram(t, map[string]string{"THREEDS_DRAIN_DELAY": "10m"}, "--addr", "127.0.0.1:0")
	p.cancel() // the first signal
	// The program listens for the second signal before /readyz says 503.
	waitNotReady(t, p)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.stop(); err != nil { // p.stop gives up after 20s, far less than the 10m drain
		t.Fatalf("run after the second signal = %v, want nil", err)
	}
	if want := `msg="second signal: skipping the rest of the drain" signal=terminated`; !strings.Contains(p.stdout.String(), want) {
		t.Errorf("the log lacks %q:\n%s", want, p.stdout)
	}
}
