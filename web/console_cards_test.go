package web_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
)

// conditionalCards are the card numbers of a catalogue that have an entry
// needing more than the card number: their outcome depends on another
// field of the request as well.
func conditionalCards(entries []cards.Entry) map[string]bool {
	out := map[string]bool{}
	for _, e := range entries {
		for k := range e.When {
			if e.CardNumber != "" && k != "cardNumber" {
				out[e.CardNumber] = true
			}
		}
	}
	return out
}

// TestSameOutcomeSentence: the cards page and the front door say that a
// card gives the same outcome every time only as far as the catalogue
// makes it true: the count of cards that depend on another field of the
// request is the catalogue's, and exactly their rows say on what.
func TestSameOutcomeSentence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, yaml string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	plain := file("plain.yaml", `scenarios:
  - id: plain-y
    description: "Frictionless Y"
    match: {cardNumber: "4000000000009003"}
    frictionless: {status: Y}
  - id: plain-n
    description: "Frictionless N"
    match: {cardNumber: "4000000000009029"}
    frictionless: {status: N, reason: "01"}
`)
	one := file("one.yaml", `scenarios:
  - id: euro-n
    description: "N when paid in euros"
    match: {cardNumber: "4000000000009003", currency: EUR}
    frictionless: {status: N, reason: "01"}
  - id: other-y
    description: "Y otherwise"
    match: {cardNumber: "4000000000009003"}
    frictionless: {status: Y}
  - id: plain-a
    description: "Frictionless A"
    match: {cardNumber: "4000000000009011"}
    frictionless: {status: A}
`)
	const always = "Each magic card number gives the same outcome every time."
	tests := []struct {
		name string
		load scenarios.LoadOptions
		want func(n int) string // the sentence for n conditional cards
	}{
		{"the default packs", scenarios.LoadOptions{}, func(n int) string {
			return fmt.Sprintf("The same request with the same magic card number gives the same outcome every time; "+
				"%d cards depend on another field of the request as well, as their rows say.", n)
		}},
		{"no conditional card", scenarios.LoadOptions{NoDefaults: true, Paths: []string{plain}}, func(int) string { return always }},
		{"one conditional card", scenarios.LoadOptions{NoDefaults: true, Paths: []string{one}}, func(int) string {
			return "The same request with the same magic card number gives the same outcome every time; " +
				"1 card depends on another field of the request as well, as its rows say."
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(o *envOptions) { o.load = tt.load })
			entries := cards.List(e.Cat, e.Engine.Schemes())
			cond := conditionalCards(entries)
			if tt.load.Paths == nil && len(cond) == 0 {
				t.Fatal("the default packs have no conditional card: the test checks nothing")
			}
			want := tt.want(len(cond))
			for _, path := range []string{"/console/", "/"} {
				doc := getPage(t, e.URL+path)
				if got := strings.Join(strings.Fields(doc.Find("#same-outcome").Text()), " "); got != want {
					t.Errorf("GET %s: sentence %q, want %q", path, got, want)
				}
				marked := map[string]bool{}
				doc.Find("td .cond").Each(func(_ int, s *goquery.Selection) {
					marked[s.Closest("td").Find("code").AttrOr("data-card", s.Closest("td").Find("code").Text())] = true
				})
				for card := range cond {
					if !marked[card] {
						t.Errorf("GET %s: card %s depends on another field, its rows say nothing of it", path, card)
					}
				}
				for card := range marked {
					if !cond[card] {
						t.Errorf("GET %s: card %s is marked, but its number alone decides", path, card)
					}
				}
			}
		})
	}
}

// TestCardConditionsSayWhich: the rows of a card that depends on another
// field say which field and value decide, on the cards page.
func TestCardConditionsSayWhich(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc := getPage(t, e.URL+"/console/")
	card := e.card("visa-frictionless-y")
	tests := []struct{ scenario, want string }{
		{"visa-frictionless-y", "unless threeDsRequestorChallengeInd 2"},
		{"visa-frictionless-i-on-request", "with threeDsRequestorChallengeInd 2"},
		{"visa-method-incomplete-challenge", "with threeDSCompInd N"},
		{"visa-method-complete-frictionless", "unless threeDSCompInd N"},
		{"visa-challenge", ""},
	}
	for _, tt := range tests {
		row := doc.Find(`tr[data-scenario="` + tt.scenario + `"]`)
		if row.Length() != 1 {
			t.Errorf("%d rows of %s, want 1", row.Length(), tt.scenario)
			continue
		}
		if got := strings.Join(strings.Fields(row.Find(".cond").Text()), " "); got != tt.want {
			t.Errorf("%s: condition %q, want %q", tt.scenario, got, tt.want)
		}
	}
	// The filter finds the rows by their condition.
	filtered := getPage(t, e.URL+"/console/?q=threeDsRequestorChallengeInd")
	if got := filtered.Find(`code.pan[data-card="` + card + `"]`).Length(); got != 2 {
		t.Errorf("filter threeDsRequestorChallengeInd shows %d rows of %s, want 2", got, card)
	}
}

// getPage fetches a page and parses it.
func getPage(t *testing.T, u string) *goquery.Document {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
