package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestConsoleShowsTheMethod: the transaction page lists the collection
// and the 3DS Method before the lookup, and flags an unknown ddcId.
func TestConsoleShowsTheMethod(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	d := e.api("/authentication/ddc", "meth", ddcBody("4000000000009409"))
	id, _ := d["threeDsServerTransId"].(string)
	data, _ := d["threeDSMethodData"].(string)
	post := func(path, data string) string {
		resp, err := http.PostForm(e.URL+path, url.Values{"threeDSMethodData": {data}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		return doc.Find("input[name=threeDSMethodData]").AttrOr("value", "")
	}
	post("/acs/method/done", post("/acs/method", data))
	e.lookupID("meth", "4000000000009409", func(m map[string]any) { m["ddcId"], m["threeDSCompInd"] = d["ddcId"], "Y" })
	unlinked := e.lookupID("meth", "4000000000009409", func(m map[string]any) { m["ddcId"] = "ddc-never-made" })

	b := e.browser()
	b.login("meth")
	p := b.get("/console/transactions/" + id)
	var kinds []string
	p.Doc.Find("li.event").Each(func(_ int, s *goquery.Selection) { kinds = append(kinds, s.AttrOr("data-kind", "")) })
	if got, want := strings.Join(kinds, ","), "ddc,method,method,lookup"; got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	if got := p.Doc.Find("li[data-kind=ddc] .ev-kind").Text(); got != "Device data collection" {
		t.Errorf("ddc label %q", got)
	}
	if got := p.Doc.Find("li[data-kind=method]").Last().Find(".ev-detail").Text(); !strings.Contains(got, "3DS Method completed after") {
		t.Errorf("method detail %q", got)
	}
	if got := p.Doc.Find("li[data-kind=lookup] .ev-detail").Text(); !strings.Contains(got, "threeDSCompInd Y") {
		t.Errorf("lookup detail %q", got)
	}
	q := b.get("/console/transactions/" + unlinked)
	if got := q.Doc.Find("li[data-kind=lookup] .ev-detail").Text(); !strings.Contains(got, `"ddc-never-made" names no device data collection`) {
		t.Errorf("unknown ddcId not flagged: %q", got)
	}
}
