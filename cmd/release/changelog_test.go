package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const changelog = `# Changelog

The format is [Keep a Changelog](https://keepachangelog.com/en/1.1.0/).

## [Unreleased]

### Fixed

- Not yet released.

## [1.2.0] - 2026-12-01

### Added

- The notes of 1.2.0.

## [v1.1.0] - 2026-11-01

## [1.0.0] - 2026-10-01

- The first.

[Unreleased]: https://github.com/threeds-sandbox/threeds-sandbox/compare/v1.2.0...HEAD
[1.2.0]: https://github.com/threeds-sandbox/threeds-sandbox/compare/v1.1.0...v1.2.0
`

// TestReleaseNotes: a release's notes are its version's section of the
// changelog, a snapshot's those of Unreleased; a version without a
// section, or with an empty one, fails with what to write.
func TestReleaseNotes(t *testing.T) {
	for _, tt := range []struct {
		version, want, err string
	}{
		{"1.2.0", "### Added\n\n- The notes of 1.2.0.\n", ""},
		{"1.0.0", "- The first.\n", ""}, // the link definitions below belong to no section
		{"0.0.0-snapshot-0123456789ab", "### Fixed\n\n- Not yet released.\n", ""},
		{"1.3.0", "", `CHANGELOG.md has no section for version 1.3.0: rename "## [Unreleased]" to "## [1.3.0] - YYYY-MM-DD"`},
		{"1.1.0", "", "CHANGELOG.md: the section of 1.1.0 is empty"},
		{"1.2", "", "no section for version 1.2:"},
	} {
		got, err := releaseNotes([]byte(changelog), tt.version)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("notes of %s: %q, %v; want %q, an error with %q", tt.version, got, err, tt.want, tt.err)
		}
	}
	if _, err := releaseNotes([]byte("# Changelog\n"), "0.0.0-snapshot-0123456789ab"); err == nil || !strings.Contains(err.Error(), `no "## [Unreleased]" section`) {
		t.Errorf("a snapshot without Unreleased: %v", err)
	}
}

// TestReleaseNotesComeFromTheChangelog: the repository's CHANGELOG.md
// gives a snapshot its notes (TestReleaseSnapshot finds them in the
// release's notes.md); a release of a version it lacks stops at once,
// before any build, and says so.
func TestReleaseNotesComeFromTheChangelog(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", Changelog))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "[Keep a Changelog](https://keepachangelog.com/") || !strings.Contains(string(raw), "\n## [Unreleased]\n") {
		t.Errorf("%s is not in the format of Keep a Changelog, with an Unreleased section", Changelog)
	}
	r := &release{version: "0.0.0-snapshot-0123456789ab", root: filepath.Join("..", "..")}
	notes, err := r.notes()
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(raw), "\n## [Unreleased]\n")
	section, _, _ = strings.Cut(section, "\n## ")
	section, _, _ = strings.Cut(section, "\n[Unreleased]: ")
	if want := strings.TrimSpace(section) + "\n"; notes != want || len(notes) < 100 {
		t.Errorf("the snapshot's notes:\n%s\nwant Unreleased's of %s:\n%s", notes, Changelog, want)
	}

	t.Chdir(filepath.Join("..", ".."))
	dist := filepath.Join(t.TempDir(), "dist")
	err = run(context.Background(), []string{"-version", "v999.0.0", "-dist", dist, "-platforms", "linux/amd64"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "CHANGELOG.md has no section for version 999.0.0") {
		t.Errorf("a release of a version CHANGELOG.md lacks: %v, want it refused by name", err)
	}
	if _, err := os.Stat(filepath.Join(dist, "bin")); !os.IsNotExist(err) {
		t.Errorf("the refused release built binaries: %v", err)
	}
}
