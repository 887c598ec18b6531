//go:build full

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// openPTY opens a pseudo-terminal: its master, which the test types
// into and reads from, and its slave, the terminal of the program.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("the pseudo-terminal's number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// TestExecInATerminal runs exec as a person does, in the foreground of a
// terminal: the command reads the terminal (a command of a group in the
// background would be stopped by SIGTTIN instead), and Ctrl-C typed on
// it reaches the command once, whose exit status exec returns.
func TestExecInATerminal(t *testing.T) {
	t.Parallel()
	bin := sandboxBinary(t)
	sh := testkit.Need(t, "sh", "dash")
	master, slave := openPTY(t)
	// The trap is set before the line is read: once the terminal shows
	// the line, a Ctrl-C finds it.
	script := `trap 'echo "trapped:"; exit 9' INT; read line; echo "got:$line"; while :; do sleep 0.1; done`
	cmd := exec.Command(bin, "exec", "--", sh, "-c", script)
	cmd.Env = processEnv()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	// A session of its own, whose controlling terminal is the pty: exec
	// leads its foreground group, as in a shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	var out testkit.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	// waitOutput waits for the terminal to show want; the last bytes may
	// reach it after exec has ended.
	waitOutput := func(want string) {
		t.Helper()
		if !testkit.Within(testkit.Patience, func() bool { return strings.Contains(out.String(), want) }) {
			select {
			case <-exited:
				t.Fatalf("exec ended (%v) and the terminal did not show %q:\n%s", waitErr, want, out.String())
			default:
				_ = cmd.Process.Kill()
				t.Fatalf("the terminal did not show %q within %s:\n%s", want, testkit.Patience, out.String())
			}
		}
	}

	if _, err := master.WriteString("hello\n"); err != nil {
		t.Fatal(err)
	}
	waitOutput("got:hello")
	if _, err := master.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	waitOutput("trapped:")
	select {
	case <-exited:
		if got := exitStatus(waitErr); got != 9 {
			t.Errorf("exec exited %d after Ctrl-C, want 9, the command's status:\n%s", got, out.String())
		}
	case <-time.After(testkit.Patience):
		_ = cmd.Process.Kill()
		t.Fatalf("exec did not end within %s of Ctrl-C:\n%s", testkit.Patience, out.String())
	}
	if n := strings.Count(out.String(), "trapped:"); n != 1 {
		t.Errorf("the command saw Ctrl-C %d times, want once:\n%s", n, out.String())
	}
}
