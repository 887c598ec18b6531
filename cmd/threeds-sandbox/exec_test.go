package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// helperVar makes the test binary, run by exec as its command, act as a
// test suite would (see helper) instead of running the tests.
const helperVar = "EXEC_TEST_HELPER"

// TestMain runs the tests, or the helper command when exec runs the test
// binary as its command.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperVar); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper is the command the exec tests run: "lookup" sends the sandbox's
// sample lookup with the token exec gave, prints what it got and exits
// with EXEC_TEST_EXIT; "wait" says so and exits 42 on SIGTERM. Either
// writes the file EXEC_TEST_MARKER, when set, once it listens for SIGTERM.
func helper(mode string) int {
	base, token := os.Getenv(envSandboxURL), os.Getenv(envSandboxToken)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM) // before the marker says it runs
	fmt.Printf("url=%s token=%s\n", base, token)
	if marker := os.Getenv("EXEC_TEST_MARKER"); marker != "" {
		_ = os.WriteFile(marker, []byte("ran"), 0o644)
	}
	switch mode {
	case "lookup":
		sample, err := http.Get(base + "/examples/lookup.json")
		if err != nil {
			fmt.Println("sample:", err)
			return 99
		}
		defer sample.Body.Close()
		req, _ := http.NewRequest(http.MethodPost, base+"/authentication/brw", sample.Body)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println("lookup:", err)
			return 99
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("lookup: HTTP %d %s\n", resp.StatusCode, body)
		code, _ := strconv.Atoi(os.Getenv("EXEC_TEST_EXIT"))
		return code
	case "wait":
		fmt.Println("waiting")
		select {
		case <-term:
			return 42
		case <-time.After(time.Minute):
			return 98
		}
	}
	return 97
}

// execResult is what one in-process exec did.
type execResult struct {
	code           int
	stdout, stderr string
}

// runExec runs exec in process with the test binary as its command, in
// the helper's mode, until it returns or ctx ends.
func runExec(ctx context.Context, t *testing.T, env map[string]string, flags ...string) execResult {
	t.Helper()
	args := append(append([]string{"exec"}, flags...), "--", os.Args[0])
	var stdout, stderr testkit.Buffer
	err := run(ctx, args, envOf(env), environOf(env), &stdout, &stderr, nil)
	return execResult{code: exitCode(err), stdout: stdout.String(), stderr: stderr.String()}
}

// field is the value of key=value in the helper's first line of output.
func (r execResult) field(key string) string {
	first, _, _ := strings.Cut(r.stdout, "\n")
	for _, kv := range strings.Fields(first) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// TestExecRunsTheCommand runs a command under exec: it finds the sandbox
// at THREEDS_SANDBOX_URL (with the base path) and a token of its own in
// THREEDS_SANDBOX_TOKEN, or the first of --tokens; exec exits with the
// command's status; the sandbox is gone once exec returns.
func TestExecRunsTheCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		flags     []string
		exit      string
		wantCode  int
		wantPath  string
		wantToken string
	}{
		{name: "a command that succeeds", wantCode: 0},
		{name: "a command that fails with status 7", exit: "7", wantCode: 7},
		{name: "the base path is in the URL", flags: []string{"--base-path", "/3ds"}, wantPath: "/3ds"},
		{name: "the first of the tokens named", flags: []string{"--tokens", "team-a,team-b"}, wantToken: "team-a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := runExec(ctx, t, map[string]string{helperVar: "lookup", "EXEC_TEST_EXIT": tc.exit}, tc.flags...)
			if r.code != tc.wantCode {
				t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.wantCode, r.stdout, r.stderr)
			}
			if tc.wantCode != 0 && !strings.Contains(r.stderr, fmt.Sprintf("exited with status %d", tc.wantCode)) {
				t.Errorf("stderr does not say the command's status:\n%s", r.stderr)
			}
			if !strings.Contains(r.stdout, `lookup: HTTP 200 {"status":"Y"`) {
				t.Errorf("the command's lookup did not succeed:\n%s", r.stdout)
			}
			u, err := url.Parse(r.field("url"))
			if err != nil || u.Host == "" || u.Path != tc.wantPath {
				t.Errorf("%s=%q, want a loopback URL with the path %q", envSandboxURL, r.field("url"), tc.wantPath)
			}
			token := r.field("token")
			if tc.wantToken != "" && token != tc.wantToken || tc.wantToken == "" && !strings.HasPrefix(token, "exec-") {
				t.Errorf("%s=%q, want %q (or a fresh exec- token)", envSandboxToken, token, tc.wantToken)
			}
			if u != nil {
				if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
					c.Close()
					t.Errorf("the sandbox still listens at %s after exec returned", u.Host)
				}
			}
		})
	}
}

// TestExecTokensAreFresh: two runs without --tokens give two tokens.
func TestExecTokensAreFresh(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	env := map[string]string{helperVar: "lookup"}
	first, second := runExec(ctx, t, env), runExec(ctx, t, env)
	for _, r := range []execResult{first, second} {
		if r.code != 0 || r.field("token") == "" {
			t.Fatalf("exit code %d, no token\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
	}
	if a, b := first.field("token"), second.field("token"); a == b {
		t.Errorf("tokens %q and %q, want two different ones", a, b)
	}
}

// TestExecSandboxFailsToStart: when the sandbox cannot start, the
// command never runs and exec exits 2 with the reason.
func TestExecSandboxFailsToStart(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() })
	cases := []struct {
		name   string
		flags  []string
		env    map[string]string
		reason string
	}{
		{"scenario files that do not load", []string{"--scenarios", filepath.Join(t.TempDir(), "nope.yaml")}, nil, "[scenarios]"},
		{"a port in use", []string{"--addr", busy.Addr().String()}, nil, "address already in use"},
		{"a port in use, named by THREEDS_ADDR", nil, map[string]string{"THREEDS_ADDR": busy.Addr().String()}, "address already in use"},
		{"a wrong value", []string{"--max-body-bytes", "-1"}, nil, "--max-body-bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "ran")
			env := map[string]string{helperVar: "lookup", "EXEC_TEST_MARKER": marker}
			for k, v := range tc.env {
				env[k] = v
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := runExec(ctx, t, env, tc.flags...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.reason) {
				t.Errorf("exit code %d, want 2 with the reason %q:\n%s", r.code, tc.reason, r.stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran although the sandbox did not start")
			}
		})
	}
}

// TestExecCommandLine checks the command lines exec refuses and the
// exit codes of a command that cannot run.
func TestExecCommandLine(t *testing.T) {
	t.Parallel()
	notExecutable := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notExecutable, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"exec"}, 2, "exec: no command"},
		{[]string{"exec", "--addr", "127.0.0.1:0"}, 2, "exec: no command"},
		{[]string{"exec", "--"}, 2, "no command after --"},
		{[]string{"exec", "--no-such-flag", "--", "true"}, 2, "no-such-flag"},
		{[]string{"exec", "--", "threeds-sandbox-no-such-command"}, 127, "threeds-sandbox-no-such-command: command not found"},
		{[]string{"exec", "--", notExecutable}, 126, "cannot run"},
	}
	for _, tc := range cases {
		var stdout, stderr testkit.Buffer
		err := run(context.Background(), tc.args, envOf(nil), environOf(nil), &stdout, &stderr, nil)
		if code := exitCode(err); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit code %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, stderr.String())
		}
	}
	var stdout testkit.Buffer
	if err := run(context.Background(), []string{"help", "exec"}, envOf(nil), environOf(nil), &stdout, io.Discard, nil); err != nil ||
		!strings.Contains(stdout.String(), "usage: threeds-sandbox exec [flags] -- CMD [ARGS...]") {
		t.Errorf("help exec: %v\n%s", err, stdout.String())
	}
}
