//go:build full && linux

package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestDeploymentRecipe runs the recipe of docs/deployment.md, "Without
// Docker", as written: it builds the binary, starts Redis, three replicas
// and nginx on loopback ports, waits for them, sends the lookup its next
// block shows through the balancer, and stops everything with its last
// block. Only the ports and the directory are the test's own, through the
// variables the recipe reads.
func TestDeploymentRecipe(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and starts Redis, three replicas and nginx")
	}
	needTools(t, "bash", "curl", "jq", "openssl", "redis-server", "redis-cli")
	nginx := testkit.Nginx(t)
	r := recipeOf(t, "docs/deployment.md", "### Without Docker")
	dir := t.TempDir()
	lb := freePortRun(t, 4)
	env := append(processEnv(),
		"PATH="+os.Getenv("PATH")+":"+filepath.Dir(nginx),
		"DIR="+dir,
		"LB="+strconv.Itoa(lb),
		"REDIS_PORT="+strconv.Itoa(testkit.FreePort(t)))
	r.run(t, dir, env)
	// The check waited for one replica; each of the others gets as long
	// as a slow start may take.
	for i := 1; i <= 3; i++ {
		port := strconv.Itoa(lb + i)
		if err := waitReady("http://127.0.0.1:"+port, testkit.Patience, nil); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "replica-"+port+".log"))
			t.Errorf("replica %d: %v\nits log:\n%s", i, err, log)
		}
	}
	if log, err := os.ReadFile(filepath.Join(dir, "access.log")); err != nil || !strings.Contains(string(log), "POST /authentication/brw") {
		t.Errorf("nginx's access log does not show the lookup (%v):\n%s", err, log)
	}
}

// recipe is a page's recipe in four blocks: the shell blocks that start
// what it runs and check it, the output the page shows for the check,
// and the shell block that stops everything.
type recipe struct{ start, check, want, stop fence }

// recipeOf reads the recipe of the section heading of file.
func recipeOf(t *testing.T, file, heading string) recipe {
	t.Helper()
	blocks := fences(t, file, heading)
	var sh []fence
	for _, b := range blocks {
		if b.lang == "sh" {
			sh = append(sh, b)
		}
	}
	if len(sh) != 3 || len(blocks) != 4 || blocks[2].lang != "text" {
		t.Fatalf("%s, %s: %d blocks (%d sh), want start, check, its output and stop", file, heading, len(blocks), len(sh))
	}
	return recipe{start: sh[0], check: sh[1], want: blocks[2], stop: sh[2]}
}

// run runs the recipe's start and check blocks as written, with env and
// the directory dir its variables name, compares the check's output with
// the page's, and at cleanup runs its stop block and ends, by their pid
// files in dir, what it left running.
func (r recipe) run(t *testing.T, dir string, env []string) {
	t.Helper()
	t.Cleanup(func() {
		runRecipeBlock(t, dir, env, "stop", r.stop, time.Minute)
		killLeftovers(t, dir)
	})
	runRecipeBlock(t, dir, env, "start", r.start, 5*time.Minute)
	checkExample(t, r.want, runRecipeBlock(t, dir, env, "check", r.check, time.Minute))
}

// runRecipeBlock runs a recipe's shell block b as written, from the
// repository root, with env, within the time given, and returns its
// output. A failing block fails t with its output and the logs the
// recipe wrote in dir.
func runRecipeBlock(t *testing.T, dir string, env []string, name string, b fence, within time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	// Output goes to a file, not a pipe: nginx and redis-server keep
	// their standard error open when they go to the background.
	out, err := os.CreateTemp(t.TempDir(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -euo pipefail\n"+b.text)
	cmd.Dir = "../../.."
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	text, _ := os.ReadFile(out.Name())
	if err != nil {
		var logs strings.Builder
		files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
		for _, f := range files {
			log, _ := os.ReadFile(f)
			fmt.Fprintf(&logs, "\n%s:\n%s", filepath.Base(f), log)
		}
		t.Fatalf("the %s block failed: %v\n%s%s", name, err, text, logs.String())
	}
	return string(text)
}

// freePortRun returns the first of n consecutive loopback ports that
// nothing listens on.
func freePortRun(t *testing.T, n int) int {
	t.Helper()
	for range 50 {
		first := testkit.FreePort(t)
		ok := first+n <= 65535
		for p := first; ok && p < first+n; p++ {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			ln.Close()
		}
		if ok {
			return first
		}
	}
	t.Fatalf("no %d consecutive free ports", n)
	return 0
}

// killLeftovers waits for what the recipe started to end after its stop
// block (a replica drains first), and kills, by the process ids of its pid
// files, what does not.
func killLeftovers(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil || pid <= 1 {
			continue
		}
		if !testkit.Within(testkit.Patience, func() bool { return !running(pid) }) {
			t.Errorf("%s: process %d still running after the stop block; killing it", filepath.Base(f), pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// running tells whether the process pid exists and has not ended (a
// process that ended but was not yet reaped is a zombie: state Z).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}
