// Command threeds-sandbox runs the 3-D Secure sandbox emulator.
//
//	threeds-sandbox [flags]             serve (every flag has a THREEDS_* twin)
//	threeds-sandbox healthcheck [flags] probe /healthz of a running emulator (for Docker)
//	threeds-sandbox validate FILE...    check scenario files offline
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, nil); err != nil {
		if !errors.Is(err, errInvalid) {
			fmt.Fprintln(os.Stderr, "threeds-sandbox:", err)
		}
		os.Exit(1)
	}
}

// run is the whole program; tests start it in-process. ready, when not
// nil, receives the base URL once the emulator serves.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready chan<- string) error {
	if len(args) > 0 {
		switch args[0] {
		case "healthcheck":
			return healthcheck(ctx, args[1:], getenv, stderr)
		case "validate":
			return validate(args[1:], stdout, stderr)
		}
	}
	return serve(ctx, args, getenv, stdout, stderr, ready)
}
