package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// envOf returns a getenv that reads only m, so that the environment of the
// machine running the tests never leaks into the program.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// environOf returns an environ that lists only m, as KEY=value pairs.
func environOf(m map[string]string) func() []string {
	return func() []string {
		out := make([]string, 0, len(m))
		for k, v := range m {
			out = append(out, k+"="+v)
		}
		slices.Sort(out)
		return out
	}
}

// withoutDrain is env with THREEDS_DRAIN_DELAY 0 unless env sets it, so
// that a program the tests stop shuts down at once.
func withoutDrain(env map[string]string) map[string]string {
	out := map[string]string{"THREEDS_DRAIN_DELAY": "0"}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// program is the whole emulator, started in-process by run.
type program struct {
	// URL is the base URL run announced on ready (the public URL).
	URL    string
	stdout *testkit.Buffer
	stderr *testkit.Buffer
	cancel context.CancelFunc
	done   chan error
}

// startProgram runs the program with args and the environment env
// (without a drain delay unless env sets one), waits until it serves, and
// at cleanup stops it and checks that it shut down gracefully (run
// returns nil).
func startProgram(t *testing.T, env map[string]string, args ...string) *program {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &program{stdout: &testkit.Buffer{}, stderr: &testkit.Buffer{}, cancel: cancel, done: make(chan error, 1)}
	ready := make(chan string, 1)
	env = withoutDrain(env)
	go func() { p.done <- run(ctx, args, envOf(env), environOf(env), p.stdout, p.stderr, ready) }()
	select {
	case p.URL = <-ready:
	case err := <-p.done:
		cancel()
		t.Fatalf("run(%q) returned before serving: %v\nstderr: %s", args, err, p.stderr)
	case <-time.After(testkit.Patience):
		cancel()
		t.Fatalf("run(%q) did not serve within %s", args, testkit.Patience)
	}
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Errorf("run(%q) after cancel = %v, want nil (graceful shutdown)", args, err)
		}
		if t.Failed() {
			t.Logf("program output:\n%s%s", p.stdout, p.stderr)
		}
	})
	return p
}

// stop cancels the program's context and returns what run returned. It may
// be called more than once.
func (p *program) stop() error {
	p.cancel()
	select {
	case err, ok := <-p.done:
		if ok {
			close(p.done)
		}
		return err
	case <-time.After(testkit.Patience):
		return fmt.Errorf("run did not return within %s of the cancel", testkit.Patience)
	}
}

// startDefault runs the program on a random port of the loopback
// interface with extra flags.
func startDefault(t *testing.T, args ...string) *program {
	t.Helper()
	return startProgram(t, nil, append([]string{"--addr", "127.0.0.1:0"}, args...)...)
}

// port is the TCP port of the program's URL.
func (p *program) port(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// freePort returns a loopback port that nothing listens on (any more).
func freePort(t *testing.T) string {
	t.Helper()
	return strconv.Itoa(testkit.FreePort(t))
}

// testToken is the bearer token of the tests (any token passes when
// --tokens is not set).
const testToken = "e2e-tests"

// Fixed challenge state keys, as replicas that share a store need.
const (
	testHashKey  = "6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8"
	testBlockKey = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
)

// challengeCard is the default Visa card whose lookup asks for a challenge
// (OTP 1234 passes, 0000 fails).
const challengeCard = "4000000000009102"

func TestRunServesUntilCancelled(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	r := testkit.Call(t, http.MethodGet, p.URL+"/healthz", "", nil)
	if got, want := r.Status, http.StatusOK; got != want {
		t.Fatalf("GET /healthz: HTTP %d, want %d\n%s", got, want, r.Raw)
	}
	if got, want := r.Str("status"), "ok"; got != want {
		t.Errorf("GET /healthz status = %q, want %q", got, want)
	}
	if err := p.stop(); err != nil {
		t.Fatalf("run after cancel = %v, want nil", err)
	}
	if _, err := http.Get(p.URL + "/healthz"); err == nil {
		t.Errorf("GET /healthz after shutdown succeeded, want a refused connection")
	}
	for _, want := range []string{"3-D Secure sandbox serving", "shutting down", "stopped"} {
		if !strings.Contains(p.stdout.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, p.stdout)
		}
	}
}

// TestShutdownDrainsInFlightRequests cancels the program while a lookup of
// a card that answers after 15s is in flight (it holds the one delay
// slot): the lookup still gets its answer and run returns nil.
func TestShutdownDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	p := startProgram(t, map[string]string{"THREEDS_SHUTDOWN_TIMEOUT": "1m"}, "--addr", "127.0.0.1:0", "--max-delayed", "1")
	addSlowScenarios(t, p)
	got := waitInDelay(t, p)
	stopped := make(chan error, 1)
	go func() { stopped <- p.stop() }()
	select {
	case status := <-got:
		if status != http.StatusGatewayTimeout {
			t.Errorf("in-flight lookup: HTTP %d, want %d (0: no answer)", status, http.StatusGatewayTimeout)
		}
	case <-time.After(testkit.Patience):
		t.Fatal("the in-flight lookup got no answer")
	}
	if err := <-stopped; err != nil {
		t.Errorf("run after cancel = %v, want nil", err)
	}
}

func TestFlagsAndEnvironment(t *testing.T) {
	t.Parallel()
	envPort, flagPort := freePort(t), freePort(t)
	healthy := func(port string) error {
		resp, err := http.Get("http://127.0.0.1:" + port + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return nil
	}
	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		check func(t *testing.T, p *program)
	}{{
		name: "env sets the address",
		env:  map[string]string{"THREEDS_ADDR": "127.0.0.1:" + envPort},
		check: func(t *testing.T, p *program) {
			if got, want := p.port(t), envPort; got != want {
				t.Errorf("port = %s, want %s", got, want)
			}
			if err := healthy(envPort); err != nil {
				t.Errorf("/healthz on the env port: %v", err)
			}
		},
	}, {
		name: "flag address wins over env",
		env:  map[string]string{"THREEDS_ADDR": "127.0.0.1:" + envPort},
		args: []string{"--addr", "127.0.0.1:" + flagPort},
		check: func(t *testing.T, p *program) {
			if err := healthy(flagPort); err != nil {
				t.Errorf("/healthz on the flag port: %v", err)
			}
			if err := healthy(envPort); err == nil {
				t.Errorf("/healthz on the env port answered, want nothing listening")
			}
		},
	}, {
		name: "env sets the public URL",
		env:  map[string]string{"THREEDS_PUBLIC_URL": "https://env.example/3ds/"},
		args: []string{"--addr", "127.0.0.1:0"},
		check: func(t *testing.T, p *program) {
			if got, want := p.URL, "https://env.example/3ds"; got != want {
				t.Errorf("announced URL = %q, want %q", got, want)
			}
		},
	}, {
		name: "flag public URL wins over env",
		env:  map[string]string{"THREEDS_PUBLIC_URL": "https://env.example"},
		args: []string{"--addr", "127.0.0.1:0", "--public-url", "https://flag.example"},
		check: func(t *testing.T, p *program) {
			if got, want := p.URL, "https://flag.example"; got != want {
				t.Errorf("announced URL = %q, want %q", got, want)
			}
		},
	}, {
		name: "env sets the base path",
		env:  map[string]string{"THREEDS_BASE_PATH": "/env"},
		args: []string{"--addr", "127.0.0.1:0"},
		check: func(t *testing.T, p *program) {
			if !strings.HasSuffix(p.URL, "/env") {
				t.Errorf("announced URL = %q, want it to end in /env", p.URL)
			}
			root := strings.TrimSuffix(p.URL, "/env")
			for path, want := range map[string]int{"/env/scenarios": 200, "/scenarios": 404} {
				if got := testkit.Call(t, http.MethodGet, root+path, "", nil).Status; got != want {
					t.Errorf("GET %s: HTTP %d, want %d", path, got, want)
				}
			}
		},
	}, {
		name: "flag base path wins over env",
		env:  map[string]string{"THREEDS_BASE_PATH": "/env"},
		args: []string{"--addr", "127.0.0.1:0", "--base-path", "/flag"},
		check: func(t *testing.T, p *program) {
			root := strings.TrimSuffix(p.URL, "/flag")
			for path, want := range map[string]int{"/flag/scenarios": 200, "/env/scenarios": 404} {
				if got := testkit.Call(t, http.MethodGet, root+path, "", nil).Status; got != want {
					t.Errorf("GET %s: HTTP %d, want %d", path, got, want)
				}
			}
		},
	}, {
		name: "env sets the tokens",
		env:  map[string]string{"THREEDS_TOKENS": "alpha, beta"},
		args: []string{"--addr", "127.0.0.1:0"},
		check: func(t *testing.T, p *program) {
			body := map[string]any{"threeDsServerTransId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}
			for token, want := range map[string]int{"alpha": 404, "beta": 404, "gamma": 401} {
				if got := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", token, body).Status; got != want {
					t.Errorf("enquiry with token %s: HTTP %d, want %d", token, got, want)
				}
			}
		},
	}, {
		name: "env sets a duration",
		env:  map[string]string{"THREEDS_FIRST_CREQ_TIMEOUT": "1ms"},
		args: []string{"--addr", "127.0.0.1:0"},
		check: func(t *testing.T, p *program) {
			id := testkit.Lookup(t, p.URL, testToken, testkit.LookupBody(t, challengeCard, nil)).Str("threeDsServerTransId")
			// Let the 1ms timeout pass: a longer sleep changes nothing.
			time.Sleep(20 * time.Millisecond)
			e := testkit.Enquiry(t, p.URL, testToken, id)
			if got, want := e.Str("transactionStatus")+"/"+e.Str("statusReason")+"/"+e.Str("challengeCancel"), "N/14/05"; got != want {
				t.Errorf("enquiry after the first-CReq timeout: status/reason/cancel = %s, want %s", got, want)
			}
		},
	}, {
		name: "flag duration wins over env",
		env:  map[string]string{"THREEDS_FIRST_CREQ_TIMEOUT": "1ms"},
		args: []string{"--addr", "127.0.0.1:0", "--first-creq-timeout", "10m"},
		check: func(t *testing.T, p *program) {
			id := testkit.Lookup(t, p.URL, testToken, testkit.LookupBody(t, challengeCard, nil)).Str("threeDsServerTransId")
			// Long enough for the environment's 1ms timeout to have ended
			// the challenge, had it been taken: a longer sleep changes
			// nothing.
			time.Sleep(20 * time.Millisecond)
			if got, want := testkit.Enquiry(t, p.URL, testToken, id).Str("transactionStatus"), "C"; got != want {
				t.Errorf("enquiry transactionStatus = %q, want %q", got, want)
			}
		},
	}, {
		name: "a flag on the command line stops its env twin from being read",
		env:  map[string]string{"THREEDS_SEED": "not-a-number", "THREEDS_LOG_FORMAT": "yaml"},
		args: []string{"--addr", "127.0.0.1:0", "--seed", "7", "--log-format", "json"},
		check: func(t *testing.T, p *program) {
			line, _, _ := strings.Cut(p.stdout.String(), "\n")
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Errorf("first log line is not JSON (--log-format json): %v\n%s", err, line)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProgram(t, tt.env, tt.args...)
			tt.check(t, p)
		})
	}
}

func TestBadConfigurationIsAClearError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string // substrings of the error
	}{
		{"bad env integer", map[string]string{"THREEDS_SEED": "abc"}, nil, []string{"THREEDS_SEED", `"abc"`}},
		{"bad env duration", map[string]string{"THREEDS_CHALLENGE_TIMEOUT": "soon"}, nil, []string{"THREEDS_CHALLENGE_TIMEOUT", `"soon"`}},
		{"bad env size", map[string]string{"THREEDS_MAX_BODY_BYTES": "64k"}, nil, []string{"THREEDS_MAX_BODY_BYTES", `"64k"`}},
		{"two bad env values at once", map[string]string{"THREEDS_SEED": "x", "THREEDS_STORE_MAX_AGE": "y"}, nil, []string{"THREEDS_SEED", "THREEDS_STORE_MAX_AGE"}},
		{"bad env scenarios mode", map[string]string{"THREEDS_SCENARIOS_MODE": "merge"}, nil, []string{"scenarios-mode", `"merge"`, "extend or replace"}},
		{"bad scenarios mode flag", nil, []string{"--scenarios-mode", "merge"}, []string{"scenarios-mode", `"merge"`, "extend or replace"}},
		{"replace without scenarios", nil, []string{"--scenarios-mode", "replace"}, []string{"--scenarios-mode", `"replace": needs --scenarios`}},
		{"missing scenario file", nil, []string{"--scenarios", "testdata/does-not-exist.yaml"}, []string{"[scenarios]", "does-not-exist.yaml"}},
		{"bad log level", map[string]string{"THREEDS_LOG_LEVEL": "loud"}, nil, []string{"log-level", `"loud"`}},
		{"bad log format", nil, []string{"--log-format", "yaml"}, []string{"log-format", `"yaml"`}},
		{"state key not hex", map[string]string{"THREEDS_STATE_HASH_KEY": "zz"}, nil, []string{"state-hash-key", "not hex"}},
		{"bad flag value", nil, []string{"--seed", "abc"}, []string{"seed", "abc"}},
		{"unknown flag", nil, []string{"--colour", "blue"}, []string{"colour"}},
		{"address in use", nil, nil, []string{"[addr]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--addr", "127.0.0.1:0"}, tt.args...)
			if tt.name == "address in use" {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				args = []string{"--addr", ln.Addr().String()}
			}
			ctx, cancel := context.WithTimeout(context.Background(), testkit.Patience)
			defer cancel()
			ready := make(chan string, 1)
			err := run(ctx, args, envOf(tt.env), environOf(tt.env), io.Discard, io.Discard, ready)
			if err == nil {
				t.Fatalf("run(%q) with env %v = nil, want an error", args, tt.env)
			}
			if got, want := exitCode(err), 2; tt.name == "address in use" && got != 1 || tt.name != "address in use" && got != want {
				t.Errorf("run(%q) with env %v: exit code %d, want 2 (1 for a port in use)", args, tt.env, got)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if len(ready) > 0 {
				t.Errorf("run announced %q although its configuration is bad", <-ready)
			}
		})
	}
}

func TestHealthcheck(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	port := p.port(t)
	closed := freePort(t)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
	}{
		{"running emulator", []string{"--addr", "127.0.0.1:" + port}, nil, 0},
		{"empty host means loopback", []string{"--addr", ":" + port}, nil, 0},
		{"address from the environment", nil, map[string]string{"THREEDS_ADDR": "127.0.0.1:" + port}, 0},
		{"closed port", []string{"--addr", "127.0.0.1:" + closed}, nil, 1},
		{"not an address", []string{"--addr", "nowhere"}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr testkit.Buffer
			err := run(context.Background(), append([]string{"healthcheck"}, tt.args...), envOf(tt.env), environOf(tt.env), io.Discard, &stderr, nil)
			if got := exitCode(err); got != tt.code {
				t.Errorf("healthcheck %q: exit code %d (%v), want %d", tt.args, got, err, tt.code)
			}
			if tt.code == 1 && !strings.HasPrefix(stderr.String(), "threeds-sandbox: healthcheck: ") {
				t.Errorf("stderr %q: want it to start with threeds-sandbox: healthcheck: ", stderr.String())
			}
		})
	}
}

// TestConfigurationFlags checks that the flag tables of
// docs/configuration.md name every flag of the program with its
// environment twin and default, and nothing else.
func TestConfigurationFlags(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct{ env, def string }
	rows := map[string]row{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`--") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`-")
		if _, dup := rows[name]; dup {
			t.Errorf("docs/configuration.md documents --%s twice", name)
		}
		rows[name] = row{env: strings.Trim(strings.TrimSpace(cells[2]), "`"), def: strings.TrimSpace(cells[3])}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var c sandbox.Config
	fs := sandbox.FlagSet(&c, io.Discard)
	fs.VisitAll(func(fl *flag.Flag) {
		r, ok := rows[fl.Name]
		if !ok {
			t.Errorf("docs/configuration.md lacks --%s", fl.Name)
			return
		}
		delete(rows, fl.Name)
		if got, want := r.env, sandbox.EnvName(fl.Name); got != want {
			t.Errorf("docs/configuration.md: --%s has environment %q, want %q", fl.Name, got, want)
		}
		// A default written as one code span is a literal: it must be the
		// flag's (durations compare by value, 10m is 10m0s).
		lit, ok := strings.CutPrefix(r.def, "`")
		if !ok || !strings.HasSuffix(lit, "`") || strings.Contains(lit, "<") {
			return
		}
		lit = strings.TrimSuffix(lit, "`")
		if d1, err1 := time.ParseDuration(lit); err1 == nil {
			if d2, err2 := time.ParseDuration(fl.DefValue); err2 == nil && d1 == d2 {
				return
			}
		}
		if got, want := lit, fl.DefValue; got != want {
			t.Errorf("docs/configuration.md: --%s default is %q, want %q", fl.Name, got, want)
		}
	})
	for name := range rows {
		t.Errorf("docs/configuration.md has --%s, which is not a flag", name)
	}
}
