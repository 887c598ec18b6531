package docs_test

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/docs"
	"github.com/threeds-sandbox/threeds-sandbox/web/docsite"
)

// readme is the repository's front page, one directory up.
const readme = "../README.md"

// maxReadmeBytes bounds the front page: what a first visit needs, with
// everything else one link away.
const maxReadmeBytes = 15000

// readmeOpening is how the README starts: its title, then how to run the
// sandbox and its tests.
const readmeOpening = "# 3-D Secure sandbox emulator\n\n```sh\n" +
	"go run ./cmd/threeds-sandbox      # serve the emulator with its embedded test cards on http://localhost:8080\n" +
	"go test -race ./...               # the fast loop, ~3 min; all of it, as CI: go test -race -tags full -timeout 30m ./...\n```\n"

// interfaceTitle is the title of the document whose API the sandbox
// emulates; every page names it, so that "the spec" is never ambiguous.
const interfaceTitle = "Three-Domain Secure Authentication Service Interface"

// pages returns the Markdown files to check: the README, every page of
// this directory and the README of every example, as paths from here.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{readme}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			out = append(out, e.Name())
		}
	}
	examples, err := filepath.Glob("examples/*/README.md")
	if err != nil || len(examples) < 3 {
		t.Fatalf("the examples' READMEs: %v %v", examples, err)
	}
	out = append(out, examples...)
	if len(out) < 15 {
		t.Fatalf("pages: %v, want the README and the docs", out)
	}
	return out
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestReadmeIsAFrontPage keeps the README short and its opening lines as
// they are.
func TestReadmeIsAFrontPage(t *testing.T) {
	raw := read(t, readme)
	if len(raw) > maxReadmeBytes {
		t.Errorf("README.md has %d bytes, at most %d: move the detail to a page of docs/", len(raw), maxReadmeBytes)
	}
	if !strings.HasPrefix(string(raw), readmeOpening) {
		t.Errorf("README.md must open with\n%s", readmeOpening)
	}
}

// TestLinks fails on a relative link or picture of the README, of a page
// or of CONTRIBUTING.md and CHANGELOG.md whose file does not exist, or whose #anchor names no heading of
// its page (GitHub's ids: lower case, spaces to '-', punctuation dropped).
func TestLinks(t *testing.T) {
	outlines := map[string]docsite.Outline{}
	outline := func(name string) docsite.Outline {
		o, ok := outlines[name]
		if !ok {
			o = docsite.OutlineOf(read(t, name))
			outlines[name] = o
		}
		return o
	}
	checked := 0
	for _, page := range append(pages(t), "../CONTRIBUTING.md", "../CHANGELOG.md") {
		o := outline(page)
		for _, dest := range append(slices.Clone(o.Links), o.Images...) {
			if dest == "" || strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
				continue
			}
			checked++
			if strings.HasPrefix(dest, "/") {
				t.Errorf("%s: link %q is absolute; write it relative to the page", page, dest)
				continue
			}
			file, anchor, _ := strings.Cut(dest, "#")
			target := page
			if file != "" {
				target = path.Join(path.Dir(page), file)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: no file %s", page, dest, target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: link %q: an anchor into a file that is not Markdown", page, dest)
				continue
			}
			if !slices.Contains(outline(target).IDs, anchor) {
				t.Errorf("%s: link %q: %s has no heading #%s (its headings: %v)", page, dest, target, anchor, outline(target).IDs)
			}
		}
	}
	if checked < 50 {
		t.Errorf("%d relative links checked, want the pages' many", checked)
	}
}

// TestPicturesAreEmbedded: the binary carries the README, every page, and
// every picture they show, and no other.
func TestPicturesAreEmbedded(t *testing.T) {
	shown := map[string]bool{}
	for _, page := range pages(t) {
		if strings.HasPrefix(page, "examples/") {
			continue // read in the repository, not served
		}
		for _, img := range docsite.OutlineOf(read(t, page)).Images {
			if page == readme {
				img = strings.TrimPrefix(img, "docs/") // the front page's links start at the repository's root
			}
			if !strings.Contains(img, "://") {
				shown[path.Clean(img)] = true
			}
		}
	}
	embedded := map[string]bool{}
	err := fs.WalkDir(docs.FS(), "img", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded[name] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for img := range shown {
		if !embedded[img] {
			t.Errorf("a page shows %s, which docs.go does not embed", img)
		}
	}
	for img := range embedded {
		if !shown[img] {
			t.Errorf("docs.go embeds %s, which no page shows", img)
		}
	}
	for _, page := range pages(t) {
		if page == readme || strings.HasPrefix(page, "examples/") {
			continue // the front page is checked below; the examples are files to copy, read in the repository
		}
		if _, err := fs.Stat(docs.FS(), page); err != nil {
			t.Errorf("page %s is not embedded: %v", page, err)
		}
	}
	if !bytes.Equal(docs.Front(), read(t, readme)) {
		t.Error("docs.Front is not the README")
	}
}

// TestPagesNameTheInterface: every page says which document it means by
// "the spec", the interface whose API the sandbox emulates.
func TestPagesNameTheInterface(t *testing.T) {
	for _, page := range pages(t) {
		text := strings.Join(strings.Fields(string(read(t, page))), " ")
		if !strings.Contains(text, interfaceTitle) {
			t.Errorf("%s does not name the %s", page, interfaceTitle)
		}
	}
}

// maxPageBytes bounds a page of docs/: one topic, with its history in git.
const maxPageBytes = 20_000

// generatedPages may be longer: they are written by a program, not read
// through.
var generatedPages = []string{"test-cards.md"}

// TestPagesAreShort keeps every page of docs/ under maxPageBytes.
func TestPagesAreShort(t *testing.T) {
	for _, page := range pages(t) {
		if page == readme || strings.Contains(page, "/") || slices.Contains(generatedPages, page) {
			continue
		}
		if n := len(read(t, page)); n >= maxPageBytes {
			t.Errorf("%s has %d bytes, want under %d: split the topic, or leave its history to git", page, n, maxPageBytes)
		}
	}
}
