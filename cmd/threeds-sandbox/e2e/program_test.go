//go:build full

package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// testToken is the bearer token of the tests (any token passes when
// --tokens is not set).
const testToken = "e2e-tests"

// Fixed challenge state keys: replicas that share a store share them.
const (
	testHashKey  = "6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8"
	testBlockKey = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
)

// program is one process of the binary under test, alone or one of
// several replicas: a test can signal it, kill it, read its output.
type program struct {
	name string
	bin  string
	args []string
	// URL reaches this replica directly, not through the balancer.
	URL  string
	Addr string

	out  *testkit.Buffer
	cmd  *exec.Cmd
	done chan struct{}
	err  error // what Wait returned, once done is closed
}

// processEnv is the environment of a process: the test's, without any
// THREEDS_* variable, so only the flags configure it.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "THREEDS_") {
			env = append(env, kv)
		}
	}
	return env
}

// start runs the replica and waits until its /readyz answers 200.
func (r *program) start(t *testing.T) {
	t.Helper()
	r.out = &testkit.Buffer{}
	r.cmd = exec.Command(r.bin, r.args...)
	r.cmd.Env = processEnv()
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", r.name, err)
	}
	r.done = make(chan struct{})
	cmd, done := r.cmd, r.done
	go func() {
		r.err = cmd.Wait()
		close(done)
	}()
	if err := waitReady(r.URL, testkit.Patience, done); err != nil {
		t.Fatalf("%s: %v\n%s", r.name, err, r.out)
	}
}

// waitReady polls base/readyz until it answers 200, the process ends
// (done is closed) or the time is up.
func waitReady(base string, within time.Duration, done <-chan struct{}) error {
	client := &http.Client{Timeout: 10 * time.Second}
	var last error
	ended := false
	ready := testkit.Within(within, func() bool {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		last = err
		select {
		case <-done:
			ended = true
			return true
		default:
			return false
		}
	})
	switch {
	case ended:
		return errors.New("the process ended before it was ready")
	case !ready:
		return fmt.Errorf("/readyz not 200 within %s (last: %v)", within, last)
	}
	return nil
}

// running tells whether the process has not ended.
func (r *program) running() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// signal sends sig and waits up to within for the process to end.
func (r *program) signal(sig syscall.Signal, within time.Duration) error {
	_ = r.cmd.Process.Signal(sig)
	select {
	case <-r.done:
		return r.err
	case <-time.After(within):
		_ = r.cmd.Process.Kill()
		<-r.done
		return fmt.Errorf("%s did not end within %s of %v", r.name, within, sig)
	}
}

// tail is the last n lines of the replica's output.
func (r *program) tail(n int) string {
	lines := strings.Split(r.out.String(), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("(%d earlier lines left out)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// startProgram starts the binary with args on a free loopback port and
// the memory store unless args say otherwise, without a drain delay
// unless args set one, and waits until /readyz answers. URL is its public
// URL (localhost, so that a merchant on 127.0.0.1 is another site). At
// cleanup it sends SIGTERM and checks that the program exits 0.
func startProgram(t *testing.T, args ...string) *program {
	t.Helper()
	return startBinary(t, sandboxBinary(t), args...)
}

// startBinary is startProgram with the binary bin: the replicas run
// replicaBinary.
func startBinary(t *testing.T, bin string, args ...string) *program {
	t.Helper()
	port := testkit.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	full := append([]string{"--addr", addr}, args...)
	if !slices.Contains(args, "--drain-delay") {
		full = append(full, "--drain-delay", "0")
	}
	p := &program{name: "sandbox", bin: bin, args: full, Addr: addr, URL: "http://" + addr}
	p.start(t)
	p.URL = fmt.Sprintf("http://localhost:%d", port)
	t.Cleanup(func() {
		if p.running() {
			if err := p.signal(syscall.SIGTERM, testkit.Patience); err != nil {
				t.Errorf("%s after SIGTERM: %v, want exit 0", p.name, err)
			}
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", p.name, p.tail(80))
		}
	})
	return p
}

// startDefault starts the binary with its defaults and extra flags.
func startDefault(t *testing.T, args ...string) *program {
	t.Helper()
	return startProgram(t, args...)
}

// replicaStoreTimeout bounds each call of a replica to its Redis: far
// beyond what a call takes on a busy machine, so that no answer of a
// test's replica is a 503 of a slow machine. A call to a Redis that is
// down fails after it (the client dials again until then).
const replicaStoreTimeout = "5s"

// startReplica starts the binary with its state in the Redis of srv.
func startReplica(t *testing.T, srv *testkit.Redis, args ...string) *program {
	t.Helper()
	return startBinary(t, replicaBinary(t), append([]string{"--store", srv.URL,
		"--state-hash-key", testHashKey, "--state-block-key", testBlockKey, "--store-timeout", replicaStoreTimeout}, args...)...)
}

// runProgram runs the binary with args to its end and returns its exit
// code and output: for the start-ups that must fail.
func runProgram(t *testing.T, within time.Duration, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(sandboxBinary(t), args...)
	cmd.Env = processEnv()
	var out testkit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), out.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String()
	case <-time.After(within):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not end within %s:\n%s", args, within, out.String())
		return 0, ""
	}
}

// lookup sends a lookup to the program with the tests' token.
func (p *program) lookup(t *testing.T, body map[string]any) testkit.Response {
	t.Helper()
	return testkit.Lookup(t, p.URL, testToken, body)
}

// enquiry asks the program for transaction id with the tests' token.
func (p *program) enquiry(t *testing.T, id string) testkit.Response {
	t.Helper()
	return testkit.Enquiry(t, p.URL, testToken, id)
}

// challengeCard is the default Visa card whose lookup asks for a challenge
// (OTP 1234 passes, 0000 fails).
const challengeCard = "4000000000009102"

// stop ends the program with SIGTERM, as an orchestrator does, and returns
// what its exit says: nil for exit 0.
func (p *program) stop() error {
	if !p.running() {
		return p.err
	}
	return p.signal(syscall.SIGTERM, testkit.Patience)
}
