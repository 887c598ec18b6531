package web_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
)

// A challenge style ships with its section of the styles' page, its page
// in the accessibility test and its case in the browser test. Each place
// is read from its source, so that a new entry of scenarios.Styles that
// lacks one of them fails here.
const (
	stylesDoc     = "../docs/challenge-styles.md"
	stylesA11y    = "../templates/pages_test.go"
	stylesBrowser = "../cmd/threeds-sandbox/e2e/styles_browser_test.go"
)

// stylePlace is a place a style must have, with the styles it has.
type stylePlace struct {
	name string
	uis  []string
}

// unshipped lists, one line each, every place that lacks a style of
// styles.
func unshipped(styles []string, places []stylePlace) []string {
	var out []string
	for _, ui := range styles {
		for _, p := range places {
			if !slices.Contains(p.uis, ui) {
				out = append(out, fmt.Sprintf("style %s has no %s", ui, p.name))
			}
		}
	}
	return out
}

// TestEveryStyleShipsWhole: every style a scenario may name has its
// section in docs/challenge-styles.md, a challenge page in the
// accessibility test's cardholderPages (templates/pages_test.go)
// and a case, by its card, in TestBrowserChallengeStyles
// (cmd/threeds-sandbox/e2e), which completes it in Chromium.
func TestEveryStyleShipsWhole(t *testing.T) {
	var styles []string
	for _, st := range scenarios.Styles() {
		styles = append(styles, st.UI)
	}
	for _, miss := range unshipped(styles, stylePlaces(t, readSource(t, stylesDoc), readSource(t, stylesA11y), readSource(t, stylesBrowser))) {
		t.Error(miss)
	}
}

// TestUnshippedBites: the check reads each place as it is written, and a
// style missing from one, or a style no place has, fails it.
func TestUnshippedBites(t *testing.T) {
	doc := "# Challenge styles\n\n## otp: a one-time code\n\n## select and multiselect: a question\n\n## Trust this merchant (any style)\n"
	a11y := `package templates
var cardholderPages = []cardholderPage{
	{"challenge", PageChallenge, func(l Lang, size int) any { return challengeAt(l, size, func(*ChallengePage) {}) }},
	{"challenge-oob", PageChallenge, func(l Lang, size int) any {
		return challengeAt(l, size, func(v *ChallengePage) { v.UI, v.Style = "oob", oobView{} })
	}},
	{"bank-app", PageBankApp, func(l Lang, _ int) any { return BankApp{Lang: l, Answer: "password"} }},
}`
	browser := `package e2e
func TestBrowserChallengeStyles(t *testing.T) {
	tests := []styleCase{
		{name: "otp", card: "4000000000009102", ready: "[data-action=otp]"},
		{name: "password", card: "4000000000009359", ready: "[data-action=password]"},
	}
	_ = tests
}`
	places := stylePlaces(t, []byte(doc), []byte(a11y), []byte(browser))
	for i, want := range [][]string{{"otp", "select", "multiselect"}, {"otp", "oob"}, {"otp", "password"}} {
		if got := places[i].uis; !slices.Equal(got, want) {
			t.Errorf("%s: read %v, want %v", places[i].name, got, want)
		}
	}
	got := unshipped([]string{"otp", "password", "voice"}, places)
	want := []string{
		"style password has no section of " + stylesDoc,
		"style password has no challenge page in cardholderPages of " + stylesA11y,
		"style voice has no section of " + stylesDoc,
		"style voice has no challenge page in cardholderPages of " + stylesA11y,
		"style voice has no case of TestBrowserChallengeStyles in " + stylesBrowser,
	}
	if !slices.Equal(got, want) {
		t.Errorf("unshipped = %q\nwant %q", got, want)
	}
}

// stylePlaces reads the styles each place has from its source: the
// styles' page, the accessibility test and the browser test.
func stylePlaces(t *testing.T, doc, a11y, browser []byte) []stylePlace {
	t.Helper()
	return []stylePlace{
		{"section of " + stylesDoc, docStyles(doc)},
		{"challenge page in cardholderPages of " + stylesA11y, a11yStyles(t, a11y)},
		{"case of TestBrowserChallengeStyles in " + stylesBrowser, browserStyles(t, browser)},
	}
}

// readSource reads a file of the repository.
func readSource(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// docStyles are the styles the page has a section of: a heading "## ui:
// title", or "## ui and ui: title" for styles that share one.
func docStyles(doc []byte) []string {
	var uis []string
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		head, ok := strings.CutPrefix(sc.Text(), "## ")
		if !ok {
			continue
		}
		names, _, ok := strings.Cut(head, ":")
		if !ok {
			continue
		}
		for _, ui := range strings.Split(strings.ReplaceAll(names, ",", " and "), " and ") {
			if ui = strings.Trim(strings.TrimSpace(ui), "`"); ui != "" {
				uis = append(uis, ui)
			}
		}
	}
	return uis
}

// a11yStyles are the styles of the challenge pages (PageChallenge) of
// cardholderPages: the ui each page's view sets (v.UI = "oob"), otp for
// one that sets none, as the challenge page's is.
func a11yStyles(t *testing.T, src []byte) []string {
	t.Helper()
	f := parseSource(t, src)
	var uis []string
	for _, row := range varElements(f, "cardholderPages") {
		if len(row.Elts) < 3 || !isIdent(row.Elts[1], "PageChallenge") {
			continue
		}
		ui := scenarios.UIOTP
		ast.Inspect(row.Elts[2], func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
				for i, lhs := range as.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "UI" {
						if s, ok := stringLit(as.Rhs[i]); ok {
							ui = s
						}
					}
				}
			}
			return true
		})
		if !slices.Contains(uis, ui) {
			uis = append(uis, ui)
		}
	}
	return uis
}

// browserStyles are the styles of the cases of TestBrowserChallengeStyles
// (the []styleCase in the source): the ui of each case's card in the
// default catalogue.
func browserStyles(t *testing.T, src []byte) []string {
	t.Helper()
	cat, err := scenarios.Load(scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	schemes, err := emulator.NewSchemeTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	uiOf := map[string]string{}
	for _, e := range cards.List(cat, schemes) {
		if e.CardNumber != "" && e.UI != "" {
			uiOf[e.CardNumber] = e.UI
		}
	}
	var uis []string
	ast.Inspect(parseSource(t, src), func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if arr, ok := lit.Type.(*ast.ArrayType); !ok || !isIdent(arr.Elt, "styleCase") {
			return true
		}
		for _, el := range lit.Elts {
			c, ok := el.(*ast.CompositeLit)
			if !ok {
				continue
			}
			for _, f := range c.Elts {
				kv, ok := f.(*ast.KeyValueExpr)
				if !ok || !isIdent(kv.Key, "card") {
					continue
				}
				card, _ := stringLit(kv.Value)
				if ui, ok := uiOf[card]; ok && !slices.Contains(uis, ui) {
					uis = append(uis, ui)
				}
			}
		}
		return false
	})
	return uis
}

// parseSource parses a Go file.
func parseSource(t *testing.T, src []byte) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// varElements are the elements (each a composite literal) of the value
// of the package-level variable name.
func varElements(f *ast.File, name string) []*ast.CompositeLit {
	var out []*ast.CompositeLit
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			spec, ok := s.(*ast.ValueSpec)
			if !ok || len(spec.Names) != 1 || spec.Names[0].Name != name || len(spec.Values) != 1 {
				continue
			}
			lit, ok := spec.Values[0].(*ast.CompositeLit)
			if !ok {
				continue
			}
			for _, el := range lit.Elts {
				if c, ok := el.(*ast.CompositeLit); ok {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// isIdent tells whether e is the identifier name.
func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// stringLit is the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
