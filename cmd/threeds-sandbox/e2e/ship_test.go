//go:build full

package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// repoRoot is the root of the repository the tests run in.
const repoRoot = "../../.."

// modulePath is the module path the repository's go.mod declares.
func modulePath(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("go.mod declares no module")
	}
	return string(m[1])
}

// process is a program a test started in a process group of its own.
type process struct {
	cmd  *exec.Cmd
	out  *testkit.Buffer
	done chan struct{}
	err  error // what Wait returned, once done is closed
}

// startProcess starts cmd with its output collected; at the end of the
// test a process still running is killed with its whole group, and its
// output is shown if the test failed.
func startProcess(t *testing.T, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{cmd: cmd, out: &testkit.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
		if t.Failed() {
			t.Logf("output of %s:\n%s", strings.Join(cmd.Args, " "), p.out)
		}
	})
	return p
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to within for the process to end and returns what Wait
// returned; a process still running then is killed with its group.
func (p *process) wait(within time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(within):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("still running after %s: killed", within)
	}
}

// waitProcessReady polls GET {root}/readyz until it answers 200, for at most
// within; it fails the test if the process ends first or time runs out.
func waitProcessReady(t *testing.T, p *process, root string, within time.Duration) {
	t.Helper()
	var last error
	ready := testkit.Within(within, func() bool {
		resp, err := http.Get(root + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		last = err
		if p.exited() {
			t.Fatalf("%s ended before /readyz answered: %v\n%s", strings.Join(p.cmd.Args, " "), p.err, p.out)
		}
		return false
	})
	if !ready {
		t.Fatalf("%s: /readyz did not answer 200 within %s (last: %v)\n%s", root, within, last, p.out)
	}
}

// checkLookupAndEnquiry sends the frictionless sample lookup to the
// sandbox at base and asks the enquiry for its transaction by the
// transaction id and by the reference.
func checkLookupAndEnquiry(t *testing.T, base string) {
	t.Helper()
	got := testkit.Call(t, http.MethodPost, base+"/authentication/brw", testToken, examples.Lookup())
	if got.Status != http.StatusOK || got.Str("status") != "Y" {
		t.Fatalf("lookup: HTTP %d %s, want 200 and status Y", got.Status, got.Raw)
	}
	id := got.Str("threeDsServerTransId")
	for _, q := range []string{`{"threeDsServerTransId":"` + id + `"}`, `{"externalReferenceId":"` + examples.FrictionlessReference + `"}`} {
		e := testkit.Call(t, http.MethodPost, base+"/enquiry/", testToken, q)
		if e.Status != http.StatusOK || e.Str("transactionStatus") != "Y" || e.Str("threeDsServerTransId") != id {
			t.Errorf("enquiry %s: HTTP %d %s, want the lookup's transaction, Y", q, e.Status, e.Raw)
		}
	}
}

// runQuickStart runs the command blocks of the README's Quick start, but
// the first (which starts the sandbox), against the sandbox at base, in
// an empty directory: a user without a checkout. Each block's output
// must match the example the README shows after it.
func runQuickStart(t *testing.T, base string) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "jq"} {
		testkit.Need(t, tool, tool)
	}
	blocks := testkit.Fences(t, filepath.Join(repoRoot, "README.md"), "## Quick start")
	if len(blocks) < 2 {
		t.Fatalf("the README's Quick start has %d blocks", len(blocks))
	}
	steps := testkit.RunShell(t, blocks[1:], t.TempDir(), append(os.Environ(), "BASE="+base))
	if len(steps) < 3 {
		t.Fatalf("the Quick start ran %d command blocks, want the lookup, the enquiry and the challenge", len(steps))
	}
	for i, st := range steps {
		t.Run(fmt.Sprintf("quick start block %d", i+2), func(t *testing.T) { st.CheckOutput(t, testkit.StableAnswerKeys) })
	}
}

// exitStatus is the exit code of a finished command's error: 0 for nil,
// -1 when it did not exit normally.
func exitStatus(err error) int {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	return -1
}
