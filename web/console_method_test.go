package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
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

// TestDemoDDC: the demo's device data capture as a merchant's: the
// console's server signs the JWT of the page's ddcId for the session's
// namespace (no token in it), the capture posts its outcome to the
// demo's callbackUrl, which hands it to the demo page, and the lookup
// continues the capture.
func TestDemoDDC(t *testing.T) {
	t.Parallel()
	e := newConsoleEnv(t, consoleOptions{})
	b := e.browser()
	b.login("demo-team")
	const ddcID = "0b8e7a34-52c6-4c8e-9d35-4b8a1f9c2e10"
	jwtReq := func(body string, header map[string]string) page {
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/console/demo/ddc-jwt", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		return b.do(req)
	}
	p := jwtReq(`{"ddcId":"`+ddcID+`"}`, map[string]string{"Sec-Fetch-Site": "same-origin"})
	var got struct{ JWT, DDCCollectURL string }
	if err := json.Unmarshal([]byte(p.Raw), &got); p.Status != http.StatusOK || err != nil || got.DDCCollectURL != e.URL+"/V2/ddcCollect" {
		t.Fatalf("ddc-jwt: HTTP %d %s", p.Status, p.Raw)
	}
	tok, err := jws.Parse(got.JWT)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tok.Payload), `"iss":"`+auth.ConsoleMerchant+`"`) || !strings.Contains(string(tok.Payload), `"OrgUnitId":"`+namespaceOf("demo-team")+`"`) ||
		strings.Contains(string(tok.Payload), "demo-team") {
		t.Errorf("claims %s", tok.Payload)
	}
	if p := jwtReq(`{"ddcId":"`+ddcID+`"}`, map[string]string{"Sec-Fetch-Site": "cross-site"}); p.Status != http.StatusForbidden {
		t.Errorf("cross-site: HTTP %d", p.Status)
	}
	if p := jwtReq(`{"ddcId":"a b"}`, nil); p.Status != http.StatusBadRequest {
		t.Errorf("bad ddcId: HTTP %d", p.Status)
	}

	out := b.post("/V2/ddcCollect", url.Values{"bin": {"4000000000009425"}, "callbackUrl": {e.URL + "/console/demo/ddc-callback"},
		"ddcId": {ddcID}, "jwt": {got.JWT}}, nil)
	form := out.Doc.Find("form#threeds-ddc-callback")
	if out.Status != http.StatusOK || form.AttrOr("action", "") != e.URL+"/console/demo/ddc-callback" {
		t.Fatalf("capture: HTTP %d\n%s", out.Status, out.Raw)
	}
	fields := url.Values{}
	form.Find("input").Each(func(_ int, s *goquery.Selection) { fields.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })
	cb := b.post("/console/demo/ddc-callback", fields, nil)
	d := cb.Doc.Find("#ddc")
	if cb.Status != http.StatusOK || d.AttrOr("data-ddc-id", "") != ddcID || d.AttrOr("data-status", "") != "completed" || d.AttrOr("data-comp-ind", "") != "U" {
		t.Fatalf("callback page: HTTP %d\n%s", cb.Status, cb.Raw)
	}
	if got := cb.Header.Get("X-Frame-Options"); got != "SAMEORIGIN" {
		t.Errorf("X-Frame-Options %q", got)
	}
	id := e.lookupID("demo-team", "4000000000009425", func(m map[string]any) { m["ddcId"] = ddcID })
	if id != d.AttrOr("data-id", "") {
		t.Errorf("the lookup %s does not continue the capture %s", id, d.AttrOr("data-id", ""))
	}
	if bad := b.post("/console/demo/ddc-callback", url.Values{"status": {"completed"}}, nil); bad.Status != http.StatusBadRequest || bad.Doc.Find("#notify-error").Length() != 1 {
		t.Errorf("a callback without ddcId: HTTP %d", bad.Status)
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
