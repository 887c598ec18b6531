// Command screenshots regenerates the pictures of the docs (the front
// door, the web console, the demo checkout and the challenge page): it
// starts the emulator in-process on a loopback port, drives headless
// Chromium through the pages, and writes PNG files.
//
// Run it from the repository's root (it is a module of its own, in
// scripts/tools):
//
//	go -C scripts/tools run ./screenshots    # writes docs/img/landing.png, console-*.png and demo-*.png
//	go -C scripts/tools run ./screenshots -out /tmp/shots -chromium /usr/bin/chromium
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scripts/tools/internal/product"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

// run parses the flags, starts the emulator and the browser, and takes
// every screenshot.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("screenshots", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory the PNG files are written to (default the sandbox's docs/img)")
	chromiumPath := fs.String("chromium", testkit.ChromiumPath, "path of the Chromium (or Chrome) binary")
	timeout := fs.Duration("timeout", 2*time.Minute, "how long the whole run may take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		root, err := product.Dir(ctx)
		if err != nil {
			return err
		}
		*out = filepath.Join(root, "docs", "img")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", *out, err)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	emu, err := startEmulator(stderr)
	if err != nil {
		return err
	}
	defer emu.Close()

	b, err := newBrowser(ctx, *chromiumPath)
	if err != nil {
		return err
	}
	defer b.Close()
	s := &shooter{b: b, emu: emu, out: *out, log: stderr}
	return s.all(ctx)
}
