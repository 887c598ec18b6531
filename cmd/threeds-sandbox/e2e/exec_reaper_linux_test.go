//go:build full

package e2e

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// reaperScript is the command of TestExecLeavesNothingBehind: it starts a
// process in a session of its own (setsid: out of the command's process
// group, which a signal to the group misses) and one in its group, notes
// their pids and its own, and waits.
const reaperScript = `setsid sh -c 'echo $$ >"$DIR/grandchild.tmp"; mv "$DIR/grandchild.tmp" "$DIR/grandchild"; exec sleep 600' </dev/null >/dev/null 2>&1 &
sleep 600 &
echo $! >"$DIR/child"
echo $$ >"$DIR/command"
wait
`

// TestExecLeavesNothingBehind: whether exec is killed with SIGKILL (it
// can end nothing itself then) or stopped with SIGTERM, the command, its
// child and a descendant that moved to a session of its own (setsid) are
// all gone soon after; none is left running, adopted by PID 1.
func TestExecLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	bin := sandboxBinary(t)
	sh := testkit.Need(t, "sh", "dash")
	testkit.Need(t, "setsid", "util-linux")
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.Command(bin, "exec", "--", sh, "-c", reaperScript)
			var out testkit.Buffer
			cmd.Env, cmd.Stdout, cmd.Stderr = append(processEnv(), "DIR="+dir), &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			pids := map[string]int{}
			for _, name := range []string{"grandchild", "child", "command"} {
				pid, err := strconv.Atoi(waitFile(t, dir, name, done))
				if err != nil {
					t.Fatal(err)
				}
				pids[name] = pid
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			_ = cmd.Process.Signal(sig)
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("exec did not end within 30s of %s\n%s", sig, out.String())
			}
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for deadline := time.Now().Add(30 * time.Second); ; <-tick.C {
				var left []string
				for name, pid := range pids {
					if alive(pid) {
						left = append(left, name+" "+strconv.Itoa(pid))
					}
				}
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("30s after %s of exec, still running: %v\n%s", sig, left, out.String())
				}
			}
		})
	}
}
