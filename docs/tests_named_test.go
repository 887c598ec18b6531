package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// namedTest is a test, fuzz target or contract suite a page names in
// backquotes, with an optional subtest: `TestX`, `TestX/Sub`.
var namedTest = regexp.MustCompile("`((?:Test|Fuzz|Benchmark|Run)[A-Z][A-Za-z0-9_]*)(?:/([A-Za-z0-9_]+))?`")

// backedPages are the pages whose claims each name the test that shows
// them: the table of shared resources, the faults, the security model.
var backedPages = []string{"reliability.md", "security.md"}

// maxBackedPageBytes bounds those pages, as every page.
const maxBackedPageBytes = 20000

// TestNamedTestsExist: every test a backed page names is a function of
// the repository (and its subtest a name the repository's Go code
// gives), so that no claim cites a test that was renamed or never
// written; and the pages stay under their size.
func TestNamedTestsExist(t *testing.T) {
	var code strings.Builder
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") && p != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			code.Write(b)
			code.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	src := code.String()
	for _, page := range backedPages {
		raw := read(t, page)
		if len(raw) >= maxBackedPageBytes {
			t.Errorf("%s: %d bytes, want under %d", page, len(raw), maxBackedPageBytes)
		}
		found := namedTest.FindAllStringSubmatch(string(raw), -1)
		if len(found) < 10 {
			t.Errorf("%s names %d tests, want its claims backed", page, len(found))
		}
		for _, m := range found {
			if !regexp.MustCompile(`func (\([^)]*\) )?` + m[1] + `\(`).MatchString(src) {
				t.Errorf("%s names %s, which no Go file defines", page, m[1])
				continue
			}
			if m[2] != "" && !strings.Contains(src, `"`+m[2]+`"`) {
				t.Errorf("%s names the subtest %s/%s, which no Go file names", page, m[1], m[2])
			}
		}
	}
}
