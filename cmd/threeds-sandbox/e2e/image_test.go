//go:build full

package e2e

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// maxImageBytes bounds the image: a static binary on scratch.
const maxImageBytes = 64 << 20

// buildah runs buildah on a storage of the test's own (vfs driver, in a
// temporary directory), so that the test neither sees nor leaves images
// on the machine, and runs beside other builds.
type buildah struct {
	bin    string
	global []string
}

// newBuildah finds buildah and makes the test's storage. buildah builds
// and runs images as root here; without root, or without buildah, the
// test is skipped, and fails under CI (.ci/run installs buildah and runs
// as root).
func newBuildah(t *testing.T) *buildah {
	t.Helper()
	bin := testkit.Need(t, "buildah", "buildah")
	if os.Geteuid() != 0 {
		if testkit.InCI() {
			t.Fatal("buildah builds images as root here, and CI runs the tests as a user")
		}
		t.Skip("buildah builds images as root here: skipped (the test fails instead when CI=true)")
	}
	dir := t.TempDir()
	b := &buildah{bin: bin, global: []string{"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "run"), "--storage-driver", "vfs"}}
	// Containers go before the directory does (t.TempDir's cleanup runs
	// after this one): buildah unmounts them.
	t.Cleanup(func() {
		if out, err := b.command("rm", "--all").CombinedOutput(); err != nil {
			t.Errorf("buildah rm --all: %v\n%s", err, out)
		}
		if out, err := b.command("rmi", "--all", "--force").CombinedOutput(); err != nil {
			t.Errorf("buildah rmi --all: %v\n%s", err, out)
		}
	})
	return b
}

// command is a buildah command on the test's storage.
func (b *buildah) command(args ...string) *exec.Cmd {
	return exec.Command(b.bin, append(slices.Clone(b.global), args...)...)
}

// run runs a buildah command and returns its standard output, trimmed.
func (b *buildah) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := b.command(args...)
	var stderr testkit.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("buildah %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// builderBase is the image the Dockerfile's build stage starts FROM, e.g.
// docker.io/library/golang:1.26-bookworm. It must be named in full
// (registry, namespace, name): podman and buildah refuse a short name
// such as golang:1.26-bookworm unless a registries configuration says
// where to look.
func builderBase(t *testing.T, dockerfile string) string {
	t.Helper()
	m := regexp.MustCompile(`(?mi)^FROM\s+(\S+)\s+AS\s+build\s*$`).FindStringSubmatch(dockerfile)
	if m == nil {
		t.Fatal("the Dockerfile has no stage FROM ... AS build")
	}
	registry, rest, _ := strings.Cut(m[1], "/")
	if !strings.ContainsAny(registry, ".:") || !strings.Contains(rest, "/") {
		t.Errorf("the build stage's base %q is a short name; name it in full, e.g. docker.io/library/%s", m[1], m[1])
	}
	return m[1]
}

// standIn makes an image to stand in for the build stage's base (the
// registries of base images are out of reach here), under the full name
// the Dockerfile's FROM gives it: a static busybox for the shell
// of RUN, the CA bundle for the module proxy, the environment of the
// official golang images (GOPATH /go, the toolchain in /usr/local/go on
// the PATH), and an empty /usr/local/go, where the build mounts this
// machine's Go toolchain (see goroot) rather than copy 270 MB into an
// image.
func (b *buildah) standIn(t *testing.T, name string) {
	t.Helper()
	busybox := testkit.Need(t, "busybox", "busybox-static", "/bin/busybox")
	if f, err := elf.Open(busybox); err != nil {
		t.Fatalf("%s: %v", busybox, err)
	} else {
		dynamic := slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
		f.Close()
		if dynamic {
			t.Fatalf("%s is linked dynamically; the stand-in has no libc (apt-get install busybox-static)", busybox)
		}
	}
	c := b.run(t, "from", "--pull=never", "scratch")
	root := b.run(t, "mount", c)
	for _, d := range []string{"usr/local/go", "bin", "etc/ssl", "root", "go", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	copyTree(t, busybox, filepath.Join(root, "bin/busybox"))
	for _, applet := range []string{"sh", "ls", "cat", "mkdir", "rm", "cp", "mv", "env"} {
		if err := os.Symlink("busybox", filepath.Join(root, "bin", applet)); err != nil {
			t.Fatal(err)
		}
	}
	copyTree(t, "/etc/ssl/certs", filepath.Join(root, "etc/ssl/certs"))
	b.run(t, "umount", c)
	b.run(t, "config", "--env", "PATH=/go/bin:/usr/local/go/bin:/bin", "--env", "GOPATH=/go", "--env", "GOTOOLCHAIN=local",
		"--env", "HOME=/root", "--workingdir", "/go", c)
	b.run(t, "commit", "--quiet", "--format", "docker", c, name)
	b.run(t, "rm", c)
}

// copyTree copies a file or a directory tree, following symbolic links
// (the CA bundle is links into /usr/share), keeping modes.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	out, err := exec.Command("cp", "-RL", "--preserve=mode", from, to).CombinedOutput()
	if err != nil {
		t.Fatalf("cp %s %s: %v\n%s", from, to, err, out)
	}
}

// imageConfig is the part of buildah inspect's output the test reads.
type imageConfig struct {
	Manifest string
	Docker   struct {
		Config dockerConfig `json:"config"`
	}
}

// dockerConfig is how an image runs: the settings its Dockerfile gives.
type dockerConfig struct {
	User         string
	Env          []string
	Entrypoint   []string
	Cmd          []string
	ExposedPorts map[string]struct{}
	Labels       map[string]string
	Healthcheck  *struct {
		Test                           []string
		Interval, Timeout, StartPeriod time.Duration
		Retries                        int
	}
}

// size is the bytes of the image's layers (uncompressed).
func (c imageConfig) size(t *testing.T) (total int64, layers int) {
	t.Helper()
	var m struct{ Layers []struct{ Size int64 } }
	if err := json.Unmarshal([]byte(c.Manifest), &m); err != nil {
		t.Fatalf("the image's manifest: %v", err)
	}
	for _, l := range m.Layers {
		total += l.Size
	}
	return total, len(m.Layers)
}

// TestImage builds the image from the repository's Dockerfile, as
// "docker build ." does, with buildah, and runs it: /readyz answers, a
// lookup and an enquiry are served, the README's Quick start works against
// it from a directory without a checkout, the HEALTHCHECK's command exits
// 0 inside it (and 1 once the sandbox is stopped), the sandbox runs as the
// non-root user the image names, a TLS store is reached with a CA file
// mounted into it, and SIGTERM stops it cleanly. The image's size is
// reported. Only the build stage's base is a stand-in (see standIn), into
// whose RUN steps this machine's Go toolchain is mounted; the host's
// module and build caches are lent to the build, as a BuildKit cache mount
// would, to keep it within a minute.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the image")
	}
	t.Parallel()
	b := newBuildah(t)
	dockerfile, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	base := builderBase(t, string(dockerfile))
	b.standIn(t, base)
	goroot, modcache, gocache := goEnv(t, "GOROOT"), goEnv(t, "GOMODCACHE"), goEnv(t, "GOCACHE")
	t.Logf("the build stage's base %s stands in as busybox, the CA bundle and %s", base, runtimeGoroot(t))

	image := fmt.Sprintf("localhost/threeds-sandbox:e2e-%d", time.Now().UnixNano())
	start := time.Now()
	b.run(t, "bud", "--isolation", "chroot", "--network", "host", "--pull=never", "--format", "docker",
		"--volume", goroot+":/usr/local/go:ro",
		"--volume", modcache+":/go/pkg/mod", "--volume", gocache+":/root/.cache/go-build",
		"--file", filepath.Join(repoRoot, "Dockerfile"), "--tag", image, repoRoot)
	built := time.Since(start)

	var inspected []imageConfig
	if err := json.Unmarshal([]byte("["+b.run(t, "inspect", "--type", "image", image)+"]"), &inspected); err != nil {
		t.Fatalf("buildah inspect: %v", err)
	}
	cfg := inspected[0].Docker.Config
	size, layers := inspected[0].size(t)
	t.Logf("image %s built from the Dockerfile in %s: %.1f MB (%d bytes) in %d layer(s), uncompressed", image, built.Round(time.Second), float64(size)/1e6, size, layers)
	if size > maxImageBytes {
		t.Errorf("the image has %d bytes, want at most %d: a static binary on scratch", size, maxImageBytes)
	}
	uid := checkImageConfig(t, cfg.User, cfg.Entrypoint, cfg.Env, cfg.ExposedPorts)
	if cfg.Healthcheck == nil || len(cfg.Healthcheck.Test) < 2 || cfg.Healthcheck.Test[0] != "CMD" {
		t.Fatalf("the image keeps no HEALTHCHECK with a command (built without --format docker?): %+v", cfg.Healthcheck)
	}
	healthcheck := cfg.Healthcheck.Test[1:]
	if got, want := strings.Join(healthcheck, " "), "/threeds-sandbox healthcheck"; got != want {
		t.Errorf("HEALTHCHECK runs %q, want %q", got, want)
	}
	if got := cfg.Labels["org.opencontainers.image.licenses"]; got != "Apache-2.0" {
		t.Errorf("label org.opencontainers.image.licenses %q, want Apache-2.0", got)
	}
	checkImageFiles(t, b, image, cfg.Entrypoint[0])
	checkReleaseImage(t, b, image, cfg)

	c := b.run(t, "from", "--pull=never", image)
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	root := "http://" + addr
	runIn := func(env []string, cmd ...string) *exec.Cmd {
		args := []string{"run", "--isolation", "chroot", "--network", "host"}
		for _, e := range env {
			args = append(args, "--env", e)
		}
		return b.command(append(append(args, c, "--"), cmd...)...)
	}
	sandbox := startProcess(t, runIn([]string{"THREEDS_ADDR=" + addr, "THREEDS_DRAIN_DELAY=0"}, append(cfg.Entrypoint, cfg.Cmd...)...))
	waitProcessReady(t, sandbox, root, testkit.Patience)

	pid := descendant(t, sandbox.cmd.Process.Pid, "threeds-sandbox")
	if got := processUID(t, pid); got != uid || got == 0 {
		t.Errorf("the sandbox runs as uid %d, want %d (the image's USER), not root", got, uid)
	}
	checkLookupAndEnquiry(t, root)
	runQuickStart(t, root)
	if out, err := runIn([]string{"THREEDS_ADDR=" + addr}, healthcheck...).CombinedOutput(); err != nil {
		t.Errorf("the HEALTHCHECK command exits %d with the sandbox up: %s", exitStatus(err), out)
	}

	t.Run("TLS store", func(t *testing.T) { checkImageTLSStore(t, runIn) })

	// SIGTERM, as docker stop sends it: the sandbox drains and exits 0.
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	if err := sandbox.wait(testkit.Patience); err != nil {
		t.Errorf("after SIGTERM the container ended with %v, want exit 0", err)
	}
	if out, err := runIn([]string{"THREEDS_ADDR=" + addr}, healthcheck...).CombinedOutput(); exitStatus(err) != 1 {
		t.Errorf("the HEALTHCHECK command exits %d with the sandbox stopped, want 1: %s", exitStatus(err), out)
	}
}

// checkImageHealthcheck reads image's configuration back (buildah
// inspect) and checks that it kept the HEALTHCHECK, which an image of
// the OCI format, buildah's default, drops.
func checkImageHealthcheck(t *testing.T, b *buildah, image string) {
	t.Helper()
	var inspected []imageConfig
	if err := json.Unmarshal([]byte("["+b.run(t, "inspect", "--type", "image", image)+"]"), &inspected); err != nil {
		t.Fatalf("buildah inspect: %v", err)
	}
	hc := inspected[0].Docker.Config.Healthcheck
	if hc == nil || strings.Join(hc.Test, " ") != "CMD /threeds-sandbox healthcheck" {
		t.Errorf("%s keeps no HEALTHCHECK CMD /threeds-sandbox healthcheck (built without --format docker?): %+v", image, hc)
	}
}

// checkImageConfig checks what the image runs and as whom, and returns
// the uid of its USER.
func checkImageConfig(t *testing.T, user string, entrypoint, env []string, ports map[string]struct{}) int {
	t.Helper()
	if got, want := strings.Join(entrypoint, " "), "/threeds-sandbox"; got != want {
		t.Errorf("ENTRYPOINT %q, want %q", got, want)
	}
	if !slices.Contains(env, "THREEDS_ADDR=:8080") {
		t.Errorf("ENV %v lacks THREEDS_ADDR=:8080", env)
	}
	if _, ok := ports["8080/tcp"]; !ok {
		t.Errorf("EXPOSE %v lacks 8080/tcp", ports)
	}
	name, _, _ := strings.Cut(user, ":")
	uid, err := strconv.Atoi(name)
	if err != nil || uid == 0 {
		// scratch has no /etc/passwd: only a number names a user.
		t.Fatalf("USER %q, want a numeric user other than root", user)
	}
	return uid
}

// checkImageFiles checks that the image holds the binary and the
// repository's LICENSE, and nothing else: no shell, no package manager,
// nothing to patch.
func checkImageFiles(t *testing.T, b *buildah, image, binary string) {
	t.Helper()
	c := b.run(t, "from", "--pull=never", image)
	root := b.run(t, "mount", c)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, "/"+rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	b.run(t, "rm", c)
	if len(files) != 2 || files[0] != "/LICENSE" || files[1] != binary {
		t.Errorf("the image holds %v, want only /LICENSE and %s", files, binary)
	}
	if want, _ := os.ReadFile(filepath.Join(repoRoot, "LICENSE")); err != nil || !bytes.Equal(license, want) {
		t.Errorf("the image's /LICENSE is not the repository's: %v", err)
	}
}

// checkReleaseImage builds release.Dockerfile, the image a release makes
// of its binary, from the binary of image laid out as the release command
// lays it out (linux/amd64/threeds-sandbox), and checks that it runs the
// same way: the same user, environment, port, entrypoint and
// health check, and nothing but the binary and its LICENSE.
func checkReleaseImage(t *testing.T, b *buildah, image string, want dockerConfig) {
	t.Helper()
	ctx := t.TempDir()
	c := b.run(t, "from", "--pull=never", image)
	root := b.run(t, "mount", c)
	platform := "linux/" + runtime.GOARCH
	if err := os.MkdirAll(filepath.Join(ctx, platform), 0o755); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(root, "threeds-sandbox"), filepath.Join(ctx, platform, "threeds-sandbox"))
	copyTree(t, filepath.Join(repoRoot, "LICENSE"), filepath.Join(ctx, "LICENSE"))
	b.run(t, "rm", c)
	release := image + "-release"
	b.run(t, "bud", "--isolation", "chroot", "--pull=never", "--format", "docker", "--build-arg", "TARGETPLATFORM="+platform,
		"--file", filepath.Join(repoRoot, "release.Dockerfile"), "--tag", release, ctx)
	var inspected []imageConfig
	if err := json.Unmarshal([]byte("["+b.run(t, "inspect", "--type", "image", release)+"]"), &inspected); err != nil {
		t.Fatalf("buildah inspect: %v", err)
	}
	got := inspected[0].Docker.Config
	if !reflect.DeepEqual(got, want) {
		t.Errorf("release.Dockerfile makes an image that runs otherwise than the Dockerfile's:\n got %+v\nwant %+v", got, want)
	}
	checkImageFiles(t, b, release, "/threeds-sandbox")
}

// checkImageTLSStore runs the image on a TLS-only Redis whose
// certificate a test authority signed: with the authority's certificate
// mounted and named by THREEDS_STORE_CA_FILE it serves; without it, it
// stops at start-up with exit code 2 and says why (the image has no CA
// file of its own).
func checkImageTLSStore(t *testing.T, runIn func(env []string, cmd ...string) *exec.Cmd) {
	ca := testkit.NewTestCA(t, "image test CA")
	srv := testkit.StartRedis(t, testkit.RedisOptions{TLS: ca})
	// The sandbox runs as a user of its own: the file must be readable.
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	copyTree(t, ca.File, caFile)
	if err := os.Chmod(caFile, 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	env := []string{"THREEDS_ADDR=" + addr, "THREEDS_DRAIN_DELAY=0", "THREEDS_STORE=" + srv.URL,
		"THREEDS_STATE_HASH_KEY=" + strings.Repeat("ab", 32), "THREEDS_STATE_BLOCK_KEY=" + strings.Repeat("cd", 32)}

	refused := runIn(env, "/threeds-sandbox")
	out, err := refused.CombinedOutput()
	if code := exitStatus(err); code != 2 || !strings.Contains(string(out), "the server's TLS certificate is not trusted") {
		t.Errorf("without a CA file: exit %d, want 2 and the reason:\n%s", code, out)
	}

	cmd := runIn(append(env, "THREEDS_STORE_CA_FILE=/run/ca.pem"), "/threeds-sandbox")
	cmd.Args = slices.Insert(cmd.Args, slices.Index(cmd.Args, "run")+1, "--volume", caFile+":/run/ca.pem:ro")
	p := startProcess(t, cmd)
	waitProcessReady(t, p, "http://"+addr, testkit.Patience)
	checkLookupAndEnquiry(t, "http://"+addr)
	if keys, err := srv.Query("KEYS", "3ds:t:*"); err != nil || keys == "" {
		t.Errorf("no transaction in the TLS store: %q, %v", keys, err)
	}
	if err := syscall.Kill(descendant(t, p.cmd.Process.Pid, "threeds-sandbox"), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.wait(testkit.Patience); err != nil {
		t.Errorf("after SIGTERM: %v, want exit 0", err)
	}
}

// descendant is the pid of the process called name (its comm) among the
// descendants of pid: the program buildah run started in the container.
func descendant(t *testing.T, pid int, name string) int {
	t.Helper()
	found := 0
	testkit.Eventually(t, fmt.Sprintf("a process %s under pid %d", name, pid), func() bool {
		found = findDescendant(pid, name)
		return found > 0
	})
	return found
}

// findDescendant is the pid of a process called name among the
// descendants of pid, or 0.
func findDescendant(pid int, name string) int {
	parents := map[int]int{}
	comms := map[int]string{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		fields := strings.Fields(s[end+1:])
		if open < 0 || end < open || len(fields) < 2 {
			continue
		}
		comms[p] = s[open+1 : end]
		parents[p], _ = strconv.Atoi(fields[1])
	}
	for p, comm := range comms {
		if comm != name {
			continue
		}
		for q := parents[p]; q > 1; q = parents[q] {
			if q == pid {
				return p
			}
		}
	}
	return 0
}

// processUID is the real uid of a process.
func processUID(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
			uid, _ := strconv.Atoi(strings.Fields(rest)[0])
			return uid
		}
	}
	t.Fatalf("no Uid in /proc/%d/status", pid)
	return -1
}

// goEnv is a setting of the go command.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env %s: %q %v", name, out, err)
	}
	return strings.TrimSpace(string(out))
}

// runtimeGoroot names the toolchain the stand-in copies.
func runtimeGoroot(t *testing.T) string {
	t.Helper()
	out, _ := exec.Command("go", "version").Output()
	return strings.TrimSpace(string(out)) + " at " + goEnv(t, "GOROOT")
}
