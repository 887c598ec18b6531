package sandboxtest_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// signatures lists the exported functions and methods of the package as
// their source declares them, without bodies: func (c *Client) Lookup(...);
// with the methods of the answers, which the package's types alias from
// web/adminapi.
func signatures(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	answers, err := filepath.Glob("../../web/adminapi/*.go")
	if err != nil || len(answers) == 0 {
		t.Fatalf("the answers' source: %v", err)
	}
	files = append(files, answers...)
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			if fn.Recv != nil && !ast.IsExported(receiverType(fn.Recv.List[0].Type)) {
				continue
			}
			fn.Body, fn.Doc = nil, nil
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, fn); err != nil {
				t.Fatal(err)
			}
			out = append(out, b.String())
		}
	}
	slices.Sort(out)
	return out
}

// receiverType is the name of a method's receiver type.
func receiverType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestDocsListEverySignature: the testing page lists every exported
// function and method of the package with its full signature, as the
// source declares it, and nothing else.
func TestDocsListEverySignature(t *testing.T) {
	want := signatures(t)
	var got []string
	for _, f := range testkit.Fences(t, "../../docs/testing.md", "### The package's functions") {
		if f.Lang != "go" {
			continue
		}
		for line := range strings.SplitSeq(f.Text, "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "func ") {
				got = append(got, line)
			}
		}
	}
	slices.Sort(got)
	for _, s := range want {
		if !slices.Contains(got, s) {
			t.Errorf("docs/testing.md lacks %s", s)
		}
	}
	for _, s := range got {
		if !slices.Contains(want, s) {
			t.Errorf("docs/testing.md lists %s, which the package does not declare", s)
		}
	}
}
