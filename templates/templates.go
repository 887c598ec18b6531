package templates

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"slices"
)

// The names of the pages a Set renders, each with its view struct.
const (
	PageAutoSubmit = "autosubmit" // view AutoSubmit
	PageChallenge  = "challenge"  // view ChallengePage
	PageResult     = "result"     // view Result
	PageError      = "error"      // view ErrorPage
	PageDone       = "done"       // view Done
)

// pages lists every page Parse must find.
var pages = []string{PageAutoSubmit, PageChallenge, PageResult, PageError, PageDone, PageConsoleCards, PageConsoleTransactions, PageConsoleTransaction, PageConsoleLogin, PageConsoleDemo, PageConsoleNotify, PageConsoleMessage, PageLanding, PageDocs,
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
	return &Set{tmpl: t, text: text}, nil
}

// Language returns the language of the cardholder pages that best fits
// the preferences, the first the most wanted: the lookup's
// browserInfo.language, then the request's Accept-Language, for example.
// English when none fits.
func (s *Set) Language(preferences ...string) Lang {
	return s.text.match(preferences...)
}

// Languages lists the languages of the catalogues, English first.
func (s *Set) Languages() []Lang {
	return slices.Clone(s.text.langs)
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
