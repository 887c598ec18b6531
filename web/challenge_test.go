package web_test

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

var (
	stateRe  = regexp.MustCompile(`name="state" value="([^"]+)"`)
	fieldRe  = regexp.MustCompile(`name="([a-zA-Z]+)" value="([^"]*)"`)
	actionRe = regexp.MustCompile(`<form[^>]*action="([^"]+)"`)
)

// form posts url-encoded values as a browser would.
func (e *env) form(path string, values url.Values) result {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.URL+path, strings.NewReader(values.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.do(req)
}

// challenge is a started challenge: the lookup and the fields its
// challengeHtml posts.
type challenge struct {
	lookup result
	creq   string
	cr     message.CReq
}

func (e *env) startChallenge(mutate func(map[string]any)) challenge {
	e.t.Helper()
	return e.startChallengeOf(e.card("visa-challenge"), mutate)
}

// startChallengeCard starts the challenge of another card.
func (e *env) startChallengeCard(card string) challenge {
	e.t.Helper()
	return e.startChallengeOf(card, nil)
}

func (e *env) startChallengeOf(card string, mutate func(map[string]any)) challenge {
	e.t.Helper()
	r := e.lookup("tok", testkit.LookupBody(e.t, card, mutate))
	if r.Str("status") != "C" {
		e.t.Fatalf("lookup status = %q, want C: %s", r.Str("status"), r.Raw)
	}
	fields := formFields(r.Str("challengeHtml"))
	c := challenge{lookup: r, creq: fields["creq"]}
	raw, err := base64.RawURLEncoding.DecodeString(c.creq)
	if err != nil {
		e.t.Fatalf("creq is not unpadded Base64Url: %v", err)
	}
	if err := json.Unmarshal(raw, &c.cr); err != nil {
		e.t.Fatal(err)
	}
	return c
}

func formFields(page string) map[string]string {
	m := map[string]string{}
	for _, f := range fieldRe.FindAllStringSubmatch(page, -1) {
		m[f[1]] = html.UnescapeString(f[2])
	}
	return m
}

func encodeCReq(t *testing.T, c message.CReq) string {
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestChallengeHTML(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(func(m map[string]any) { m["challengeWindowSize"] = 2 })
	page := c.lookup.Str("challengeHtml")
	if got := actionRe.FindStringSubmatch(page); got == nil || got[1] != e.URL+"/acs/challenge" {
		t.Errorf("form action = %v, want %s/acs/challenge", got, e.URL)
	}
	for _, want := range []string{`method="post"`, `enctype="application/x-www-form-urlencoded"`, "<noscript>"} {
		if !strings.Contains(page, want) {
			t.Errorf("challengeHtml lacks %s", want)
		}
	}
	want := message.CReq{
		ThreeDSServerTransID: c.lookup.Str("threeDsServerTransId"),
		ACSTransID:           c.lookup.Str("acsTransId"),
		MessageType:          "CReq",
		MessageVersion:       c.lookup.Str("version"),
		ChallengeWindowSize:  "02",
	}
	if c.cr != want {
		t.Errorf("CReq = %+v, want %+v", c.cr, want)
	}
	if got := formFields(page)["threeDSSessionData"]; got != "eyJvcmRlciI6IjAwMDEyMyJ9" {
		t.Errorf("threeDSSessionData = %q, want the lookup's session", got)
	}
}

// decide opens the challenge with its CReq and presses a button.
func (e *env) decide(c challenge, action, otp string) result {
	e.t.Helper()
	page := e.form("/acs/challenge", url.Values{"creq": {c.creq}, "threeDSSessionData": {"s"}})
	if page.Status != http.StatusOK {
		e.t.Fatalf("challenge page: %d %s", page.Status, page.Raw)
	}
	return e.press(page, action, otp)
}

func (e *env) press(page result, action, otp string) result {
	e.t.Helper()
	return e.answer(page, url.Values{"action": {action}, "otp": {otp}})
}

// answer posts the fields of a page's form with the page's state.
func (e *env) answer(page result, fields url.Values) result {
	e.t.Helper()
	m := stateRe.FindStringSubmatch(page.Raw)
	if m == nil {
		e.t.Fatalf("no state on the page: %s", page.Raw)
	}
	fields.Set("state", html.UnescapeString(m[1]))
	return e.form("/acs/decision", fields)
}

func TestChallengeDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		action, otp            string
		status, reason, cancel string
		eci                    string
		cycles                 string // interactionCounter: a cancel is no authentication cycle
	}{
		{"pass", "", "Y", "", "", "05", "01"},
		{"fail", "", "N", "01", "", "07", "01"},
		{"cancel", "", "N", "01", "01", "07", "00"},
		{"otp", "1234", "Y", "", "", "05", "01"},
		{"otp", "0000", "N", "01", "", "07", "01"},
	}
	for _, tt := range tests {
		t.Run(tt.action+tt.otp, func(t *testing.T) {
			e := newEnv(t)
			c := e.startChallenge(nil)
			final := e.decide(c, tt.action, tt.otp)
			f := formFields(final.Raw)
			if got := actionRe.FindStringSubmatch(final.Raw); got == nil || got[1] != "https://shop.example.com/checkout/3ds/notify" {
				t.Errorf("final page posts to %v, want the notificationUrl", got)
			}
			if f["threeDSSessionData"] != "s" {
				t.Errorf("threeDSSessionData = %q, want what the browser posted with the CReq", f["threeDSSessionData"])
			}
			raw, err := base64.RawURLEncoding.DecodeString(f["cres"])
			if err != nil {
				t.Fatalf("cres: %v", err)
			}
			var cres message.CRes
			if err := json.Unmarshal(raw, &cres); err != nil {
				t.Fatal(err)
			}
			wantCRes := message.CRes{
				ThreeDSServerTransID: c.cr.ThreeDSServerTransID, ACSTransID: c.cr.ACSTransID,
				MessageType: "CRes", MessageVersion: c.cr.MessageVersion, ChallengeCompletionInd: "Y", TransStatus: tt.status,
			}
			if cres != wantCRes {
				t.Errorf("CRes = %+v, want %+v", cres, wantCRes)
			}
			q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
			for k, v := range map[string]string{"transactionStatus": tt.status, "statusReason": tt.reason, "challengeCancel": tt.cancel, "eci": tt.eci, "interactionCounter": tt.cycles, "authenticationType": "02"} {
				if got := q.Str(k); got != v {
					t.Errorf("enquiry %s = %q, want %q", k, got, v)
				}
			}
			if (tt.status == "Y") != (len(q.Str("authenticationValue")) == 28) {
				t.Errorf("authenticationValue = %q with status %s", q.Str("authenticationValue"), tt.status)
			}
		})
	}
}

func TestEnquiryWhileChallengeOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(nil)
	q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
	if q.Str("transactionStatus") != "C" || q.Str("eci") != "" || q.Str("authenticationValue") != "" {
		t.Errorf("pending challenge enquiry: %s", q.Raw)
	}
}

func TestWrongOTPs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(nil)
	page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
	for i, left := range []string{"2 attempts left", "1 attempt left"} {
		page = e.press(page, "otp", "9999")
		if !strings.Contains(page.Raw, left) {
			t.Fatalf("attempt %d: page does not say %q", i+1, left)
		}
	}
	final := e.press(page, "otp", "9999")
	if !strings.Contains(final.Raw, `name="cres"`) {
		t.Fatalf("third wrong OTP does not end the challenge: %s", final.Raw)
	}
	q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
	if q.Str("transactionStatus") != "N" || q.Str("statusReason") != "19" || q.Str("interactionCounter") != "03" {
		t.Errorf("after 3 wrong OTPs: %s", q.Raw)
	}
}

func TestCReqErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(nil)
	other := e.startChallenge(nil)
	done := e.startChallenge(nil)
	e.decide(done, "pass", "")

	mod := func(f func(*message.CReq)) string {
		cr := c.cr
		f(&cr)
		return encodeCReq(t, cr)
	}
	padded := base64.URLEncoding.EncodeToString([]byte(mustJSON(t, c.cr)))
	std := base64.StdEncoding.EncodeToString([]byte(mustJSON(t, c.cr)))
	tests := []struct {
		name   string
		creq   string
		status int
		emv    string
	}{
		{"missing creq", "", 400, "201"},
		{"not base64", "%%%not-base64%%%", 400, "203"},
		{"not JSON", base64.RawURLEncoding.EncodeToString([]byte("hello")), 400, "203"},
		{"only an unknown field", base64.RawURLEncoding.EncodeToString([]byte(`{"x":1}`)), 400, "201"},
		{"an unknown element is ignored", withMember(t, c.cr, `"sdkCounterStoA":"001"`), 200, ""},
		{"a non-critical extension is ignored", withMember(t, c.cr, `"messageExtension":[{"name":"n","id":"E1","criticalityIndicator":false,"data":{}}]`), 200, ""},
		{"a critical extension is refused", withMember(t, c.cr, `"messageExtension":[{"name":"n","id":"E2","criticalityIndicator":true,"data":{}}]`), 400, "202"},
		{"a duplicate key", withMember(t, c.cr, `"messageType":"CReq"`), 400, "204"},
		{"a malformed threeDSServerTransID", mod(func(c *message.CReq) { c.ThreeDSServerTransID = "not-a-uuid" }), 400, "203"},
		{"missing ids", mod(func(c *message.CReq) { c.ACSTransID = "" }), 400, "201"},
		{"wrong messageType", mod(func(c *message.CReq) { c.MessageType = "AReq" }), 400, "203"},
		{"bad window size", mod(func(c *message.CReq) { c.ChallengeWindowSize = "06" }), 400, "203"},
		{"unknown transaction", mod(func(c *message.CReq) { c.ThreeDSServerTransID = "8a880dc0-d2d2-4067-bcb1-b08d1690b26e" }), 404, "301"},
		{"acsTransID of another transaction", mod(func(c *message.CReq) { c.ACSTransID = other.cr.ACSTransID }), 409, "305"},
		{"wrong messageVersion", mod(func(c *message.CReq) { c.MessageVersion = "2.1.0" }), 400, "203"},
		{"completed transaction", encodeCReq(t, done.cr), 409, "305"},
		{"padded base64 is accepted", padded, 200, ""},
		{"standard base64 is accepted", std, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.form("/acs/challenge", url.Values{"creq": {tt.creq}})
			if r.Status != tt.status {
				t.Fatalf("status = %d, want %d: %s", r.Status, tt.status, r.Raw)
			}
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Errorf("Content-Type = %q, want an HTML page", r.Header.Get("Content-Type"))
			}
			if tt.emv != "" && !strings.Contains(r.Raw, tt.emv) {
				t.Errorf("page does not name EMV error %s: %s", tt.emv, r.Raw)
			}
		})
	}
	// None of the failed CReqs changed the transactions.
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": other.cr.ThreeDSServerTransID}); q.Str("transactionStatus") != "C" {
		t.Errorf("other transaction changed to %s", q.Str("transactionStatus"))
	}
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": done.cr.ThreeDSServerTransID}); q.Str("transactionStatus") != "Y" {
		t.Errorf("completed transaction changed to %s", q.Str("transactionStatus"))
	}
}

// withMember is the Base64Url CReq cr with one more member (raw JSON).
func withMember(t *testing.T, cr message.CReq, member string) string {
	js := mustJSON(t, cr)
	return base64.RawURLEncoding.EncodeToString([]byte(strings.TrimSuffix(js, "}") + "," + member + "}"))
}

// TestSessionDataIsWhatTheBrowserPosted: the final CRes returns the
// threeDSSessionData posted with the CReq byte for byte (none when none
// was), not the lookup's session, which only the hosted URL (no CReq)
// returns; more than 1024 characters is refused with a page.
func TestSessionDataIsWhatTheBrowserPosted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	odd := "a+b/c=d%20é\"<x>" + strings.Repeat("z", 1000)
	for _, tt := range []struct {
		name   string
		posted *string
		want   string
	}{
		{"posted with the CReq", &odd, odd},
		{"none posted", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := e.startChallenge(nil)
			form := url.Values{"creq": {c.creq}}
			if tt.posted != nil {
				form.Set("threeDSSessionData", *tt.posted)
			}
			page := e.form("/acs/challenge", form)
			wrong := e.press(page, "otp", "9999") // shown again: the session stays
			final := e.press(wrong, "pass", "")
			if got, ok := formFields(final.Raw)["threeDSSessionData"]; got != tt.want || ok != (tt.want != "") {
				t.Errorf("final threeDSSessionData = %q (present %v), want %q", got, ok, tt.want)
			}
		})
	}
	c := e.startChallenge(nil)
	hosted := e.do(mustRequest(t, http.MethodGet, c.lookup.Str("hostedChallengeUrl")))
	if got := formFields(e.press(hosted, "pass", "").Raw)["threeDSSessionData"]; got != "eyJvcmRlciI6IjAwMDEyMyJ9" {
		t.Errorf("hosted URL: threeDSSessionData = %q, want the lookup's session", got)
	}
	long := e.form("/acs/challenge", url.Values{"creq": {e.startChallenge(nil).creq}, "threeDSSessionData": {strings.Repeat("s", 1025)}})
	if long.Status != http.StatusBadRequest || !strings.Contains(long.Raw, "203") || !strings.Contains(long.Raw, "threeDSSessionData") {
		t.Errorf("1025 characters of session: %d %s", long.Status, long.Raw)
	}
}

func mustRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestDecisionStateProtection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(nil)
	page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
	state := html.UnescapeString(stateRe.FindStringSubmatch(page.Raw)[1])

	tampered := []byte(state)
	tampered[len(tampered)/2] ^= 1
	for name, st := range map[string]string{
		"missing":  "",
		"forged":   "MTY5OTk5OTk5OXxmb3JnZWR8ZmFrZQ==",
		"tampered": string(tampered),
	} {
		r := e.form("/acs/decision", url.Values{"state": {st}, "action": {"pass"}})
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Raw, "302") {
			t.Errorf("%s state: status %d, want 400 with EMV 302", name, r.Status)
		}
	}
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID}); q.Str("transactionStatus") != "C" {
		t.Fatalf("refused decisions changed the transaction: %s", q.Raw)
	}
	ok := e.form("/acs/decision", url.Values{"state": {state}, "action": {"fail"}})
	if !strings.Contains(ok.Raw, `name="cres"`) {
		t.Fatalf("genuine decision refused: %s", ok.Raw)
	}
	replay := e.form("/acs/decision", url.Values{"state": {state}, "action": {"pass"}})
	if replay.Status != http.StatusConflict || !strings.Contains(replay.Raw, "305") {
		t.Errorf("replayed decision: status %d, want 409 with EMV 305", replay.Status)
	}
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID}); q.Str("transactionStatus") != "N" {
		t.Errorf("replay changed the result: %s", q.Raw)
	}
	bad := e.form("/acs/decision", url.Values{"state": {state}, "action": {"steal"}})
	if bad.Status != http.StatusBadRequest {
		t.Errorf("unknown action: status %d, want 400", bad.Status)
	}
}

func TestChallengeTimeouts(t *testing.T) {
	t.Parallel()
	opts := func(o *envOptions) { o.firstCReq, o.challenge = 30*time.Second, 2*time.Minute }
	t.Run("first CReq never arrives", func(t *testing.T) {
		e := newEnv(t, opts)
		c := e.startChallenge(nil)
		e.Clock.Advance(31 * time.Second)
		q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
		if q.Str("transactionStatus") != "N" || q.Str("statusReason") != "14" || q.Str("challengeCancel") != "05" {
			t.Errorf("enquiry after the first-CReq window: %s", q.Raw)
		}
		late := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
		if late.Status != http.StatusConflict || !strings.Contains(late.Raw, "timed out") {
			t.Errorf("late CReq: status %d, want 409 saying timed out", late.Status)
		}
	})
	t.Run("opened but never decided", func(t *testing.T) {
		e := newEnv(t, opts)
		c := e.startChallenge(nil)
		page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
		e.Clock.Advance(2*time.Minute + time.Second)
		q := e.enquiry("tok", map[string]any{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
		if q.Str("transactionStatus") != "N" || q.Str("statusReason") != "14" || q.Str("challengeCancel") != "04" {
			t.Errorf("enquiry after the challenge window: %s", q.Raw)
		}
		if r := e.press(page, "pass", ""); r.Status != http.StatusConflict {
			t.Errorf("decision after the timeout: status %d, want 409", r.Status)
		}
	})
	t.Run("opened in time is not a first-CReq timeout", func(t *testing.T) {
		e := newEnv(t, opts)
		c := e.startChallenge(nil)
		e.Clock.Advance(20 * time.Second)
		page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
		e.Clock.Advance(20 * time.Second)
		r := e.press(page, "pass", "")
		if !strings.Contains(r.Raw, `name="cres"`) {
			t.Fatalf("decision in time refused: %s", r.Raw)
		}
	})
}

func TestHostedChallengeURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(func(m map[string]any) { m["challengeWindowSize"] = 1 })
	req, _ := http.NewRequest(http.MethodGet, c.lookup.Str("hostedChallengeUrl"), nil)
	page := e.do(req)
	if page.Status != http.StatusOK || !strings.Contains(page.Raw, `data-window-size="1"`) {
		t.Fatalf("hosted page: %d %s", page.Status, page.Raw)
	}
	csp := page.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'nonce-", "frame-ancestors *"} {
		if !strings.Contains(csp, want) {
			t.Errorf("challenge page CSP %q lacks %q (merchants must be able to frame it, scripts need the nonce)", csp, want)
		}
	}
	if page.Header.Get("X-Frame-Options") != "" {
		t.Errorf("challenge page sends X-Frame-Options %q: merchants could not frame it", page.Header.Get("X-Frame-Options"))
	}
	if r := e.press(page, "pass", ""); !strings.Contains(r.Raw, `name="cres"`) {
		t.Errorf("hosted decision did not end with a CRes: %s", r.Raw)
	}
}

func TestNullNotificationURLShowsResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.startChallenge(func(m map[string]any) { m["notificationUrl"] = nil })
	final := e.decide(c, "pass", "")
	if got := actionRe.FindStringSubmatch(final.Raw); got == nil || got[1] != e.URL+"/acs/notification" {
		t.Fatalf("final page posts to %v, want the emulator's own notification page", got)
	}
	f := formFields(final.Raw)
	posted := url.Values{}
	for k, v := range f { // every field of the form, as the browser posts it
		posted.Set(k, v)
	}
	res := e.form("/acs/notification", posted)
	for _, want := range []string{c.cr.ThreeDSServerTransID, "ECI", "05", "Authorise"} {
		if !strings.Contains(res.Raw, want) {
			t.Errorf("result page lacks %q", want)
		}
	}
	enq := e.enquiry("tok", map[string]string{"threeDsServerTransId": c.cr.ThreeDSServerTransID})
	if cavv := enq.Str("authenticationValue"); cavv == "" || strings.Contains(res.Raw, cavv) {
		t.Errorf("the result page shows the authentication value %q (the enquiry's is %q)", cavv, cavv)
	}
	if bad := e.form("/acs/notification", url.Values{"cres": {"garbage"}}); bad.Status != http.StatusBadRequest {
		t.Errorf("garbage cres: status %d, want 400", bad.Status)
	}
}

// TestForgedCResDisclosesNothing: a CRes anybody can write (the
// Base64Url of {"threeDSServerTransID": <another tenant's id>}), posted to
// the emulator's notification page, shows nothing of that transaction:
// neither a frictionless one (which never had a CRes) nor a challenge,
// nor with the token of another transaction.
func TestForgedCResDisclosesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	victim := e.lookup("victim", testkit.LookupBody(t, e.card("visa-frictionless-y"), func(m map[string]any) { m["externalReferenceId"] = "VICTIM-REF-1" }))
	challenged := e.startChallenge(func(m map[string]any) { m["notificationUrl"] = nil; m["externalReferenceId"] = "VICTIM-REF-2" })
	e.decide(challenged, "pass", "")
	attacker := e.startChallenge(func(m map[string]any) { m["notificationUrl"] = nil })
	stolen := formFields(e.decide(attacker, "pass", "").Raw)[resultFieldName]
	forge := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	for _, tt := range []struct {
		name   string
		form   url.Values
		status int
	}{
		{"a frictionless transaction's id", url.Values{"cres": {forge(map[string]string{"threeDSServerTransID": victim.Str("threeDsServerTransId")})}}, http.StatusBadRequest},
		{"a challenged transaction's ids", url.Values{"cres": {forge(map[string]string{"threeDSServerTransID": challenged.cr.ThreeDSServerTransID, "acsTransID": challenged.cr.ACSTransID, "transStatus": "Y"})}}, http.StatusBadRequest},
		{"with another transaction's token", url.Values{"cres": {forge(map[string]string{"threeDSServerTransID": challenged.cr.ThreeDSServerTransID, "acsTransID": challenged.cr.ACSTransID})}, resultFieldName: {stolen}}, http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.form("/acs/notification", tt.form)
			if r.Status != tt.status {
				t.Errorf("HTTP %d, want %d", r.Status, tt.status)
			}
			for _, secret := range []string{"VICTIM-REF", "Authorise", "dd class=\"eci\"", victim.Str("authenticationValue")} {
				if strings.Contains(r.Raw, secret) {
					t.Errorf("the page discloses %q:\n%s", secret, r.Raw)
				}
			}
			if !strings.Contains(r.Raw, "302") {
				t.Errorf("the page does not say EMV 302:\n%s", r.Raw)
			}
		})
	}
}

// resultFieldName is the form field of the signed result token.
const resultFieldName = "result"

func TestHeadlessChallenge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		body                   map[string]any
		status, reason, cancel string
	}{
		{map[string]any{"action": "pass"}, "Y", "", ""},
		{map[string]any{"action": "fail"}, "N", "01", ""},
		{map[string]any{"action": "cancel"}, "N", "01", "01"},
		{map[string]any{"action": "otp", "otp": "1234"}, "Y", "", ""},
	}
	for _, tt := range tests {
		t.Run(mustJSON(t, tt.body), func(t *testing.T) {
			c := e.startChallenge(nil)
			id := c.cr.ThreeDSServerTransID
			if r := e.call(http.MethodPost, "/challenge/"+id, "intruder", tt.body); r.Status != http.StatusNotFound {
				t.Errorf("another token completed the challenge: %d %s", r.Status, r.Raw)
			}
			r := e.call(http.MethodPost, "/challenge/"+id, "tok", tt.body)
			if r.Status != http.StatusOK || r.Body["final"] != true || r.Str("transStatus") != tt.status {
				t.Fatalf("headless: %d %s", r.Status, r.Raw)
			}
			raw, _ := base64.RawURLEncoding.DecodeString(r.Str("cres"))
			var cres message.CRes
			if err := json.Unmarshal(raw, &cres); err != nil || cres.TransStatus != tt.status || cres.MessageType != "CRes" {
				t.Errorf("cres = %s (%v)", raw, err)
			}
			if r.Str("threeDSSessionData") != "eyJvcmRlciI6IjAwMDEyMyJ9" {
				t.Errorf("threeDSSessionData = %q", r.Str("threeDSSessionData"))
			}
			q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id})
			if q.Str("transactionStatus") != tt.status || q.Str("statusReason") != tt.reason || q.Str("challengeCancel") != tt.cancel {
				t.Errorf("enquiry: %s", q.Raw)
			}
			again := e.call(http.MethodPost, "/challenge/"+id, "tok", tt.body)
			checkErrorBody(t, again, http.StatusConflict, "305")
		})
	}
	t.Run("bad bodies", func(t *testing.T) {
		c := e.startChallenge(nil)
		id := c.cr.ThreeDSServerTransID
		checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", `{"action":`), 400, "101")
		checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", `{"action":"pass","extra":1}`), 400, "101")
		checkErrorBody(t, e.call(http.MethodPost, "/challenge/"+id, "tok", `{"action":"maybe"}`), 400, "203")
		checkErrorBody(t, e.call(http.MethodPost, "/challenge/unknown", "tok", `{"action":"pass"}`), 404, "301")
	})
}

func TestAutoResolvingChallenges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, sc := range e.Cat.All() {
		if sc.Challenge == nil || sc.Challenge.Auto == "" || sc.Match.CardNumber == "" {
			continue
		}
		t.Run(sc.ID, func(t *testing.T) {
			r := e.lookup("tok", testkit.LookupBody(t, sc.Match.CardNumber, nil))
			id := r.Str("threeDsServerTransId")
			if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id}); sc.Challenge.AutoAfter > 0 && q.Str("transactionStatus") != "C" {
				t.Errorf("resolved before autoAfter: %s", q.Raw)
			}
			e.Clock.Advance(sc.Challenge.AutoAfter)
			want := map[string]string{"pass": "Y", "fail": "N", "cancel": "N"}[sc.Challenge.Auto]
			q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id})
			if q.Str("transactionStatus") != want {
				t.Errorf("after autoAfter: status %q, want %q: %s", q.Str("transactionStatus"), want, q.Raw)
			}
			if sc.Challenge.Auto == "cancel" && q.Str("challengeCancel") != "01" {
				t.Errorf("auto-cancel without challengeCancel 01: %s", q.Raw)
			}
		})
	}
}
