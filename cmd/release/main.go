// Command release builds a release of the sandbox into a directory: for
// each platform an archive of the binary, LICENSE and README.md (tar.gz;
// zip for Windows), the complete scenario schema (scenario.schema.json, which
// editors fetch from the latest release), a checksums.txt of their
// SHA-256, the context of the release image (the Linux binaries laid out
// for release.Dockerfile, with the LICENSE), and notes.md, the release's
// notes: its version's section of CHANGELOG.md (Unreleased for a
// snapshot). A version the changelog lacks fails before anything is built.
//
//	go run ./cmd/release                                   # every platform, into dist/
//	go run ./cmd/release -platforms linux/amd64,windows/arm64
//
// The binaries are built with -trimpath and the VCS stamp, so that their
// version command names the module version, the commit and its time;
// archive entries carry the commit's time, so that a release can be built
// again byte for byte. It needs only the Go toolchain and git.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// Image is the name the release image is published under.
const Image = "ghcr.io/threeds-sandbox/threeds-sandbox"

// Platforms are the targets of every release.
var Platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// run parses the flags and builds the release.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	dist := fs.String("dist", "dist", "the directory the release is built into (emptied first)")
	platforms := fs.String("platforms", strings.Join(Platforms, ","), "the GOOS/GOARCH pairs to build, comma-separated")
	version := fs.String("version", "", "the release's version; the tag of HEAD (vX.Y.Z) or a snapshot version when empty")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var list []string
	for _, p := range strings.Split(*platforms, ",") {
		if p = strings.TrimSpace(p); p != "" {
			list = append(list, p)
		}
	}
	r, err := newRelease(ctx, *dist, *version, list)
	if err != nil {
		return err
	}
	return r.build(ctx, out)
}
