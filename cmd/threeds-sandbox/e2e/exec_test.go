//go:build full && unix

package e2e

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// execScript is the command the interrupted exec runs: it notes the
// sandbox's URL, starts a process that ignores SIGINT and SIGTERM and
// notes its pid, then waits; trap says how the shell answers the signal.
const execScript = `%s
(trap '' INT TERM; exec sleep 300) &
echo $! >"$DIR/stubborn"
echo "$THREEDS_SANDBOX_URL" >"$DIR/url"
while :; do sleep 0.1; done
`

// TestExecForwardsSignals interrupts the binary's exec while its command
// runs, as Ctrl-C or a CI job's cancel does: the signal reaches the
// command, exec exits with the command's status (its own exit code, or
// 128 plus the signal's number when the signal ended it), the process
// the command left behind (it ignores both signals) is killed, and the
// sandbox is gone.
func TestExecForwardsSignals(t *testing.T) {
	t.Parallel()
	bin := sandboxBinary(t)
	sh := testkit.Need(t, "sh", "dash")
	cases := []struct {
		name string
		sig  syscall.Signal
		trap string
		want int
	}{
		{"SIGINT, the command traps it", syscall.SIGINT, `trap 'echo trapped; exit 6' INT`, 6},
		{"SIGTERM, the command traps it", syscall.SIGTERM, `trap 'echo trapped; exit 5' TERM`, 5},
		{"SIGINT ends the command", syscall.SIGINT, ``, 128 + int(syscall.SIGINT)},
		{"SIGTERM ends the command", syscall.SIGTERM, ``, 128 + int(syscall.SIGTERM)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.Command(bin, "exec", "--", sh, "-c", fmt.Sprintf(execScript, tc.trap))
			var out testkit.Buffer
			cmd.Env, cmd.Stdout, cmd.Stderr = append(processEnv(), "DIR="+dir), &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			stubborn, base := waitFile(t, dir, "stubborn", done), waitFile(t, dir, "url", done)
			pid, err := strconv.Atoi(stubborn)
			if err != nil {
				t.Fatalf("pid %q: %v", stubborn, err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

			_ = cmd.Process.Signal(tc.sig)
			select {
			case err := <-done:
				if got := exitStatus(err); got != tc.want {
					t.Errorf("exec exited %d after %s, want %d\n%s", got, tc.sig, tc.want, out.String())
				}
			case <-time.After(testkit.Patience):
				_ = cmd.Process.Kill()
				t.Fatalf("exec did not end within %s of %s\n%s", testkit.Patience, tc.sig, out.String())
			}
			if tc.trap != "" && !strings.Contains(out.String(), "trapped") {
				t.Errorf("the command did not see %s:\n%s", tc.sig, out.String())
			}
			// exec ends the leftover with SIGKILL as it returns; the kernel
			// ends the process a moment later.
			if !testkit.Within(testkit.Patience, func() bool { return !alive(pid) }) {
				t.Errorf("the process the command started (pid %d) outlived exec", pid)
			}
			u, err := url.Parse(base)
			if err != nil {
				t.Fatal(err)
			}
			if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
				c.Close()
				t.Errorf("the sandbox still listens at %s", u.Host)
			}
		})
	}
}

// waitFile waits for the file name of dir to hold a line, and returns it.
func waitFile(t *testing.T, dir, name string, done <-chan error) string {
	t.Helper()
	var line string
	testkit.Eventually(t, "the command writes "+name, func() bool {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil && strings.HasSuffix(string(b), "\n") {
			line = strings.TrimSpace(string(b))
			return true
		}
		select {
		case err := <-done:
			t.Fatalf("exec ended (%v) before the command wrote %s", err, name)
		default:
		}
		return false
	})
	return line
}

// alive tells whether process pid exists and is not a zombie waiting for
// a parent to reap it.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}
