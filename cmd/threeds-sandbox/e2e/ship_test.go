package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// checkout is the root of the repository the tests run in.
const checkout = "../../.."

// modulePath is the module path the repository's go.mod declares.
func modulePath(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(checkout, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("go.mod declares no module")
	}
	return string(m[1])
}

// outputBuffer collects a process's output, safe for the process and
// the test.
type outputBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *outputBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *outputBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// process is a program a test started in a process group of its own.
type process struct {
	cmd  *exec.Cmd
	out  *outputBuffer
	done chan struct{}
	err  error // what Wait returned, once done is closed
}

// startProcess starts cmd with its output collected; at the end of the
// test a process still running is killed with its whole group, and its
// output is shown if the test failed.
func startProcess(t *testing.T, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{cmd: cmd, out: &outputBuffer{}, done: make(chan struct{})}
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

// waitReady polls GET {root}/readyz until it answers 200, for at most
// within; it fails the test if the process ends first or time runs out.
func waitReady(t *testing.T, p *process, root string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(root + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if p.exited() {
			t.Fatalf("%s ended before /readyz answered: %v\n%s", strings.Join(p.cmd.Args, " "), p.err, p.out)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: /readyz did not answer 200 within %s (last: %v)\n%s", root, within, err, p.out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// call sends a JSON request with a bearer token and decodes the answer.
func call(t *testing.T, method, url string, body []byte) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer e2e")
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: HTTP %d, not JSON: %s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

// checkLookupAndEnquiry sends the frictionless sample lookup to the
// sandbox at base and asks the enquiry for its transaction by the
// transaction id and by the reference.
func checkLookupAndEnquiry(t *testing.T, base string) {
	t.Helper()
	status, got := call(t, http.MethodPost, base+"/authentication/brw", examples.Lookup())
	if status != http.StatusOK || got["status"] != "Y" {
		t.Fatalf("lookup: HTTP %d %v, want 200 and status Y", status, got)
	}
	id, _ := got["threeDsServerTransId"].(string)
	for _, q := range []string{`{"threeDsServerTransId":"` + id + `"}`, `{"externalReferenceId":"` + examples.FrictionlessReference + `"}`} {
		status, e := call(t, http.MethodPost, base+"/enquiry/", []byte(q))
		if status != http.StatusOK || e["transactionStatus"] != "Y" || e["threeDsServerTransId"] != id {
			t.Errorf("enquiry %s: HTTP %d %v, want the lookup's transaction, Y", q, status, e)
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
	blocks := testkit.Fences(t, filepath.Join(checkout, "README.md"), "## Quick start")
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
