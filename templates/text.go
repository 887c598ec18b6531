package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/language"
)

// Lang is the language a cardholder page is written in: the BCP 47 tag of
// one catalogue under text/ (en, th, de). The zero Lang is English, the
// fallback. Set.Language chooses it; a view carries it in its Lang field
// and the page sets <html lang> from it.
type Lang string

// Fallback is the language of a page whose cardholder's language has no
// catalogue: English.
const Fallback Lang = "en"

// String returns the tag of l, "en" for the zero Lang.
func (l Lang) String() string {
	if l == "" {
		return string(Fallback)
	}
	return string(l)
}

// Suffixes of the two forms of a counted text (see the template function
// "plural"): key.one is used for a count of 1, key.other for any other.
const (
	pluralOne   = ".one"
	pluralOther = ".other"
)

// catalogues are the texts of the cardholder pages, one flat map of key to
// text per language, read once by Parse from text/<tag>.json.
type catalogues struct {
	texts   map[Lang]map[string]string
	langs   []Lang // Fallback first, then the others in tag order
	matcher language.Matcher
}

// loadCatalogues reads every text/<tag>.json of fsys. The fallback must be
// among them; every catalogue must have exactly the keys of the fallback.
func loadCatalogues(fsys fs.FS) (*catalogues, error) {
	names, err := fs.Glob(fsys, "text/*.json")
	if err != nil {
		return nil, fmt.Errorf("list catalogues: %w", err)
	}
	c := &catalogues{texts: map[Lang]map[string]string{}}
	for _, name := range names {
		tag := strings.TrimSuffix(path.Base(name), ".json")
		if _, err := language.Parse(tag); err != nil {
			return nil, fmt.Errorf("catalogue %s: not a language tag: %w", name, err)
		}
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read catalogue %s: %w", name, err)
		}
		texts := map[string]string{}
		if err := json.Unmarshal(raw, &texts); err != nil {
			return nil, fmt.Errorf("catalogue %s: %w", name, err)
		}
		c.texts[Lang(tag)] = texts
		c.langs = append(c.langs, Lang(tag))
	}
	if c.texts[Fallback] == nil {
		return nil, fmt.Errorf("no catalogue text/%s.json of the fallback language", Fallback)
	}
	if err := c.mergeStyles(fsys); err != nil {
		return nil, err
	}
	slices.SortFunc(c.langs, func(a, b Lang) int {
		switch {
		case a == Fallback:
			return -1
		case b == Fallback:
			return 1
		}
		return strings.Compare(string(a), string(b))
	})
	tags := make([]language.Tag, len(c.langs))
	for i, l := range c.langs {
		tags[i] = language.MustParse(string(l))
	}
	c.matcher = language.NewMatcher(tags)
	return c, nil
}

// mergeStyles adds the texts of every challenge style, kept with its
// page at the top of html/challenge-<ui>.tmpl as a template comment
// "{{/* texts {"<tag>": {key: text}} */}}" for every language, into the
// language catalogues. A style names only languages that have a
// catalogue, and only keys of challenges (challenge.…) that no other file
// defines; a language it leaves out lacks its keys, as the catalogue
// tests report.
func (c *catalogues) mergeStyles(fsys fs.FS) error {
	names, err := fs.Glob(fsys, "html/challenge-*.tmpl")
	if err != nil {
		return fmt.Errorf("list style templates: %w", err)
	}
	for _, name := range names {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("read style template %s: %w", name, err)
		}
		rest, ok := bytes.CutPrefix(raw, []byte(textsOpen))
		if !ok {
			continue // a style without texts of its own
		}
		block, _, ok := bytes.Cut(rest, []byte(textsClose))
		if !ok {
			return fmt.Errorf("style texts of %s: no closing %s", name, textsClose)
		}
		var byLang map[Lang]map[string]string
		if err := json.Unmarshal(block, &byLang); err != nil {
			return fmt.Errorf("style texts of %s: %w", name, err)
		}
		for lang, texts := range byLang {
			into, ok := c.texts[lang]
			if !ok {
				return fmt.Errorf("style texts of %s: language %q has no catalogue text/%s.json", name, lang, lang)
			}
			for k, v := range texts {
				if !strings.HasPrefix(k, "challenge.") {
					return fmt.Errorf("style texts of %s: key %q is not a challenge's (challenge.…)", name, k)
				}
				if _, dup := into[k]; dup {
					return fmt.Errorf("style texts of %s: key %q is defined twice", name, k)
				}
				into[k] = v
			}
		}
	}
	return nil
}

// The comment that opens and closes a style's texts in its template.
const (
	textsOpen  = "{{/* texts"
	textsClose = "*/}}"
)

// match returns the catalogue language that best fits the preferences:
// each one a BCP 47 tag (browserInfo.language) or an Accept-Language
// list, the first the most wanted. Unreadable ones are ignored; nothing
// that fits gives the fallback.
func (c *catalogues) match(preferences ...string) Lang {
	var want []language.Tag
	for _, p := range preferences {
		if tags, _, err := language.ParseAcceptLanguage(p); err == nil {
			want = append(want, tags...)
		}
	}
	if len(want) == 0 {
		return Fallback
	}
	_, i, conf := c.matcher.Match(want...)
	if conf == language.No {
		return Fallback
	}
	return c.langs[i]
}

// text is the template function "t": the text of key in lang, with {1},
// {2}… replaced by the arguments. An unknown key is an error, so a page
// that names one fails to render (and the catalogue test names it first).
func (c *catalogues) text(lang Lang, key string, args ...any) (string, error) {
	texts, ok := c.texts[lang]
	if !ok {
		texts = c.texts[Fallback]
	}
	s, ok := texts[key]
	if !ok {
		return "", fmt.Errorf("text %q is in no catalogue of language %s", key, lang)
	}
	if len(args) == 0 {
		return s, nil
	}
	// A replacer would build its tables on every call: a text has one
	// or two placeholders, each replaced in place.
	for i, a := range args {
		s = strings.ReplaceAll(s, "{"+strconv.Itoa(i+1)+"}", fmt.Sprint(a))
	}
	return s, nil
}

// plural is the template function "plural": the text key.one when n is 1,
// key.other otherwise, with {1} replaced by n and {2}… by the further
// arguments. Languages without plural forms (Thai) give both the same text.
func (c *catalogues) plural(lang Lang, key string, n int, args ...any) (string, error) {
	form := pluralOther
	if n == 1 {
		form = pluralOne
	}
	return c.text(lang, key+form, append([]any{n}, args...)...)
}
