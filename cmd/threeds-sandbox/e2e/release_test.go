//go:build full

package e2e

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// snapshotPlatforms are the platforms CI's snapshot builds: this
// machine's, and one of the other system and the other architecture, so
// that a build for another target is checked too. A release builds every
// platform of cmd/release (go run ./cmd/release).
var snapshotPlatforms = []struct{ os, arch string }{
	{runtime.GOOS, runtime.GOARCH}, {"windows", "arm64"},
}

// schemaAsset is the release's complete scenario schema (cmd/release
// SchemaAsset), which the scenario files' schema lines point at.
const schemaAsset = "scenario.schema.json"

// TestReleaseSnapshot builds a release as CI can, without publishing: go
// run ./cmd/release for this machine's platform and Windows on arm64, in a
// clone of the checkout (the committed tree, as a release is). Each
// platform has its archive with the binary, the LICENSE and the README, each binary is
// built for its platform, checksums.txt holds each archive's SHA-256 and
// that of scenario.schema.json, notes.md holds CHANGELOG.md's Unreleased
// notes, the image's context holds the Linux
// binary beside its Dockerfile (a copy of release.Dockerfile) and builds
// with buildah bud dist/image without a pull, and the binary of this
// machine's archive prints the commit it was built from, serves the
// release's scenario.schema.json at /scenarios/schema.json and serves the
// README's Quick start.
func TestReleaseSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries of two release platforms")
	}
	t.Parallel()
	git := testkit.Need(t, "git", "git")
	dir := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command(git, "clone", "--quiet", "--no-hardlinks", repoRoot, dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command(git, "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(head))

	var list []string
	for _, p := range snapshotPlatforms {
		list = append(list, p.os+"/"+p.arch)
	}
	start := time.Now()
	cmd := exec.Command("go", "run", "./cmd/release", "-platforms", strings.Join(list, ","))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./cmd/release: %v\n%s", err, out)
	} else {
		t.Logf("release snapshot of %s in %s:\n%s", strings.Join(list, ", "), time.Since(start).Round(time.Second), out)
	}

	dist := filepath.Join(dir, "dist")
	sums := readChecksums(t, filepath.Join(dist, "checksums.txt"))
	if len(sums) != len(snapshotPlatforms)+1 {
		t.Errorf("checksums.txt lists %d files, want the %d archives and %s: %v", len(sums), len(snapshotPlatforms), schemaAsset, sums)
	}
	if got, want := sums[schemaAsset], sha256File(t, filepath.Join(dist, schemaAsset)); got != want {
		t.Errorf("%s: checksums.txt says %q, the file's SHA-256 is %s", schemaAsset, got, want)
	}
	notes, err := os.ReadFile(filepath.Join(dist, "notes.md"))
	if changelog, _ := os.ReadFile(filepath.Join(dir, "CHANGELOG.md")); err != nil || len(notes) < 2 || !bytes.Contains(changelog, notes[:len(notes)-1]) {
		t.Errorf("notes.md: %v; want the Unreleased notes of CHANGELOG.md:\n%s", err, notes)
	}
	var host string // the binary of this machine's archive
	for _, p := range snapshotPlatforms {
		matches, _ := filepath.Glob(filepath.Join(dist, fmt.Sprintf("threeds-sandbox_*_%s_%s.*", p.os, p.arch)))
		if len(matches) != 1 {
			t.Errorf("%s/%s: archives %v, want one", p.os, p.arch, matches)
			continue
		}
		archive := matches[0]
		if got, want := sums[filepath.Base(archive)], sha256File(t, archive); got != want {
			t.Errorf("%s: checksums.txt says %q, the file's SHA-256 is %s", filepath.Base(archive), got, want)
		}
		bin := "threeds-sandbox"
		if p.os == "windows" {
			bin += ".exe"
		}
		out := filepath.Join(t.TempDir(), bin)
		files := unpack(t, archive, bin, out)
		if len(files) != 3 || files[0] != "LICENSE" || files[1] != "README.md" || files[2] != bin {
			t.Errorf("%s holds %v, want LICENSE, README.md and %s", filepath.Base(archive), files, bin)
		}
		if got := binaryPlatform(t, out); got != p.os+"/"+p.arch {
			t.Errorf("%s: the binary is for %s, want %s/%s", filepath.Base(archive), got, p.os, p.arch)
		}
		if p.os == runtime.GOOS && p.arch == runtime.GOARCH {
			host = out
		}
	}
	if host == "" {
		t.Fatalf("no archive for this machine, %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if runtime.GOOS == "linux" {
		for _, f := range []string{"Dockerfile", "LICENSE", filepath.Join("linux", runtime.GOARCH, "threeds-sandbox")} {
			if _, err := os.Stat(filepath.Join(dist, "image", f)); err != nil {
				t.Errorf("the image's context lacks %s: %v", f, err)
			}
		}
		t.Run("the image from dist/image, with no pull", func(t *testing.T) { checkReleaseContext(t, dist, commit) })
	}

	version, err := exec.Command(host, "version").Output()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	if v := string(version); !strings.Contains(v, commit[:12]) || !strings.Contains(v, "\nrevision "+commit+", ") {
		t.Errorf("the released binary's version does not name the commit %s it was built from:\n%s", commit, v)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	run := exec.Command(host)
	run.Env = append(os.Environ(), "THREEDS_ADDR="+addr, "THREEDS_DRAIN_DELAY=0")
	sandbox := startProcess(t, run)
	waitProcessReady(t, sandbox, "http://"+addr, testkit.Patience)
	checkServedSchema(t, "http://"+addr, filepath.Join(dist, schemaAsset))
	runQuickStart(t, "http://"+addr)
	_ = run.Process.Signal(syscall.SIGTERM)
	if err := sandbox.wait(testkit.Patience); err != nil {
		t.Errorf("the released binary after SIGTERM: %v, want exit 0", err)
	}
}

// checkReleaseContext builds the image from the release's context as
// docs/install.md says, buildah bud --format docker dist/image, with
// nothing to pull (its base is scratch; --pull=never proves it): the
// image keeps its health check and holds the release's binary alone,
// which names the commit it was built from.
func checkReleaseContext(t *testing.T, dist, commit string) {
	b := newBuildah(t)
	image := releaseImage(t) + ":snapshot"
	b.run(t, "bud", "--isolation", "chroot", "--pull=never", "--format", "docker", "--tag", image, filepath.Join(dist, "image"))
	checkImageHealthcheck(t, b, image)
	checkImageFiles(t, b, image, "/threeds-sandbox")
	c := b.run(t, "from", "--pull=never", image)
	out := b.run(t, "run", "--isolation", "chroot", c, "--", "/threeds-sandbox", "version")
	if !strings.Contains(out, "\nrevision "+commit+", ") {
		t.Errorf("the image's binary does not name the commit %s:\n%s", commit, out)
	}
}

// checkServedSchema: the sandbox at base serves at /scenarios/schema.json
// the bytes of the release's schema file, so that an editor gets the same
// schema from either.
func checkServedSchema(t *testing.T, base, file string) {
	t.Helper()
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(base + "/scenarios/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("GET /scenarios/schema.json: %d, %d bytes, want 200 and the %d bytes of %s", resp.StatusCode, len(got), len(want), filepath.Base(file))
	}
}

// readChecksums reads a sha256sum file: file name -> hex sum.
func readChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt: line %q is not \"SUM  FILE\"", sc.Text())
		}
		sums[name] = sum
	}
	return sums
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// unpack lists the files of a .tar.gz or .zip archive, sorted as stored,
// and writes the one called name to out (executable).
func unpack(t *testing.T, archive, name, out string) []string {
	t.Helper()
	var files []string
	save := func(r io.Reader) {
		w, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, r); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if strings.HasSuffix(archive, ".zip") {
		z, err := zip.OpenReader(archive)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		for _, f := range z.File {
			files = append(files, f.Name)
			if f.Name == name {
				r, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				save(r)
				r.Close()
			}
		}
		return files
	}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		files = append(files, h.Name)
		if h.Name == name {
			save(tr)
		}
	}
	return files
}

// binaryPlatform reads the os/arch an executable is built for from its
// headers: ELF for Linux, Mach-O for macOS, PE for Windows.
func binaryPlatform(t *testing.T, path string) string {
	t.Helper()
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		return "linux/" + map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
	}
	if f, err := macho.Open(path); err == nil {
		defer f.Close()
		return "darwin/" + map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	}
	if f, err := pe.Open(path); err == nil {
		defer f.Close()
		return "windows/" + map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	return "unknown"
}
