//go:build full

package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// defaultParallel is how many tests run at once unless -parallel says:
// the tests mostly wait on the processes they start (the sandbox, Redis,
// nginx, Chromium, builds), so more of them than cores keep the machine
// busy. Each waits on channels and polls with generous deadlines, never
// on a machine that is idle.
const defaultParallel = 8

// builds holds the binaries of this test run: built once each, in a
// directory TestMain removes.
var builds struct {
	dir string
	// by race detector: the build's once, path and error
	race, plain build
}

// build is one binary of the run, built by the first test that needs it.
type build struct {
	once sync.Once
	path string
	err  error
}

// TestMain runs the tests with a directory for the binaries they build,
// defaultParallel tests at once unless -parallel is given, and stops the
// browser they share.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", fmt.Sprint(defaultParallel)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	dir, err := os.MkdirTemp("", "threeds-sandbox-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	builds.dir = dir
	code := m.Run()
	stopBrowser()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the program built with the race detector when race is
// set, built the first time it is asked for.
func binary(t testing.TB, race bool) string {
	t.Helper()
	b, name := &builds.plain, "threeds-sandbox"
	if race {
		b, name = &builds.race, "threeds-sandbox-race"
	}
	b.once.Do(func() {
		bin := filepath.Join(builds.dir, name)
		args := []string{"build", "-o", bin}
		if race {
			args = append(args, "-race")
		}
		args = append(args, "github.com/threeds-sandbox/threeds-sandbox/cmd/threeds-sandbox")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go %v: %v\n%s", args, err, out)
			return
		}
		b.path = bin
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// sandboxBinary is the program as it ships: built as a release builds
// it, without the race detector, at a user's pace. The race detector
// finds what a request's code shares in the tests of its packages, which
// run under -race and drive it in the process; here it would cost a
// fifth of the package's time for what those find.
func sandboxBinary(t testing.TB) string { t.Helper(); return binary(t, false) }

// replicaBinary is the program the replicas on one shared store run:
// with the race detector when the tests have it (-race), since there the
// requests of several processes meet in one state, in the code of the
// store, the shared journal and the waits that only a replica runs.
func replicaBinary(t testing.TB) string { t.Helper(); return binary(t, testkit.Race) }
