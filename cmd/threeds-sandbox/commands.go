package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/sandbox"
)

// Exit codes of the program besides 0.
const (
	exitFailure = 1 // something failed at run time
	exitUsage   = 2 // the command line or the configuration is wrong
)

// exitError is a failure with the exit code it calls for.
type exitError struct {
	code  int
	usage bool // the short usage follows the message
	err   error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError is a command line that does not say what to do; the short
// usage follows its message.
func usageError(format string, a ...any) error {
	return &exitError{code: exitUsage, usage: true, err: fmt.Errorf(format, a...)}
}

// configError is a configuration that cannot be served.
func configError(err error) error {
	return &exitError{code: exitUsage, err: err}
}

// exitCode is the exit code of what run returned: 0 for nil, the code an
// *exitError carries, 1 for any other error.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitFailure
}

// report writes a failure to w, every line of it prefixed with the
// program's name, followed by the short usage or a pointer to the help.
func report(w io.Writer, err error) {
	if err == nil {
		return
	}
	for line := range strings.SplitSeq(err.Error(), "\n") {
		fmt.Fprintln(w, "threeds-sandbox:", line)
	}
	var e *exitError
	switch {
	case errors.As(err, &e) && e.usage:
		fmt.Fprintln(w)
		printCommands(w)
		fmt.Fprintln(w, "\n'threeds-sandbox help' lists every flag.")
	case exitCode(err) == exitUsage:
		fmt.Fprintln(w, "'threeds-sandbox help' lists every flag with its environment variable.")
	}
}

// command is a subcommand of the program.
type command struct {
	name, args, summary string
}

// commands are the subcommands, in the order the usage lists them.
var commands = []command{
	{"serve", "[flags]", "serve the emulator (the default when the first argument is a flag or there is none)"},
	{"exec", "[flags] -- CMD [ARGS...]", "start the sandbox, run CMD with THREEDS_SANDBOX_URL and THREEDS_SANDBOX_TOKEN, stop it, exit with CMD's status"},
	{"validate", "[--alone] FILE_OR_DIR...", "check scenario files offline with the rules of start-up"},
	{"healthcheck", "[--addr ADDR]", "probe GET /healthz of a running emulator: exit 0 when healthy (Docker's HEALTHCHECK)"},
	{"version", "", "print the version, the VCS revision and the Go version"},
	{"help", "[COMMAND]", "print this help, or a command's"},
}

// dispatch runs the subcommand that args name.
func dispatch(ctx context.Context, args []string, getenv func(string) string, environ func() []string, stdout, stderr io.Writer, ready chan<- string) error {
	name, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	switch name {
	case "serve":
		return serve(ctx, rest, getenv, environ, stdout, ready)
	case "exec":
		return execCommand(ctx, rest, getenv, environ, stdout, stderr)
	case "validate":
		return validate(rest, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, rest, getenv, stdout)
	case "version":
		return version(rest, stdout)
	case "help":
		return help(rest, stdout)
	}
	return unknownCommand(name)
}

// unknownCommand is the usage error of a name that is no subcommand,
// suggesting the closest one.
func unknownCommand(name string) error {
	if s := closest(name); s != "" {
		return usageError("unknown command %q (did you mean %q?)", name, s)
	}
	return usageError("unknown command %q", name)
}

// strayArgument is the usage error of an argument after the flags of cmd.
func strayArgument(cmd, arg string) error {
	if closest(arg) == arg {
		return usageError("%s: unexpected argument %q (a command comes before the flags: threeds-sandbox %s [flags])", cmd, arg, arg)
	}
	return usageError("%s: unexpected argument %q", cmd, arg)
}

// closest is the subcommand that name most likely misspells, or "".
func closest(name string) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return sandbox.Closest(name, names)
}

// help writes the usage of the program, or of one command, to stdout.
func help(args []string, stdout io.Writer) error {
	switch {
	case len(args) > 1:
		return strayArgument("help", args[1])
	case len(args) == 0, args[0] == "serve", args[0] == "help":
		printUsage(stdout)
		return nil
	case args[0] == "exec":
		printExecUsage(stdout)
		return nil
	case args[0] == "validate":
		printValidateUsage(stdout)
		return nil
	case args[0] == "healthcheck":
		printHealthcheckUsage(stdout)
		return nil
	case args[0] == "version":
		fmt.Fprintln(stdout, "usage: threeds-sandbox version\n\nprints the version, the VCS revision and the Go version of this binary.")
		return nil
	}
	return unknownCommand(args[0])
}

// printCommands writes the synopsis of every subcommand.
func printCommands(w io.Writer) {
	fmt.Fprintln(w, "Usage:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		name := c.name
		if name == "serve" {
			name = "[serve]"
		}
		fmt.Fprintf(tw, "  threeds-sandbox %s\t%s\n", strings.TrimSpace(name+" "+c.args), c.summary)
	}
	tw.Flush()
}

// printUsage writes the whole help: the commands, then every flag of
// serve with its environment variable.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "threeds-sandbox: a 3-D Secure (EMV 3DS 2.1/2.2) sandbox emulator for merchant developers and QA.")
	fmt.Fprintln(w)
	printCommands(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Flags of serve, exec and healthcheck; each may be set by its environment variable instead (a flag wins):")
	var c sandbox.Config
	sandbox.PrintFlags(w, sandbox.FlagSet(&c, io.Discard))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit codes: 0 success, 1 failure at run time, 2 usage or configuration error.")
}
