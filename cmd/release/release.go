package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// SchemaAsset is the release's file of the complete scenario schema
// (scenarios.Schema: the base with every challenge style's part), which
// the scenario files' yaml-language-server lines point at through the
// releases/latest/download address.
const SchemaAsset = "scenario.schema.json"

// shipped are the repository's files every archive and the release
// image carry beside the binary: the licence, then the README.
var shipped = []string{"LICENSE", "README.md"}

// release is one release being built.
type release struct {
	dist, version string
	platforms     []string
	commitTime    time.Time // the time of every archive entry
	// root is the repository's root, where the shipped files,
	// release.Dockerfile and CHANGELOG.md are read.
	root string
}

// newRelease checks the platforms and finds the version and the commit's
// time.
func newRelease(ctx context.Context, dist, version string, platforms []string) (*release, error) {
	if len(platforms) == 0 {
		return nil, fmt.Errorf("no platform to build")
	}
	for _, p := range platforms {
		if !slices.Contains(Platforms, p) {
			return nil, fmt.Errorf("platform %q is not one of a release's: %s", p, strings.Join(Platforms, ", "))
		}
	}
	stamp, err := git(ctx, "log", "-1", "--format=%ct")
	if err != nil {
		return nil, err
	}
	secs, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("the commit's time %q: %w", stamp, err)
	}
	if version == "" {
		if tag, err := git(ctx, "describe", "--tags", "--exact-match", "--match", "v*"); err == nil {
			version = tag
		} else {
			short, err := git(ctx, "rev-parse", "--short=12", "HEAD")
			if err != nil {
				return nil, err
			}
			version = "0.0.0-snapshot-" + short
		}
	}
	return &release{dist: dist, version: strings.TrimPrefix(version, "v"), platforms: platforms, commitTime: time.Unix(secs, 0).UTC(), root: "."}, nil
}

// git runs git with args and returns its output, trimmed.
func git(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// build builds every platform's archive, the checksums, the notes and
// the image's context.
func (r *release) build(ctx context.Context, out io.Writer) error {
	if err := os.RemoveAll(r.dist); err != nil {
		return err
	}
	if err := os.MkdirAll(r.dist, 0o755); err != nil {
		return err
	}
	// The notes first: a version the changelog lacks fails before any build.
	notes, err := r.notes()
	if err != nil {
		return err
	}
	docs, err := r.shippedFiles()
	if err != nil {
		return err
	}
	var archives []string
	for _, p := range r.platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		path := filepath.Join(r.dist, "bin", p, binaryName(goos))
		start := time.Now()
		if err := goBuild(ctx, goos, goarch, path); err != nil {
			return err
		}
		bin, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name, err := r.writeArchive(goos, goarch, docs, bin)
		if err != nil {
			return err
		}
		archives = append(archives, name)
		fmt.Fprintf(out, "%s (%s)\n", name, time.Since(start).Round(time.Millisecond))
	}
	if err := r.writeAssets(archives); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.dist, NotesAsset), []byte(notes), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: the notes of %s from %s\n", NotesAsset, r.version, Changelog)
	return r.imageContext(out)
}

// binaryName is the file name of the binary for goos.
func binaryName(goos string) string {
	if goos == "windows" {
		return "threeds-sandbox.exe"
	}
	return "threeds-sandbox"
}

// shippedFiles reads the shipped files from the repository's root.
func (r *release) shippedFiles() ([]archiveFile, error) {
	var files []archiveFile
	for _, name := range shipped {
		data, err := os.ReadFile(filepath.Join(r.root, name))
		if err != nil {
			return nil, fmt.Errorf("run from the repository's root: %w", err)
		}
		files = append(files, archiveFile{name, data, 0o644})
	}
	return files, nil
}

// writeArchive writes the archive of goos/goarch into dist: the shipped
// files docs, then the binary bin; a zip for Windows, a gzipped tar for
// the others. It returns the archive's name.
func (r *release) writeArchive(goos, goarch string, docs []archiveFile, bin []byte) (string, error) {
	name := fmt.Sprintf("threeds-sandbox_%s_%s_%s", r.version, goos, goarch)
	files := append(slices.Clone(docs), archiveFile{binaryName(goos), bin, 0o755})
	var err error
	if goos == "windows" {
		name += ".zip"
		err = writeZip(filepath.Join(r.dist, name), files, r.commitTime)
	} else {
		name += ".tar.gz"
		err = writeTarGz(filepath.Join(r.dist, name), files, r.commitTime)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return name, nil
}

// writeAssets writes the files a release publishes beside the archives:
// the scenario schema, then checksums.txt of the archives and the schema.
func (r *release) writeAssets(archives []string) error {
	if err := os.WriteFile(filepath.Join(r.dist, SchemaAsset), scenarios.Schema(), 0o644); err != nil {
		return fmt.Errorf("%s: %w", SchemaAsset, err)
	}
	return r.writeChecksums(append(slices.Clone(archives), SchemaAsset))
}

// goBuild builds the binary for goos/goarch into path, as a release
// ships it: no cgo, no local paths, the VCS stamp kept whatever GOFLAGS
// says, no symbol tables.
func goBuild(ctx context.Context, goos, goarch, path string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=true", "-ldflags", "-s -w", "-o", path, "./cmd/threeds-sandbox")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s/%s: %w\n%s", goos, goarch, err, out)
	}
	return nil
}

// archiveFile is one file of an archive.
type archiveFile struct {
	name string
	data []byte
	mode int64
}

// writeTarGz writes files into a gzipped tar, owned by root, dated at.
func writeTarGz(path string, files []archiveFile, at time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, file := range files {
		h := &tar.Header{Name: file.name, Mode: file.mode, Size: int64(len(file.data)), ModTime: at, Format: tar.FormatPAX, Typeflag: tar.TypeReg}
		if err = tw.WriteHeader(h); err != nil {
			break
		}
		if _, err = tw.Write(file.data); err != nil {
			break
		}
	}
	for _, c := range []io.Closer{tw, gz, f} {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// writeZip writes files into a zip archive, dated at.
func writeZip(path string, files []archiveFile, at time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, file := range files {
		h := &zip.FileHeader{Name: file.name, Method: zip.Deflate, Modified: at}
		h.SetMode(os.FileMode(file.mode))
		var w io.Writer
		if w, err = zw.CreateHeader(h); err != nil {
			break
		}
		if _, err = w.Write(file.data); err != nil {
			break
		}
	}
	for _, c := range []io.Closer{zw, f} {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// writeChecksums writes checksums.txt: each file's SHA-256 and name,
// as sha256sum prints them, so that `sha256sum -c checksums.txt` checks
// a download.
func (r *release) writeChecksums(archives []string) error {
	var b strings.Builder
	for _, name := range archives {
		raw, err := os.ReadFile(filepath.Join(r.dist, name))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	return os.WriteFile(filepath.Join(r.dist, "checksums.txt"), []byte(b.String()), 0o644)
}

// imageContext lays out the Linux binaries for release.Dockerfile in
// dist/image (one directory per platform, as TARGETPLATFORM names it),
// beside the LICENSE the image carries, and says how to build the image.
func (r *release) imageContext(out io.Writer) error {
	var linux []string
	for _, p := range r.platforms {
		if strings.HasPrefix(p, "linux/") {
			linux = append(linux, p)
		}
	}
	if len(linux) == 0 {
		return nil
	}
	image := filepath.Join(r.dist, "image")
	if err := os.MkdirAll(image, 0o755); err != nil {
		return err
	}
	for from, to := range map[string]string{"release.Dockerfile": "Dockerfile", "LICENSE": "LICENSE"} {
		raw, err := os.ReadFile(filepath.Join(r.root, from))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(image, to), raw, 0o644); err != nil {
			return err
		}
	}
	for _, p := range linux {
		if err := os.MkdirAll(filepath.Join(image, p), 0o755); err != nil {
			return err
		}
		bin, err := os.ReadFile(filepath.Join(r.dist, "bin", p, "threeds-sandbox"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(image, p, "threeds-sandbox"), bin, 0o755); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "image: docker buildx build --platform %s -t %s:%s %s\n",
		strings.Join(linux, ","), Image, r.version, image)
	return nil
}
