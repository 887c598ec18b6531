package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Changelog is the file a release's notes come from, in the format of
// Keep a Changelog: a "## [1.2.0] - 2026-12-01" heading per version,
// newest first, under "## [Unreleased]".
const Changelog = "CHANGELOG.md"

// NotesAsset is the file of the release's notes in dist, for the release
// page.
const NotesAsset = "notes.md"

// unreleased is the section of the changes not yet released, the notes
// of a snapshot.
const unreleased = "Unreleased"

// isSnapshot tells a snapshot's version, made when HEAD has no tag.
func isSnapshot(version string) bool { return strings.HasPrefix(version, "0.0.0-snapshot-") }

// releaseNotes returns the body of the section of version (without its
// "v") in changelog, trimmed: that of Unreleased for a snapshot. A
// version without a section, or with an empty one, is an error that says
// what to add.
func releaseNotes(changelog []byte, version string) (string, error) {
	want := version
	if isSnapshot(version) {
		want = unreleased
	}
	var (
		body  []string
		found bool
	)
	sc := bufio.NewScanner(bytes.NewReader(changelog))
	for sc.Scan() {
		line := sc.Text()
		if heading, ok := strings.CutPrefix(line, "## "); ok {
			if found {
				break
			}
			found = sectionName(heading) == want
			continue
		}
		if found && !isLinkDefinition(line) {
			body = append(body, line)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	notes := strings.TrimSpace(strings.Join(body, "\n"))
	switch {
	case !found && want == unreleased:
		return "", fmt.Errorf("%s has no \"## [%s]\" section for the notes of snapshot %s", Changelog, unreleased, version)
	case !found:
		return "", fmt.Errorf("%s has no section for version %s: rename \"## [%s]\" to \"## [%s] - YYYY-MM-DD\" (the release's date), "+
			"with its notes, before releasing it", Changelog, version, unreleased, version)
	case notes == "":
		return "", fmt.Errorf("%s: the section of %s is empty: write the release's notes in it", Changelog, want)
	}
	return notes + "\n", nil
}

// sectionName is the version a section's heading names: "1.2.0" of
// "[1.2.0] - 2026-12-01", "Unreleased" of "[Unreleased]", without a "v".
func sectionName(heading string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(heading), " ")
	return strings.TrimPrefix(strings.Trim(name, "[]"), "v")
}

// isLinkDefinition tells the lines of link references that end the file
// ("[1.2.0]: https://…"), which belong to no section.
func isLinkDefinition(line string) bool {
	name, _, ok := strings.Cut(line, "]: ")
	return ok && strings.HasPrefix(name, "[") && !strings.Contains(name, " ")
}

// notes reads the release's notes from the repository's changelog.
func (r *release) notes() (string, error) {
	raw, err := os.ReadFile(filepath.Join(r.root, Changelog))
	if err != nil {
		return "", fmt.Errorf("the release's notes: %w", err)
	}
	return releaseNotes(raw, r.version)
}
