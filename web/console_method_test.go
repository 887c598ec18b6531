package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
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
	if got, want := strings.Join(kinds, ","), "ddc,method,method-done,lookup"; got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	if got := p.Doc.Find("li[data-kind=ddc] .ev-kind").Text(); got != "Device data collection" {
		t.Errorf("ddc label %q", got)
	}
	if got := p.Doc.Find("li[data-kind=method-done] .ev-detail").Text(); !strings.Contains(got, "3DS Method completed after") {
		t.Errorf("method detail %q", got)
	}
	if got := p.Doc.Find("li[data-kind=lookup] .ev-detail").Text(); !strings.Contains(got, "threeDSCompInd Y") {
		t.Errorf("lookup detail %q", got)
	}
	q := b.get("/console/transactions/" + unlinked)
	if got := q.Doc.Find("li[data-kind=lookup] .ev-detail").Text(); !strings.Contains(got, "the ddcId names no device data collection") {
		t.Errorf("unknown ddcId not flagged: %q", got)
	}
	if got := q.Doc.Find("li[data-kind=lookup] pre.request").Text(); !strings.Contains(got, "ddc-never-made") {
		t.Errorf("the lookup's request does not show the ddcId:\n%s", got)
	}
}

// TestDemoMethodNotify: the demo's threeDSMethodNotificationURL hands
// the transaction id to the demo page, and refuses what is not the
// method's notification.
func TestDemoMethodNotify(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	const id = "5d5e5a1c-0000-4000-8000-000000000000"
	for _, tt := range []struct {
		data   string
		status int
		sel    string
	}{
		{emulator.EncodeMethodData(emulator.MethodData{ThreeDSServerTransID: id}), http.StatusOK, `#method[data-id="` + id + `"]`},
		{"not-base64%%", http.StatusBadRequest, "#notify-error"},
		{"", http.StatusBadRequest, "#notify-error"},
	} {
		resp, err := http.PostForm(e.URL+"/console/demo/method-notify", url.Values{"threeDSMethodData": {tt.data}})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tt.status || doc.Find(tt.sel).Length() != 1 {
			t.Errorf("%q: status %d (%v), want %d and %s", tt.data, resp.StatusCode, err, tt.status, tt.sel)
		}
		if got := resp.Header.Get("X-Frame-Options"); got != "SAMEORIGIN" {
			t.Errorf("X-Frame-Options %q", got)
		}
	}
}

// TestConsoleListsACollectionWithoutLookup: a collection that no lookup
// followed is listed as such, not with an empty status.
func TestConsoleListsACollectionWithoutLookup(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	d := e.api("/authentication/ddc", "alone", ddcBody("4000000000009409"))
	id, _ := d["threeDsServerTransId"].(string)
	b := e.browser()
	b.login("alone")
	row := b.get("/console/transactions").Doc.Find(`tr[data-id="` + id + `"]`)
	if row.Length() != 1 {
		t.Fatalf("the collection %s is not listed", id)
	}
	badge := row.Find(".status")
	if got := strings.TrimSpace(badge.Text()); got == "" {
		t.Error("the status badge is empty")
	}
	if got := badge.AttrOr("title", ""); !strings.Contains(got, "no lookup yet") {
		t.Errorf("badge title %q, want it to say no lookup followed", got)
	}
	if !strings.Contains(row.Text(), "collection only") {
		t.Errorf("row %q does not say it is a collection only", row.Text())
	}
}
