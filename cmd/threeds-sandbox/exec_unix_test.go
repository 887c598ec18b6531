//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestExecStopsTheCommandWhenCancelled: when exec's context ends without
// a signal (a caller's cancel), the command gets SIGTERM and exec exits
// with the status the command chose.
func TestExecStopsTheCommandWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	marker := filepath.Join(t.TempDir(), "waiting")
	done := make(chan execResult, 1)
	go func() { done <- runExec(ctx, t, map[string]string{helperVar: "wait", "EXEC_TEST_MARKER": marker}) }()
	var early *execResult // exec returned before the command started
	testkit.Eventually(t, "the command starts", func() bool {
		select {
		case r := <-done:
			early = &r
			return true
		default:
		}
		_, err := os.Stat(marker)
		return err == nil
	})
	if early != nil {
		t.Fatalf("exec returned before the command started: exit code %d\nstdout: %s\nstderr: %s", early.code, early.stdout, early.stderr)
	}
	cancel()
	select {
	case r := <-done:
		if r.code != 42 || !strings.Contains(r.stdout, "waiting") {
			t.Errorf("exit code %d, want 42 (the command's answer to SIGTERM)\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
	case <-time.After(testkit.Patience):
		t.Fatalf("exec did not return within %s of the cancel", testkit.Patience)
	}
}
