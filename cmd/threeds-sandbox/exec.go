package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
)

// The variables exec gives the command it runs: the sandbox's base URL
// (--base-path included, no trailing slash), and a bearer token the
// command may use (the first of --tokens, or a fresh one when any token
// is accepted).
const (
	envSandboxURL   = sandbox.EnvSandboxURL
	envSandboxToken = sandbox.EnvSandboxToken
)

// Exit codes of exec that are not the command's own, as shells give them.
const (
	exitCannotRun = 126 // the command was found but could not be started
	exitNotFound  = 127 // no such command
)

// execDefaults are the settings exec gives the sandbox unless the command
// line or the environment sets them: a free loopback port, no drain (no
// load balancer sends to it), and a log of warnings and errors only, so
// that the command's own output stays readable.
var execDefaults = []struct{ flag, value string }{
	{"addr", "127.0.0.1:0"},
	{"drain-delay", "0"},
	{"log-level", "warn"},
}

// printExecUsage writes the usage of exec.
func printExecUsage(w io.Writer) {
	fmt.Fprintf(w, `usage: threeds-sandbox exec [flags] -- CMD [ARGS...]

starts the sandbox with the flags of serve (on a free loopback port unless
--addr or THREEDS_ADDR names one), waits until it serves, and runs CMD with
%s (the base URL, --base-path included) and %s (the first
of --tokens, or a fresh token when any token is accepted) in its
environment. When CMD ends, the sandbox stops and exec exits with CMD's
exit status (128 plus the signal's number when a signal ended it; 127 when
CMD is not found). SIGINT and SIGTERM are passed on to CMD and every
process it started; whatever of them is left when CMD ends is stopped too,
and on Linux even a process in a session of its own (setsid), or when exec
itself is killed.
In a terminal, CMD runs in its foreground: it may read it, and Ctrl-C
reaches it.
When the sandbox does not start, CMD does not run and exec exits 2 with
the reason.

The sandbox logs its warnings and errors to stderr (--log-level info shows
every request). Example:

  threeds-sandbox exec -- npm test
  threeds-sandbox exec --base-path /3ds -- python3 -m pytest
`, envSandboxURL, envSandboxToken)
}

// execCommand runs exec: the sandbox around one command.
func execCommand(ctx context.Context, args []string, getenv func(string) string, environ func() []string, stdout, stderr io.Writer) error {
	i := slices.Index(args, "--")
	switch {
	case i < 0 && slices.ContainsFunc(args, isHelp):
		printExecUsage(stdout)
		return nil
	case i < 0:
		return usageError("exec: no command: threeds-sandbox exec [flags] -- CMD [ARGS...]")
	case i == len(args)-1:
		return usageError("exec: no command after --: threeds-sandbox exec [flags] -- CMD [ARGS...]")
	}
	flags, command := args[:i], args[i+1:]
	var defaults []string
	for _, d := range execDefaults {
		if !flagGiven(flags, getenv, d.flag) {
			defaults = append(defaults, "--"+d.flag+"="+d.value)
		}
	}
	c, ok, err := parse("exec", append(defaults, flags...), getenv, stdout, printExecUsage)
	if !ok {
		return err
	}
	log, err := sandbox.NewLogger(c, stderr)
	if err != nil {
		return configError(err)
	}
	sb, err := sandbox.New(c, log)
	if err != nil {
		return notStarted(err)
	}
	// The sandbox serves until the command ends, whatever ctx does: a
	// signal is the command's to act on.
	serving, stopServing := context.WithCancel(context.Background())
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() { served <- sb.Run(serving, func() { close(ready) }) }()
	select {
	case <-ready:
	case err := <-served:
		stopServing()
		return notStarted(err)
	}
	token := "exec-" + randomToken()
	if tokens := sandbox.SplitList(c.Tokens); len(tokens) > 0 {
		token = tokens[0]
	}
	log.Info("running the command against the sandbox", slog.String("url", sb.PublicURL), slog.String("command", strings.Join(command, " ")))
	env := append(environ(), envSandboxURL+"="+sb.PublicURL, envSandboxToken+"="+token)
	runErr := runCommand(ctx, command, env, stdout, stderr, served)
	stopServing()
	if err := <-served; err != nil && runErr == nil {
		return fmt.Errorf("exec: the sandbox: %w", err)
	}
	return runErr
}

// notStarted is the error of a sandbox that did not start: exit code 2,
// the command not run.
func notStarted(err error) error {
	return &exitError{code: exitUsage, err: fmt.Errorf("exec: the sandbox did not start, so the command did not run: %w", err)}
}

// isHelp tells whether a command line argument asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "-h=true" || arg == "--help=true"
}

// flagGiven tells whether the command line args (before --) or the
// environment set the flag called name.
func flagGiven(args []string, getenv func(string) string, name string) bool {
	if getenv(sandbox.EnvName(name)) != "" {
		return true
	}
	for _, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// runCommand runs command with env until it ends, passing SIGINT and
// SIGTERM on to it (see forward), and returns nil when it exits 0, or an
// error carrying its exit status. When the sandbox stops serving first
// (served), the command is asked to stop. On Linux the command runs
// under its reaper (see commandFor), which ends every process it leaves.
func runCommand(ctx context.Context, command, env []string, stdout, stderr io.Writer, served <-chan error) error {
	cmd, err := commandFor(command)
	if err != nil {
		return err
	}
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, stdout, stderr
	group := newProcessGroup(cmd)
	defer group.release()
	// The command's process is started and waited for on one locked
	// thread: Linux sends the reaper's parent-death signal when the thread
	// that started it ends, not the process, and the runtime may end an
	// idle thread while the command runs.
	started, waited := make(chan error, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return startError(command[0], err)
	}
	var sandboxErr error
	for done, stopped := ctx.Done(), served; ; {
		select {
		case s := <-group.signals:
			group.signal(s)
		case <-done:
			done = nil
			// A signal cancels ctx with the signal as its cause, and
			// arrives on group.signals too; any other end of ctx (a
			// caller's cancel, a deadline) asks the command to stop.
			if context.Cause(ctx) == ctx.Err() {
				group.terminate()
			}
		case sandboxErr = <-stopped:
			stopped = nil
			group.terminate()
		case err := <-waited:
			group.sweep()
			if sandboxErr != nil {
				return fmt.Errorf("exec: the sandbox stopped before the command ended: %w", sandboxErr)
			}
			return commandStatus(command[0], cmd.ProcessState, err)
		}
	}
}

// startError is exec's error for a command name that could not be
// started: exit code 127 when there is no such command, else 126.
func startError(name string, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return &exitError{code: exitNotFound, err: fmt.Errorf("exec: %s: command not found", name)}
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	return &exitError{code: exitCannotRun, err: fmt.Errorf("exec: cannot run %s: %w", name, err)}
}

// commandStatus is what exec returns for a command that ended: nil for
// exit status 0, else an *exitError with its status, or 128 plus the
// number of the signal that ended it.
func commandStatus(name string, state *os.ProcessState, waitErr error) error {
	if state == nil {
		return fmt.Errorf("exec: %s: %w", name, waitErr)
	}
	if state.Success() {
		return nil
	}
	if sig, ok := signalOf(state); ok {
		return &exitError{code: 128 + sig.number, err: fmt.Errorf("exec: %s ended by signal %s", name, sig.name)}
	}
	return &exitError{code: state.ExitCode(), err: fmt.Errorf("exec: %s exited with status %d", name, state.ExitCode())}
}

// randomToken is 12 random bytes in hex: a bearer token of its own.
func randomToken() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
