package templates

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"text/template/parse"
)

// TestCataloguesHaveTheSameKeys: every language has every key that any
// other language has, and no text is empty.
func TestCataloguesHaveTheSameKeys(t *testing.T) {
	s := parseSet(t)
	if got := s.Languages(); len(got) < 3 || got[0] != Fallback {
		t.Fatalf("languages = %v, want English first and at least two more", got)
	}
	all := map[string]bool{}
	for _, texts := range s.text.texts {
		for k := range texts {
			all[k] = true
		}
	}
	for _, lang := range s.Languages() {
		texts := s.text.texts[lang]
		for k := range all {
			v, ok := texts[k]
			switch {
			case !ok:
				t.Errorf("text/%s.json lacks the key %q", lang, k)
			case strings.TrimSpace(v) == "":
				t.Errorf("text/%s.json: %q is empty", lang, k)
			}
		}
	}
}

// TestCataloguesKeepPlaceholders: a translation uses the same {n}
// placeholders as the English text, so no argument is lost or invented.
func TestCataloguesKeepPlaceholders(t *testing.T) {
	s := parseSet(t)
	placeholders := func(v string) []string {
		var out []string
		for i := 1; i <= 9; i++ {
			if p := "{" + string(rune('0'+i)) + "}"; strings.Contains(v, p) {
				out = append(out, p)
			}
		}
		return out
	}
	for key, en := range s.text.texts[Fallback] {
		for _, lang := range s.Languages()[1:] {
			if got, want := placeholders(s.text.texts[lang][key]), placeholders(en); !slices.Equal(got, want) {
				t.Errorf("text/%s.json %q has placeholders %v, English %v", lang, key, got, want)
			}
		}
	}
}

// usedKeys returns the keys the templates look up with t and plural
// (plural's as key.one and key.other), and the calls whose key is not a
// literal string.
func usedKeys(t *testing.T, s *Set) (keys map[string][]string, dynamic []string) {
	t.Helper()
	keys = map[string][]string{}
	var walk func(tmpl string, n parse.Node)
	walk = func(tmpl string, n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(tmpl, c)
			}
		case *parse.ActionNode:
			walk(tmpl, n.Pipe)
		case *parse.IfNode:
			walk(tmpl, n.Pipe)
			walk(tmpl, n.List)
			walk(tmpl, n.ElseList)
		case *parse.RangeNode:
			walk(tmpl, n.Pipe)
			walk(tmpl, n.List)
			walk(tmpl, n.ElseList)
		case *parse.WithNode:
			walk(tmpl, n.Pipe)
			walk(tmpl, n.List)
			walk(tmpl, n.ElseList)
		case *parse.TemplateNode:
			walk(tmpl, n.Pipe)
		case *parse.PipeNode:
			if n == nil {
				return
			}
			for _, cmd := range n.Cmds {
				walk(tmpl, cmd)
			}
		case *parse.CommandNode:
			if len(n.Args) > 0 {
				if id, ok := n.Args[0].(*parse.IdentifierNode); ok && (id.Ident == "t" || id.Ident == "plural") {
					if len(n.Args) < 3 {
						dynamic = append(dynamic, tmpl+": "+n.String())
					} else if key, ok := n.Args[2].(*parse.StringNode); !ok {
						dynamic = append(dynamic, tmpl+": "+n.String())
					} else if id.Ident == "plural" {
						keys[key.Text+pluralOne] = append(keys[key.Text+pluralOne], tmpl)
						keys[key.Text+pluralOther] = append(keys[key.Text+pluralOther], tmpl)
					} else {
						keys[key.Text] = append(keys[key.Text], tmpl)
					}
				}
			}
			for _, a := range n.Args {
				walk(tmpl, a)
			}
		}
	}
	for _, tmpl := range s.tmpl.Templates() {
		if tmpl.Tree != nil {
			walk(tmpl.Name(), tmpl.Tree.Root)
		}
	}
	return keys, dynamic
}

// TestTemplatesUseOnlyCataloguedKeys: every key a template looks up is in
// the catalogues (all of them, by TestCataloguesHaveTheSameKeys), every
// key is a literal so that this test sees it, and every catalogued key is
// used by some template.
func TestTemplatesUseOnlyCataloguedKeys(t *testing.T) {
	s := parseSet(t)
	keys, dynamic := usedKeys(t, s)
	for _, d := range dynamic {
		t.Errorf("%s: the key of t and plural must be a literal string", d)
	}
	if len(keys) == 0 {
		t.Fatal("no template calls t or plural")
	}
	en := s.text.texts[Fallback]
	for k, where := range keys {
		if _, ok := en[k]; !ok {
			t.Errorf("templates %v use the key %q, which text/en.json lacks", where, k)
		}
	}
	for k := range en {
		// sdk.… are the texts of the app channel's CRes, which web
		// renders as JSON without a template (web/acs_sdk.go).
		if _, ok := keys[k]; !ok && !strings.HasPrefix(k, "sdk.") {
			t.Errorf("text/en.json has the key %q, which no template uses", k)
		}
	}
}

// TestUnknownKeyFailsTheRender: a page naming a key that is in no
// catalogue does not render (rather than showing the key).
func TestUnknownKeyFailsTheRender(t *testing.T) {
	s := parseSet(t)
	for _, lang := range s.Languages() {
		if _, err := s.text.text(lang, "no.such.key"); err == nil {
			t.Errorf("text(%s, no.such.key): no error", lang)
		}
	}
	got, err := s.text.plural("th", "challenge.otp.wrong", 2)
	if err != nil || !strings.Contains(got, "2") {
		t.Errorf("plural(th, challenge.otp.wrong, 2) = %q, %v", got, err)
	}
}

// TestLanguageMatching: browserInfo.language and Accept-Language choose
// the catalogue through golang.org/x/text/language; English is the
// fallback.
func TestLanguageMatching(t *testing.T) {
	s := parseSet(t)
	tests := []struct {
		prefs []string
		want  Lang
	}{
		{nil, "en"},
		{[]string{""}, "en"},
		{[]string{"en-US"}, "en"},
		{[]string{"th-TH"}, "th"},
		{[]string{"th"}, "th"},
		{[]string{"de-AT"}, "de"},
		{[]string{"de-CH"}, "de"},
		{[]string{"fr-FR"}, "en"},
		{[]string{"not a tag!"}, "en"},
		{[]string{"fr-FR", "th;q=0.9, en;q=0.5"}, "th"},
		{[]string{"", "de-DE,de;q=0.9,en;q=0.8"}, "de"},
		{[]string{"zh-Hant-TW"}, "en"},
		// Well-formed tags of no registered language, which the lookup
		// takes: English, or the browser's Accept-Language as for fr-FR.
		{[]string{"zz"}, "en"},
		{[]string{"zz-ZZ"}, "en"},
		{[]string{"qq", "th;q=0.9, en;q=0.5"}, "th"},
	}
	for _, tt := range tests {
		if got := s.Language(tt.prefs...); got != tt.want {
			t.Errorf("Language(%q) = %q, want %q", tt.prefs, got, tt.want)
		}
	}
}

// TestEveryCardholderPageInEveryLanguage renders each page of
// cardholderPages (see a11y_browser_test.go) in each language at each
// window size: <html lang> names the language and no English text of the
// page's catalogue is left in another language.
func TestEveryCardholderPageInEveryLanguage(t *testing.T) {
	s := parseSet(t)
	for _, p := range cardholderPages {
		for _, lang := range s.Languages() {
			for _, w := range windowSizes {
				var buf bytes.Buffer
				if err := s.Render(&buf, p.page, p.view(lang, w.size)); err != nil {
					t.Fatalf("render %s in %s at %d: %v", p.name, lang, w.size, err)
				}
				page := buf.String()
				if want := `<html lang="` + string(lang) + `">`; !strings.Contains(page, want) {
					t.Errorf("%s in %s: no %s", p.name, lang, want)
				}
				if lang == Fallback {
					continue
				}
				for _, key := range []string{"page.noRealBank", "challenge.heading", "result.heading", "error.title.challenge", "done.message", "submit.creq.title", "submit.cres.title"} {
					if en := strings.TrimSuffix(s.text.texts[Fallback][key], " {1}"); strings.Contains(page, en) {
						t.Errorf("%s in %s shows the English %q", p.name, lang, en)
					}
				}
			}
		}
	}
}

// FuzzLanguage: any browserInfo.language and Accept-Language, which come
// from outside, choose one of the catalogues' languages, never panic, and
// choose the same one every time.
func FuzzLanguage(f *testing.F) {
	for _, seed := range [][2]string{{"th-TH", ""}, {"", "de-DE,de;q=0.9,en;q=0.8"}, {"fr", "*"}, {"x-klingon", "th;q=abc"}, {"", ""}} {
		f.Add(seed[0], seed[1])
	}
	s, err := Parse()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, browser, accept string) {
		got := s.Language(browser, accept)
		if !slices.Contains(s.Languages(), got) {
			t.Fatalf("Language(%q, %q) = %q, not a catalogue's", browser, accept, got)
		}
		if again := s.Language(browser, accept); again != got {
			t.Fatalf("Language(%q, %q) = %q, then %q", browser, accept, got, again)
		}
	})
}

// TestStyleCataloguesMerge: a style's texts, kept with its page at the
// top of html/challenge-<ui>.tmpl, join every language's catalogue; a
// style naming a language without a catalogue, a key not a challenge's
// or a key defined twice is refused at load.
func TestStyleCataloguesMerge(t *testing.T) {
	load := func(en, texts string) (*catalogues, error) {
		return loadCatalogues(fstest.MapFS{
			"text/en.json":             {Data: []byte(en)},
			"text/de.json":             {Data: []byte(`{"page.a": "A"}`)},
			"html/challenge-pin.tmpl":  {Data: []byte(textsOpen + texts + textsClose + "\n{{define \"challenge-pin\"}}{{end}}")},
			"html/challenge-bare.tmpl": {Data: []byte(`{{define "challenge-bare"}}{{end}}`)},
		})
	}
	pin := `{"en": {"challenge.pin.label": "PIN"}, "de": {"challenge.pin.label": "Geheimzahl"}}`
	c, err := load(`{"page.a": "A"}`, pin)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.text("de", "challenge.pin.label"); got != "Geheimzahl" {
		t.Errorf("de challenge.pin.label = %q, want Geheimzahl", got)
	}
	for name, tt := range map[string]struct{ en, texts string }{
		"defined twice":    {`{"page.a": "A", "challenge.pin.label": "dup"}`, pin},
		"unknown language": {`{"page.a": "A"}`, `{"fr": {"challenge.pin.label": "NIP"}}`},
		"foreign key":      {`{"page.a": "A"}`, `{"en": {"page.b": "B"}}`},
		"not JSON":         {`{"page.a": "A"}`, `{"en": `},
	} {
		if _, err := load(tt.en, tt.texts); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	fsys := fstest.MapFS{
		"text/en.json":            {Data: []byte(`{"page.a": "A"}`)},
		"html/challenge-pin.tmpl": {Data: []byte(textsOpen + pin)},
	}
	if _, err := loadCatalogues(fsys); err == nil {
		t.Error("texts without their closing comment loaded")
	}
}
