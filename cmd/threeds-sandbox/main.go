// Command threeds-sandbox runs the 3-D Secure sandbox emulator.
//
//	threeds-sandbox [serve] [flags]      serve (every flag has a THREEDS_* twin)
//	threeds-sandbox exec [flags] -- CMD  run CMD against a sandbox started for it
//	threeds-sandbox validate FILE...     check scenario files offline
//	threeds-sandbox healthcheck [flags]  probe /healthz of a running emulator (for Docker)
//	threeds-sandbox version              print the version
//	threeds-sandbox help [COMMAND]       print the usage
//
// It exits 0 on success, 1 on a failure at run time and 2 on a usage or
// configuration error.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Environ, os.Stdout, os.Stderr, nil)
	stop()
	os.Exit(exitCode(err))
}

// run is the whole program; tests start it in-process. getenv reads one
// environment variable and environ lists them all (os.Getenv and
// os.Environ, or a test's own). It writes a failure to stderr and returns
// it; exitCode maps it to the exit code. ready, when not nil, receives the
// base URL once the emulator serves.
func run(ctx context.Context, args []string, getenv func(string) string, environ func() []string, stdout, stderr io.Writer, ready chan<- string) error {
	err := dispatch(ctx, args, getenv, environ, stdout, stderr, ready)
	report(stderr, err)
	return err
}
