package docs_test

import (
	"regexp"
	"strings"
	"testing"
)

// ociBuild is a command that builds an image in the OCI format unless
// told otherwise: buildah and podman. docker build always writes the
// Docker format.
var ociBuild = regexp.MustCompile(`\b(buildah\s+(bud|build)|podman\s+build)\b`)

// dockerFormat is the option that keeps the image's HEALTHCHECK.
var dockerFormat = regexp.MustCompile(`--format[ =]docker\b`)

// TestImageBuildsKeepTheHealthCheck: every buildah or podman build the
// pages, CONTRIBUTING.md and the CI script show says --format docker:
// an OCI image has no place for the Dockerfile's HEALTHCHECK, which
// buildah drops with a warning, and the pages promise the health check.
func TestImageBuildsKeepTheHealthCheck(t *testing.T) {
	files := append(pages(t), "../CONTRIBUTING.md", "../.ci/run")
	seen := 0
	for _, f := range files {
		for i, line := range commands(string(read(t, f)), strings.HasSuffix(f, ".md")) {
			for _, m := range ociBuild.FindAllStringIndex(line, -1) {
				seen++
				// The option belongs to this command: up to the next
				// command on the line, if any.
				rest := line[m[1]:]
				if next := ociBuild.FindStringIndex(rest); next != nil {
					rest = rest[:next[0]]
				}
				if !dockerFormat.MatchString(rest) {
					t.Errorf("%s:%d: %q builds an OCI image, which drops the HEALTHCHECK: add --format docker", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
	if seen < 3 {
		t.Errorf("found %d buildah or podman builds in the pages; the image's pages show at least 3", seen)
	}
}

// commands returns the lines of a script, or of a Markdown page the
// code it shows: its fenced blocks' lines and its code spans, each on
// the line where it is, so that prose ("podman and buildah build it")
// is left out. A command continued with a backslash is one line.
func commands(text string, markdown bool) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n")
	if !markdown {
		return lines
	}
	out := make([]string, len(lines))
	fenced := false
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case fenced:
			out[i] = line
		default:
			for _, span := range codeSpan.FindAllStringSubmatch(line, -1) {
				out[i] += span[1] + "\n"
			}
		}
	}
	return out
}

// codeSpan is a Markdown code span on one line.
var codeSpan = regexp.MustCompile("`([^`]+)`")
