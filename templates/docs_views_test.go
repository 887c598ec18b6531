package templates

import (
	"html/template"
	"strings"
	"testing"
)

func init() {
	views[PageDocs] = DocsPage{Nonce: "n0nce", Base: "/3ds", Title: "Configuration",
		Body:  template.HTML(`<h1 id="configuration">Configuration</h1><table><tr><td align="right"><code>--addr</code></td></tr></table><pre><code>go run ./cmd/threeds-sandbox</code></pre>`),
		Pages: []DocsLink{{Title: "Documentation", Href: "/3ds/docs/"}, {Title: "Configuration", Href: "/3ds/docs/configuration", Current: true}}}
}

func TestDocsPageMarksTheCurrentPage(t *testing.T) {
	doc, _ := render(t, PageDocs, views[PageDocs])
	cur := doc.Find(`.docs-nav a[aria-current="page"]`)
	if cur.Length() != 1 || cur.AttrOr("href", "") != "/3ds/docs/configuration" {
		t.Errorf("current entries %d, the first linking %q; want one, /3ds/docs/configuration", cur.Length(), cur.AttrOr("href", ""))
	}
	if got := doc.Find("title").Text(); !strings.HasPrefix(got, "Configuration") {
		t.Errorf("title %q", got)
	}
	if got := doc.Find("article.doc h1#configuration").Length(); got != 1 {
		t.Errorf("the body's heading is shown %d times, want once, as given", got)
	}
	if got := doc.Find(`header a[href="/3ds/"]`).Length(); got == 0 {
		t.Error("the header does not lead back to the front door")
	}
}
