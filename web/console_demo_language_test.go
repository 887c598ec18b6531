package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestConsoleDemoLanguageChoice: the demo checkout offers the cardholder
// pages' languages, each named in itself, after the browser's own (the
// default); ?lang= chooses one of them, and anything else leaves the
// browser's. The page's script sends the choice as browserInfo.language.
func TestConsoleDemoLanguageChoice(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	for _, tt := range []struct{ query, selected string }{
		{"", ""}, {"?lang=th", "th"}, {"?lang=de", "de"}, {"?lang=zz", ""}, {"?lang=th-TH", ""},
	} {
		p := b.get("/console/demo" + tt.query)
		if p.Status != http.StatusOK {
			t.Fatalf("GET /console/demo%s: HTTP %d", tt.query, p.Status)
		}
		var values, names []string
		p.Doc.Find("select#language option").Each(func(_ int, o *goquery.Selection) {
			values, names = append(values, o.AttrOr("value", "?")), append(names, o.Text())
		})
		if got := strings.Join(values, ","); got != ",en,de,th" {
			t.Errorf("%s: options %q, want the browser's, then en, de, th", tt.query, got)
		}
		if got := strings.Join(names, "|"); got != "The browser's|English|Deutsch|ไทย" {
			t.Errorf("%s: option names %q", tt.query, got)
		}
		if got := p.Doc.Find("select#language option[selected]").AttrOr("value", ""); got != tt.selected {
			t.Errorf("%s: selected %q, want %q", tt.query, got, tt.selected)
		}
		if !strings.Contains(p.Raw, `language:($("language").value||navigator.language`) {
			t.Errorf("%s: the script does not send the choice as browserInfo.language", tt.query)
		}
	}
}
