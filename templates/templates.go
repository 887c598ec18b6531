package templates

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
)

// The names of the pages a Set renders, each with its view struct.
const (
	PageAutoSubmit = "autosubmit" // view AutoSubmit
	PageChallenge  = "challenge"  // view ChallengePage
	PageResult     = "result"     // view Result
	PageError      = "error"      // view ErrorPage
	PageDone       = "done"       // view Done
	PageBankApp    = "bank-app"   // view BankApp
)

// pages lists every page Parse must find.
var pages = []string{PageAutoSubmit, PageChallenge, PageBankApp, PageResult, PageError, PageDone, PageConsoleCards, PageConsoleTransactions, PageConsoleTransaction, PageConsoleLogin, PageConsoleDemo, PageConsoleNotify, PageConsoleMessage, PageLanding, PageDocs,
	PageDDCMethod, PageDDCMethodNotify, PageDDCCallback}

//go:embed html/*.tmpl text/*.json
var files embed.FS

// Set is the parsed template set, parsed once by Parse and safe for
// concurrent use.
type Set struct {
	tmpl *template.Template
	text *catalogues
}

// Parse parses the embedded templates and the catalogues of their texts,
// and checks that every page is defined.
func Parse() (*Set, error) {
	text, err := loadCatalogues(files)
	if err != nil {
		return nil, fmt.Errorf("parse templates: %w", err)
	}
	t, err := template.New("").Funcs(funcs).Funcs(template.FuncMap{
		"t":      text.text,
		"plural": text.plural,
	}).ParseFS(files, "html/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("parse templates: %w", err)
	}
	for _, name := range pages {
		if t.Lookup(name) == nil {
			return nil, fmt.Errorf("parse templates: page %q not defined", name)
		}
	}
	t.Funcs(template.FuncMap{"challengeStyle": func(v ChallengePage) (template.HTML, error) {
		return renderStyle(t, v)
	}})
	return &Set{tmpl: t, text: text}, nil
}

// Language returns the language of the cardholder pages that best fits
// the preferences, the first the most wanted: the lookup's
// browserInfo.language, then the request's Accept-Language, for example.
// English when none fits.
func (s *Set) Language(preferences ...string) Lang {
	return s.text.match(preferences...)
}

// Text is the text of key in lang with {1}, {2}… replaced by args, for
// what the cardholder sees outside a page: an app's CRes. An unknown key
// is an error.
func (s *Set) Text(lang Lang, key string, args ...any) (string, error) {
	return s.text.text(lang, key, args...)
}

// Plural is Text of key.one when n is 1, key.other otherwise, with {1}
// replaced by n and {2}… by args.
func (s *Set) Plural(lang Lang, key string, n int, args ...any) (string, error) {
	return s.text.plural(lang, key, n, args...)
}

// Languages lists the languages of the catalogues, English first.
func (s *Set) Languages() []Lang {
	return slices.Clone(s.text.langs)
}

// StyleTemplate is the template of the challenge style ui: the body of
// the challenge page, in html/challenge-<ui>.tmpl.
func StyleTemplate(ui string) string {
	if ui == "" {
		ui = "otp"
	}
	return "challenge-" + ui
}

// HasStyle tells whether the set has the page of challenge style ui.
func (s *Set) HasStyle(ui string) bool { return s.tmpl.Lookup(StyleTemplate(ui)) != nil }

// renderStyle renders the style's part of a challenge page. Its template
// is escaped as HTML text, where the page places it.
func renderStyle(t *template.Template, v ChallengePage) (template.HTML, error) {
	name := StyleTemplate(v.UI)
	if t.Lookup(name) == nil {
		return "", fmt.Errorf("no template %s for challenge style %q", name, v.UI)
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, name, v); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil //nolint:gosec // the output of an html/template, escaped already
}

// Render writes the page name (one of the Page constants) for view to w.
// The page is rendered in full before anything is written, so a failure
// leaves w untouched.
func (s *Set) Render(w io.Writer, name string, view any) error {
	if !slices.Contains(pages, name) {
		return fmt.Errorf("render %q: no such page", name)
	}
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, view); err != nil {
		return fmt.Errorf("render %q: %w", name, err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("render %q: write: %w", name, err)
	}
	return nil
}
