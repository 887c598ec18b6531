package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// builds holds the binaries of this test run: built once each, in a
// directory TestMain removes.
var builds struct {
	dir   string
	mu    sync.Mutex
	paths map[bool]string // by race detector
	errs  map[bool]error
}

// TestMain runs the tests with a directory for the binaries they build.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "threeds-sandbox-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	builds.dir = dir
	builds.paths, builds.errs = map[bool]string{}, map[bool]error{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the program built with the race detector when race is
// set, built the first time it is asked for.
func binary(t testing.TB, race bool) string {
	t.Helper()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if p, ok := builds.paths[race]; ok {
		return p
	}
	if err := builds.errs[race]; err != nil {
		t.Fatal(err)
	}
	name := "threeds-sandbox"
	args := []string{"build", "-o"}
	if race {
		name += "-race"
	}
	bin := filepath.Join(builds.dir, name)
	args = append(args, bin)
	if race {
		args = append(args, "-race")
	}
	args = append(args, "github.com/threeds-sandbox/threeds-sandbox/cmd/threeds-sandbox")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		builds.errs[race] = fmt.Errorf("go %v: %v\n%s", args, err, out)
		t.Fatal(builds.errs[race])
	}
	builds.paths[race] = bin
	return bin
}

// sandboxBinary is the program as the tests run it: with the race
// detector when the tests have it.
func sandboxBinary(t testing.TB) string { t.Helper(); return binary(t, testkit.Race) }
