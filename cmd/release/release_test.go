package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// TestArchivesAreRepeatable: the same files make the same archive bytes,
// dated at the commit, with the binary executable and README readable.
func TestArchivesAreRepeatable(t *testing.T) {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	files := []archiveFile{{"README.md", []byte("# readme\n"), 0o644}, {"threeds-sandbox", []byte("\x7fELF..."), 0o755}}
	dir := t.TempDir()
	for _, tt := range []struct {
		name  string
		write func(string, []archiveFile, time.Time) error
		read  func(*testing.T, string) map[string]string
	}{
		{"a.tar.gz", writeTarGz, readTarGz},
		{"a.zip", writeZip, readZip},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := filepath.Join(dir, "1-"+tt.name), filepath.Join(dir, "2-"+tt.name)
			for _, p := range []string{a, b} {
				if err := tt.write(p, files, at); err != nil {
					t.Fatal(err)
				}
			}
			ra, _ := os.ReadFile(a)
			rb, _ := os.ReadFile(b)
			if !bytes.Equal(ra, rb) {
				t.Error("two builds of the same archive differ")
			}
			got := tt.read(t, a)
			want := map[string]string{"README.md": "-rw-r--r-- # readme\n", "threeds-sandbox": "-rwxr-xr-x \x7fELF..."}
			for name, w := range want {
				if got[name] != w {
					t.Errorf("%s: %q, want %q", name, got[name], w)
				}
			}
		})
	}
}

func readTarGz(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = h.FileInfo().Mode().String() + " " + string(b)
	}
}

func readZip(t *testing.T, path string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = f.Mode().String() + " " + string(b)
	}
	return out
}

// TestPlatforms: a release covers Linux, macOS and Windows on amd64 and
// arm64, and refuses a platform it does not make.
func TestPlatforms(t *testing.T) {
	for _, os := range []string{"linux", "darwin", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			found := false
			for _, p := range Platforms {
				found = found || p == os+"/"+arch
			}
			if !found {
				t.Errorf("the release lacks %s/%s", os, arch)
			}
		}
	}
	err := run(context.Background(), []string{"-platforms", "plan9/386", "-dist", t.TempDir()}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "plan9/386") {
		t.Errorf("an unknown platform: %v, want it refused by name", err)
	}
}

// TestReleasePublishesTheSchema: beside the archives a release holds
// scenario.schema.json, the complete schema the sandbox serves (every
// challenge style's part included), and checksums.txt covers it like the
// archives, as sha256sum prints them.
func TestReleasePublishesTheSchema(t *testing.T) {
	r := &release{dist: t.TempDir()}
	archives := []string{"threeds-sandbox_1.2.0_linux_amd64.tar.gz", "threeds-sandbox_1.2.0_windows_arm64.zip"}
	for i, name := range archives {
		if err := os.WriteFile(filepath.Join(r.dist, name), []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.writeAssets(archives); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(r.dist, SchemaAsset))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, scenarios.Schema()) {
		t.Errorf("%s is not scenarios.Schema()", SchemaAsset)
	}
	sums, err := os.ReadFile(filepath.Join(r.dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, name := range append(archives, SchemaAsset) {
		raw, err := os.ReadFile(filepath.Join(r.dist, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		fmt.Fprintf(&want, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if string(sums) != want.String() {
		t.Errorf("checksums.txt:\n%s\nwant the archives and %s:\n%s", sums, SchemaAsset, want.String())
	}
}

// TestReleaseShipsTheLicense: every archive holds the repository's
// LICENSE and README beside the binary, and the release image's context
// holds the LICENSE, which both Dockerfiles copy into the image.
func TestReleaseShipsTheLicense(t *testing.T) {
	license, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(license, []byte("Apache License\n                           Version 2.0, January 2004")) {
		t.Fatal("LICENSE is not the Apache License 2.0")
	}
	r := &release{dist: t.TempDir(), version: "1.2.0", root: "../.."}
	docs, err := r.shippedFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		goos string
		read func(*testing.T, string) map[string]string
	}{
		{"linux", readTarGz},
		{"windows", readZip},
	} {
		name, err := r.writeArchive(tt.goos, "arm64", docs, []byte("\x7fELF..."))
		if err != nil {
			t.Fatal(err)
		}
		got := tt.read(t, filepath.Join(r.dist, name))
		if len(got) != 3 || got["LICENSE"] != "-rw-r--r-- "+string(license) || got[binaryName(tt.goos)] == "" {
			t.Errorf("%s holds %d files, want LICENSE, README.md and %s", name, len(got), binaryName(tt.goos))
		}
	}

	r.platforms = []string{"linux/amd64"}
	bin := filepath.Join(r.dist, "bin", "linux", "amd64", "threeds-sandbox")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("\x7fELF..."), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.imageContext(io.Discard); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(r.dist, "image", "LICENSE")); err != nil || !bytes.Equal(got, license) {
		t.Errorf("the image's context: LICENSE %v, want the repository's", err)
	}
	for _, dockerfile := range []string{"../../Dockerfile", "../../release.Dockerfile"} {
		raw, err := os.ReadFile(dockerfile)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), "\nCOPY LICENSE /LICENSE\n") {
			t.Errorf("%s does not copy the LICENSE into the image", dockerfile)
		}
	}
}
