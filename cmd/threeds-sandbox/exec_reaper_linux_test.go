//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// setsidChild is shell that starts a process in a session of its own
// (setsid), out of the command's process group, which writes its pid to
// "$PIDS/$1" and runs $2; the shell waits until the pid is written. Its
// output goes to /dev/null, so that it holds none of exec's.
const setsidChild = `spawn() { setsid sh -c 'echo $$ >"$PIDS/$0.tmp" && mv "$PIDS/$0.tmp" "$PIDS/$0"; '"$2" "$1" </dev/null >/dev/null 2>&1 &
  while [ ! -s "$PIDS/$1" ]; do sleep 0.05; done; }
`

// pidsIn reads the pids the processes of a test wrote to dir.
func pidsIn(t *testing.T, dir string) map[string]int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
			pids[e.Name()] = pid
		}
	}
	return pids
}

// running tells whether pid is a live process (a zombie has ended).
func running(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, state, ok := parseStat(raw)
	return ok && state != 'Z' && state != 'X'
}

// waitGone polls until none of pids runs, and fails t with those still
// running after within.
func waitGone(t *testing.T, pids map[string]int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var left []string
		for name, pid := range pids {
			if running(pid) {
				left = append(left, name+" "+strconv.Itoa(pid))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, name := range left {
				pid, _ := strconv.Atoi(name[strings.LastIndexByte(name, ' ')+1:])
				_ = unix.Kill(pid, unix.SIGKILL)
			}
			t.Fatalf("still running %s after exec returned: %v", within, left)
		}
		<-tick.C
	}
}

// TestExecEndsEveryDescendant: whatever the command leaves when it ends,
// processes in sessions of their own (setsid) included, and one that
// ignores SIGTERM, is gone once exec returns; exec still exits with the
// command's status, or 128 plus the signal that ended it.
func TestExecEndsEveryDescendant(t *testing.T) {
	t.Parallel()
	testkit.Need(t, "setsid", "util-linux")
	cases := []struct {
		name   string
		script string
		code   int
		stderr string
	}{
		{"a setsid process left running", `spawn orphan 'exec sleep 600'; exit 0`, 0, ""},
		{"a setsid process that ignores SIGTERM", `spawn stubborn 'trap "" TERM; while :; do sleep 1; done'; exit 0`, 0, ""},
		{"a setsid process and its own child", `spawn parent 'sleep 600 & echo $! >"$PIDS/child.tmp" && mv "$PIDS/child.tmp" "$PIDS/child"; wait'
while [ ! -s "$PIDS/child" ]; do sleep 0.05; done; exit 0`, 0, ""},
		{"the command's status is kept", `spawn orphan 'exec sleep 600'; exit 7`, 7, "exited with status 7"},
		{"a command ended by a signal", `spawn orphan 'exec sleep 600'; kill -TERM $$`, 128 + int(unix.SIGTERM), "ended by signal terminated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := map[string]string{"PIDS": dir, "PATH": os.Getenv("PATH")}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stdout, stderr testkit.Buffer
			err := run(ctx, []string{"exec", "--", "sh", "-c", setsidChild + tc.script}, envOf(env), environOf(env), &stdout, &stderr, nil)
			if code := exitCode(err); code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit code %d, want %d with %q\nstderr: %s", code, tc.code, tc.stderr, stderr.String())
			}
			pids := pidsIn(t, dir)
			if len(pids) == 0 {
				t.Fatalf("the command started nothing\nstderr: %s", stderr.String())
			}
			waitGone(t, pids, 10*time.Second)
		})
	}
}

// TestExecCommandNotFoundUnderTheReaper: the reaper finds the command as
// exec.Command would, and a command that cannot run keeps its exit codes.
func TestExecCommandNotFoundUnderTheReaper(t *testing.T) {
	t.Parallel()
	if _, err := commandFor([]string{"threeds-sandbox-no-such-command"}); exitCode(err) != exitNotFound {
		t.Errorf("a missing command: %v, want exit code %d", err, exitNotFound)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := commandFor([]string{filepath.Join(dir, "plain")}); exitCode(err) != exitCannotRun || !errors.Is(err, os.ErrPermission) {
		t.Errorf("a file that is not executable: %v, want exit code %d, permission denied", err, exitCannotRun)
	}
	cmd, err := commandFor([]string{"sh", "-c", "exit 0"})
	if err != nil || cmd.Args[0] != reaperName || cmd.Args[1] != strconv.Itoa(os.Getpid()) || cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig == 0 {
		t.Errorf("the reaper's process: %v %+v", err, cmd)
	}
}

// TestParseStat reads the parent and state of /proc/PID/stat lines,
// whatever the command's name holds.
func TestParseStat(t *testing.T) {
	for line, want := range map[string]struct {
		ppid  int
		state byte
		ok    bool
	}{
		"42 (sleep) S 7 42 42 0 -1":      {7, 'S', true},
		"42 (a) b (c)) Z 1 0 0":          {1, 'Z', true},
		"42 (with space) R 12345 1 1 0":  {12345, 'R', true},
		"42 (cut":                        {0, 0, false},
		"42 (x) S":                       {0, 0, false},
		"42 (x) S x":                     {0, 0, false},
		"":                               {0, 0, false},
		"42 (x)) S 9\n":                  {9, 'S', true},
		"1 (process_api) S 0 1 1 0 -1 4": {0, 'S', true},
	} {
		ppid, state, ok := parseStat([]byte(line))
		if ok != want.ok || ok && (ppid != want.ppid || state != want.state) {
			t.Errorf("parseStat(%q) = %d, %q, %v; want %d, %q, %v", line, ppid, state, ok, want.ppid, want.state, want.ok)
		}
	}
}
