//go:build full

package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// moduleProxy is a GOPROXY directory that serves the working tree as one
// version of the module, as the module proxy serves a published one, so
// that "go install <module>/cmd/threeds-sandbox@latest" runs as a user
// runs it, without the module being published.
type moduleProxy struct {
	dir, module, version string
}

// publishModule zips the files of the checkout that git tracks or would
// track (a module zip: no nested module, no .git) as a pseudo-version of
// the module made of the HEAD commit's time and hash. The version is the
// same each time for one commit, as a published one is: go's build cache,
// which keys a package built with -trimpath by its module@version, keeps
// what it compiled for an unchanged package instead of compiling the
// whole module again each run.
func publishModule(t *testing.T) *moduleProxy {
	t.Helper()
	git := testkit.Need(t, "git", "git")
	gitOut := func(args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = repoRoot
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	head, when, _ := strings.Cut(strings.TrimSpace(gitOut("log", "-1", "--format=%H %cI")), " ")
	committed, err := time.Parse(time.RFC3339, when)
	if err != nil {
		t.Fatalf("the HEAD commit's time %q: %v", when, err)
	}
	committed = committed.UTC()
	p := &moduleProxy{dir: t.TempDir(), module: modulePath(t),
		version: fmt.Sprintf("v0.0.0-%s-%s", committed.Format("20060102150405"), head[:12])}

	// A path with unmerged stages is listed once per stage: once is enough.
	files := slices.Compact(slices.Sorted(slices.Values(strings.Split(strings.TrimRight(
		gitOut("ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00"))))
	var nested []string // directories of other modules, which a module zip leaves out
	for _, f := range files {
		if filepath.Base(f) == "go.mod" && f != "go.mod" {
			nested = append(nested, filepath.Dir(f)+"/")
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	prefix := p.module + "@" + p.version + "/"
	for _, f := range files {
		skip := false
		for _, n := range nested {
			skip = skip || strings.HasPrefix(f, n)
		}
		info, err := os.Lstat(filepath.Join(repoRoot, f))
		if skip || err != nil || !info.Mode().IsRegular() { // deleted, or a link
			continue
		}
		raw, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": p.version, "Time": committed.Format(time.RFC3339)})
	base := filepath.Join(p.dir, filepath.FromSlash(p.module))
	for name, content := range map[string][]byte{
		"@v/" + p.version + ".zip":  buf.Bytes(),
		"@v/" + p.version + ".mod":  gomod,
		"@v/" + p.version + ".info": info,
		"@v/list":                   nil, // no tagged version: @latest answers
		"@latest":                   info,
	} {
		path := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// env is the environment of a user's shell whose go command fetches the
// module from p and everything else as usual (the local module cache
// first, then the configured proxy), with a GOPATH of its own: "go
// install" puts the binary in $GOPATH/bin. Nothing of the checkout (GOWORK,
// GOFLAGS) or of a sandbox's settings (THREEDS_*) comes along.
func (p *moduleProxy) env(t *testing.T, gopath string) []string {
	t.Helper()
	upstream, modcache := goEnv(t, "GOPROXY"), goEnv(t, "GOMODCACHE")
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "THREEDS_"), strings.HasPrefix(name, "GO") && name != "GOCACHE" && name != "GOTOOLCHAIN", name == "PATH":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GOPATH="+gopath,
		"PATH="+filepath.Join(gopath, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOPROXY=file://"+p.dir+",file://"+filepath.Join(modcache, "cache", "download")+","+upstream,
		"GONOSUMDB="+p.module, // not in the checksum database: it was never published
		// -modcacherw, so that the test's directory can be removed;
		// -trimpath and no cgo, as the release and the image build, so
		// that the builds share their compiled dependencies.
		"GOFLAGS=-modcacherw -trimpath",
		"CGO_ENABLED=0",
		"GOWORK=off",
	)
}

// TestInstallWithGo installs the sandbox as a user without a checkout
// does, from the module (served by a proxy of the test, see
// moduleProxy), each way the docs show, running their blocks as written
// from an empty directory:
//   - docs/install.md, "With Go": go install ...@latest, then version,
//     which prints the module version the proxy served;
//   - the README's Quick start, from the command it gives for once the
//     module is published (go run ...@latest) to its last block;
//   - docs/ci.md, "The plain binary": go install, start it in the
//     background, wait for /readyz, send a sample lookup, stop it.
func TestInstallWithGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module as go install does")
	}
	t.Parallel()
	testkit.Need(t, "go", "golang")
	p := publishModule(t)
	gopath := t.TempDir()
	env := p.env(t, gopath)
	t.Logf("the working tree served as %s@%s", p.module, p.version)

	t.Run("go install", func(t *testing.T) {
		blocks := testkit.Fences(t, filepath.Join(repoRoot, "docs/install.md"), "### With Go")
		if len(blocks) == 0 || !strings.HasPrefix(blocks[0].Text, "go install "+p.module+"/cmd/threeds-sandbox@latest\n") {
			t.Fatalf("docs/install.md, With Go, must open with go install %s/cmd/threeds-sandbox@latest: %q", p.module, blocks)
		}
		start := time.Now()
		steps := testkit.RunShell(t, blocks[:1], t.TempDir(), env)
		t.Logf("go install and version in %s", time.Since(start).Round(time.Second))
		out := steps[0].Output
		want := fmt.Sprintf("threeds-sandbox %s\nbuilt with %s for %s/%s\n", p.version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		if !strings.HasSuffix(out, want) {
			t.Errorf("threeds-sandbox version printed %q, want %q: the version go install built", out, want)
		}
		if _, err := os.Stat(filepath.Join(gopath, "bin", "threeds-sandbox")); err != nil {
			t.Errorf("go install put no binary in $GOPATH/bin: %v", err)
		}
	})

	t.Run("README Quick start with go run", func(t *testing.T) {
		readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		const listen = " --addr :8080"
		published := "go run " + p.module + "/cmd/threeds-sandbox@latest" + listen
		if !strings.Contains(string(readme), "`"+published+"`") {
			t.Fatalf("the Quick start does not give `%s` as what works once the module is published", published)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
		// The command as written; only the address is the test's.
		cmd := exec.Command("bash", "-c", strings.TrimSuffix(published, listen)+" --addr "+addr)
		cmd.Dir = t.TempDir()
		cmd.Env = append(env, "THREEDS_DRAIN_DELAY=0")
		sandbox := startProcess(t, cmd)
		waitProcessReady(t, sandbox, "http://"+addr, 5*time.Minute)
		runQuickStart(t, "http://"+addr)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = sandbox.wait(testkit.Patience)
	})

	t.Run("CI recipe with the plain binary", func(t *testing.T) {
		for _, tool := range []string{"bash", "curl", "jq", "timeout"} {
			testkit.Need(t, tool, tool)
		}
		blocks := testkit.Fences(t, filepath.Join(repoRoot, "docs/ci.md"), "## The plain binary")
		if len(blocks) == 0 || !strings.Contains(blocks[0].Text, "go install "+p.module+"/cmd/threeds-sandbox@latest\n") {
			t.Fatalf("docs/ci.md, The plain binary, must install with go install %s/cmd/threeds-sandbox@latest: %q", p.module, blocks)
		}
		if !regexp.MustCompile(`until curl -sf \S*/readyz`).MatchString(blocks[0].Text) {
			t.Errorf("the recipe does not wait for /readyz:\n%s", blocks[0].Text)
		}
		dir := t.TempDir()
		t.Cleanup(func() { killPIDFile(filepath.Join(dir, "sandbox.pid")) })
		steps := testkit.RunShell(t, blocks, dir, append(env, fmt.Sprintf("PORT=%d", testkit.FreePort(t))))
		if len(steps) < 3 {
			t.Fatalf("the recipe has %d command blocks, want the start, a lookup and the stop", len(steps))
		}
		for i, st := range steps {
			t.Run(fmt.Sprintf("block %d", i+1), func(t *testing.T) { st.CheckOutput(t, testkit.StableAnswerKeys) })
		}
	})
}

// killPIDFile kills the process whose id a recipe wrote, if it still runs.
func killPIDFile(path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var pid int
	if _, err := fmt.Sscan(string(raw), &pid); err == nil && pid > 1 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestVersionFromCheckout builds the binary in a clone of the checkout
// as a release build does (go build -trimpath, VCS stamping on), and
// checks that version prints the module version Go derives from the
// commit, the commit's full revision and its time, as git tells them.
func TestVersionFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	git := testkit.Need(t, "git", "git")
	// A clone, not the checkout itself: the checkout may be a worktree,
	// whose .git file Go does not take for a repository.
	dir := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command(git, "clone", "--quiet", repoRoot, dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	gitOut := func(args ...string) string {
		out, err := exec.Command(git, append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	head := gitOut("rev-parse", "HEAD")
	committed, err := time.Parse(time.RFC3339, gitOut("log", "-1", "--format=%cI"))
	if err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "threeds-sandbox")
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=true", "-o", bin, "./cmd/threeds-sandbox")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("version printed %q, want the version, the revision and the toolchain", out)
	}
	// Go names an untagged commit by a pseudo-version that ends in its
	// short hash, and a tagged one by its tag.
	version := regexp.MustCompile(`^threeds-sandbox (v\d+\.\d+\.\d+\S*)$`).FindStringSubmatch(lines[0])
	if version == nil {
		t.Fatalf("version line %q, want threeds-sandbox vX.Y.Z...", lines[0])
	}
	if tags := gitOut("tag", "--points-at", "HEAD"); tags == "" && !strings.HasSuffix(version[1], "-"+head[:12]) {
		t.Errorf("version %s does not name the commit %s", version[1], head[:12])
	}
	if want := "revision " + head + ", " + committed.UTC().Format(time.RFC3339); lines[1] != want {
		t.Errorf("revision line %q, want %q", lines[1], want)
	}
	if want := fmt.Sprintf("built with %s for %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH); lines[2] != want {
		t.Errorf("toolchain line %q, want %q", lines[2], want)
	}
}
