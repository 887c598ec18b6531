package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// withJournal keeps a journal, as the binary does.
func withJournal(o *envOptions) { o.journal = true }

// list is the body of GET /admin/transactions.
type list struct {
	Transactions []map[string]any `json:"transactions"`
	Next         string           `json:"next"`
}

// listTransactions asks for token's transactions with the query q.
func (e *env) listTransactions(token, q string) list {
	e.t.Helper()
	r := e.call(http.MethodGet, "/admin/transactions"+q, token, nil)
	if r.Status != http.StatusOK {
		e.t.Fatalf("GET /admin/transactions%s = %d %s", q, r.Status, r.Raw)
	}
	var l list
	if err := json.Unmarshal([]byte(r.Raw), &l); err != nil {
		e.t.Fatal(err)
	}
	if _, ok := r.Body["next"]; ok && l.Next == "" {
		e.t.Errorf("next present but empty: %s", r.Raw)
	}
	return l
}

// ids lists the threeDsServerTransIds of a listing.
func (l list) ids() []string {
	var out []string
	for _, t := range l.Transactions {
		out = append(out, t["threeDsServerTransId"].(string))
	}
	return out
}

// lookupRef runs a lookup of card with reference ref and returns its id.
func (e *env) lookupRef(token, card, ref string) string {
	e.t.Helper()
	r := e.lookup(token, testkit.LookupBody(e.t, card, func(m map[string]any) { m["externalReferenceId"] = ref }))
	if r.Status != http.StatusOK {
		e.t.Fatalf("lookup %s: %d %s", card, r.Status, r.Raw)
	}
	return r.Str("threeDsServerTransId")
}

func TestAdminListTransactions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withJournal)
	var ids []string
	for i, card := range []string{"visa-frictionless-y", "visa-frictionless-n", "visa-challenge", "mastercard-frictionless-y", "visa-frictionless-y"} {
		ids = append(ids, e.lookupRef("tok", e.card(card), fmt.Sprintf("order-%d", i%2)))
		e.Clock.Advance(time.Second)
	}
	e.lookupRef("other", e.card("visa-frictionless-y"), "order-0")

	all := e.listTransactions("tok", "")
	if got, want := strings.Join(all.ids(), ","), strings.Join([]string{ids[4], ids[3], ids[2], ids[1], ids[0]}, ","); got != want || all.Next != "" {
		t.Fatalf("listing = %s (next %q), want newest first: %s", got, all.Next, want)
	}
	// The fields a test asserts on.
	n := all.Transactions[3]
	for k, want := range map[string]any{
		"threeDsServerTransId": ids[1], "externalReferenceId": "order-1", "status": "N", "final": true, "statusReason": "01",
		"eci": "07", "cardScheme": "VISA", "cardBin": "400000", "cardLast4": e.card("visa-frictionless-n")[12:],
		"scenarioId": "visa-frictionless-n", "createdAt": "2026-11-21T12:00:01.000Z", "updatedAt": "2026-11-21T12:00:01.000Z",
		"lookupStatus": "N", "messageVersion": "2.2.0", "lastEvent": "lookup", "eventCount": 1.0, "enquiryCount": 0.0,
	} {
		if n[k] != want {
			t.Errorf("%s = %v, want %v", k, n[k], want)
		}
	}
	if c := all.Transactions[2]; c["status"] != "C" || c["final"] != false {
		t.Errorf("an open challenge: %v", c)
	}
	for _, tt := range []struct{ q, want string }{
		{"?externalReferenceId=order-1", ids[3] + "," + ids[1]},
		{"?status=Y", ids[4] + "," + ids[3] + "," + ids[0]},
		{"?status=C", ids[2]},
		{"?scenarioId=visa-frictionless-y", ids[4] + "," + ids[0]},
		{"?since=2026-11-21T12:00:03Z", ids[4] + "," + ids[3]},
		{"?since=2026-11-21T13:00:03%2B01:00&status=Y", ids[4] + "," + ids[3]},
		{"?status=R", ""},
	} {
		if got := strings.Join(e.listTransactions("tok", tt.q).ids(), ","); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.q, got, tt.want)
		}
	}
	// Pages of two, while new transactions arrive.
	var pages []string
	q := "?limit=2"
	for range 5 {
		l := e.listTransactions("tok", q)
		pages = append(pages, strings.Join(l.ids(), ","))
		e.lookupRef("tok", e.card("visa-frictionless-y"), "late")
		if l.Next == "" {
			break
		}
		q = "?limit=2&cursor=" + url.QueryEscape(l.Next)
	}
	if got, want := strings.Join(pages, " | "), ids[4]+","+ids[3]+" | "+ids[2]+","+ids[1]+" | "+ids[0]; got != want {
		t.Errorf("pages = %s\nwant    %s", got, want)
	}
	// Another token sees only its own.
	if l := e.listTransactions("other", ""); len(l.Transactions) != 1 || l.Transactions[0]["externalReferenceId"] != "order-0" {
		t.Errorf("the other token's listing: %v", l.ids())
	}
	if l := e.listTransactions("nobody", ""); len(l.Transactions) != 0 || l.Transactions == nil {
		t.Errorf("a token without transactions: %+v", l)
	}
}

func TestAdminTransactionEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withJournal)
	body := testkit.LookupBody(t, e.card("visa-challenge"), func(m map[string]any) {
		m["browserInfo"].(map[string]any)["userAgent"] = "Checkout/1.0 (test)"
		m["externalReferenceId"] = "order-42"
	})
	l := e.lookup("tok", body)
	id := l.Str("threeDsServerTransId")
	if r := e.call(http.MethodGet, "/acs/hosted/"+id, "", nil); r.Status != http.StatusOK {
		t.Fatalf("open: %d", r.Status)
	}
	e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "otp", "otp": "9999"})
	e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "pass"})
	e.enquiry("tok", map[string]any{"threeDsServerTransId": id})

	r := e.call(http.MethodGet, "/admin/transactions/"+strings.ToUpper(id), "tok", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET: %d %s", r.Status, r.Raw)
	}
	var d struct {
		Status, ThreeDsServerTransId string
		Final                        bool
		Events                       []struct {
			Type, At, Status, Detail string
			Request, Response        map[string]any
		}
	}
	if err := json.Unmarshal([]byte(r.Raw), &d); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range d.Events {
		types = append(types, ev.Type)
	}
	if got := strings.Join(types, ","); got != "lookup,creq,codeSent,otpAttempt,decision,cres,enquiry" || d.Status != "Y" || !d.Final {
		t.Fatalf("events %s, status %s final %v", got, d.Status, d.Final)
	}
	lookup := d.Events[0]
	if ua := lookup.Request["browserInfo"].(map[string]any)["userAgent"]; ua != "Checkout/1.0 (test)" {
		t.Errorf("browserInfo.userAgent read back as %v", ua)
	}
	if pan := lookup.Request["card"].(map[string]any)["cardNumber"].(string); strings.Contains(r.Raw, e.card("visa-challenge")) || !strings.Contains(pan, "*") {
		t.Errorf("the card number is not masked: %s", pan)
	}
	if lookup.Response["status"] != "C" || lookup.Response["threeDsServerTransId"] != id || lookup.At != "2026-11-21T12:00:00.000Z" {
		t.Errorf("lookup's answer %v at %s", lookup.Response, lookup.At)
	}
	if cres := d.Events[5].Response; cres["transStatus"] != "Y" || cres["messageType"] != "CRes" {
		t.Errorf("the final CRes: %v", cres)
	}
	if enq := d.Events[6]; enq.Request["threeDsServerTransId"] != id || enq.Response["transactionStatus"] != "Y" {
		t.Errorf("enquiry event: %+v", enq)
	}

	// Unknown, another token's, malformed.
	for _, tt := range []struct {
		token, id string
		status    int
		code      string
	}{
		{"other", id, 404, "TX01"},
		{"tok", "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", 404, "TX01"},
		{"tok", "not-a-uuid", 400, "FD03"},
	} {
		r := e.call(http.MethodGet, "/admin/transactions/"+tt.id, tt.token, nil)
		checkErrorBody(t, r, tt.status, map[int]string{404: "301", 400: "203"}[tt.status])
		if r.Str("errorCode") != tt.code || r.EMV("emvErrorDetail") != "threeDsServerTransId" {
			t.Errorf("%s as %s: %s", tt.id, tt.token, r.Raw)
		}
	}
}

// TestAdminEventsEvicted: a transaction the journal no longer holds still
// answers its summary, from the store, and says its events are gone.
func TestAdminEventsEvicted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal, o.journalOpt = true, journal.Options{PerNamespace: 2} })
	first := e.lookupRef("tok", e.card("visa-frictionless-n"), "first")
	e.lookupRef("tok", e.card("visa-frictionless-y"), "second")
	e.lookupRef("tok", e.card("visa-frictionless-y"), "third")
	r := e.call(http.MethodGet, "/admin/transactions/"+first, "tok", nil)
	if r.Status != http.StatusOK || r.Body["eventsEvicted"] != true || r.Str("status") != "N" || r.Body["final"] != true ||
		r.Str("externalReferenceId") != "first" || r.Str("cardLast4") == "" || len(r.Body["events"].([]any)) != 0 {
		t.Errorf("an evicted transaction: %d %s", r.Status, r.Raw)
	}
}

// TestAdminWithoutJournal: with --journal-size 0 the listing says why it
// cannot answer, and a transaction answers from the store.
func TestAdminWithoutJournal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.lookupRef("tok", e.card("visa-frictionless-y"), "x")
	r := e.call(http.MethodGet, "/admin/transactions", "tok", nil)
	checkErrorBody(t, r, http.StatusNotImplemented, "303")
	if r.Str("errorCode") != "AD18" || r.EMV("emvErrorDetail") != "journal" {
		t.Errorf("listing without a journal: %s", r.Raw)
	}
	if r := e.call(http.MethodGet, "/admin/transactions/"+id, "tok", nil); r.Status != 200 || r.Str("status") != "Y" || r.Body["eventsEvicted"] != true {
		t.Errorf("a transaction without a journal: %d %s", r.Status, r.Raw)
	}
	if r := e.call(http.MethodGet, "/admin/transactions/"+id+"?wait=final&timeout=1s", "tok", nil); r.Status != 200 || r.Body["final"] != true {
		t.Errorf("a wait without a journal: %d %s", r.Status, r.Raw)
	}
}

// TestAdminCatchesUpWithALaggingJournal: a journal that shows events a
// moment late (the shared one) is waited for, so a read right after a
// lookup or a decision shows it.
func TestAdminCatchesUpWithALaggingJournal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal, o.journalLag = true, 150*time.Millisecond })
	id := e.lookupRef("tok", e.card("visa-challenge"), "lag")
	r := e.call(http.MethodGet, "/admin/transactions/"+id, "tok", nil)
	if r.Status != http.StatusOK || len(r.Body["events"].([]any)) != 1 || r.Body["eventsEvicted"] != nil {
		t.Fatalf("right after the lookup: %d %s", r.Status, r.Raw)
	}
	e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "fail"})
	r = e.call(http.MethodGet, "/admin/transactions/"+id, "tok", nil)
	if events := r.Body["events"].([]any); r.Str("status") != "N" || len(events) != 3 {
		t.Errorf("right after the decision: %s", r.Raw)
	}
}

// TestAdminBadInput: every malformed parameter answers the error body
// with the parameter named.
func TestAdminBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withJournal)
	id := e.lookupRef("tok", e.card("visa-frictionless-y"), "x")
	tests := []struct {
		method, path string
		body         any
		status       int
		code, detail string
	}{
		{"GET", "/admin/transactions?limit=0", nil, 400, "FD03", "limit"},
		{"GET", "/admin/transactions?limit=1001", nil, 400, "FD03", "limit"},
		{"GET", "/admin/transactions?limit=ten", nil, 400, "FD03", "limit"},
		{"GET", "/admin/transactions?status=X", nil, 400, "FD03", "status"},
		{"GET", "/admin/transactions?status=Y&status=N", nil, 400, "FD03", "status"},
		{"GET", "/admin/transactions?since=yesterday", nil, 400, "FD03", "since"},
		{"GET", "/admin/transactions?since=2026-11-24", nil, 400, "FD03", "since"},
		{"GET", "/admin/transactions?cursor=abc", nil, 400, "FD03", "cursor"},
		{"GET", "/admin/transactions?cursor=c1.%21%21", nil, 400, "FD03", "cursor"},
		{"GET", "/admin/transactions?cursor=c1.MTIzOm5vdC1hLXV1aWQ", nil, 400, "FD03", "cursor"},
		{"GET", "/admin/transactions?scenarioId=Bad%20Id", nil, 400, "FD03", "scenarioId"},
		{"GET", "/admin/transactions?externalReferenceId=", nil, 400, "FD03", "externalReferenceId"},
		{"GET", "/admin/transactions?externalReferenceId=" + strings.Repeat("r", 51), nil, 400, "FD03", "externalReferenceId"},
		{"GET", "/admin/transactions?stauts=Y", nil, 400, "FD03", "stauts"},
		{"GET", "/admin/transactions?%zz", nil, 400, "FD03", "query"},
		{"GET", "/admin/transactions/" + id + "?wait=done", nil, 400, "FD03", "wait"},
		{"GET", "/admin/transactions/" + id + "?wait=final&timeout=61s", nil, 400, "FD03", "timeout"},
		{"GET", "/admin/transactions/" + id + "?wait=final&timeout=30", nil, 400, "FD03", "timeout"},
		{"GET", "/admin/transactions/" + id + "?wait=final&timeout=-1s", nil, 400, "FD03", "timeout"},
		{"GET", "/admin/transactions/" + id + "?timeout=5s", nil, 400, "FD03", "timeout"},
		{"GET", "/admin/transactions/" + id + "?limit=5", nil, 400, "FD03", "limit"},
		{"DELETE", "/admin/transactions?all=yes", nil, 400, "FD03", "all"},
		{"POST", "/admin/clock", `{"advance":"eleven minutes"}`, 400, "FD03", "advance"},
		{"POST", "/admin/clock", `{"advance":"-5m"}`, 400, "FD03", "advance"},
		{"POST", "/admin/clock", `{"advance":"0s"}`, 400, "FD03", "advance"},
		{"POST", "/admin/clock", `{"advance":660}`, 400, "MS01", "body"},
		{"POST", "/admin/clock", `{}`, 400, "FD01", "advance"},
		{"POST", "/admin/clock", `{"advance":"1m","rewind":"1m"}`, 400, "MS01", "body"},
		{"POST", "/admin/clock", `{"advance":"1m"}{}`, 400, "MS01", "body"},
		{"POST", "/admin/clock", `[]`, 400, "MS01", "body"},
		{"POST", "/admin/clock", `{"advance":"721h"}`, 422, "AD16", "advance"},
		{"GET", "/admin/clock?offset=1", nil, 400, "FD03", "offset"},
	}
	for _, tt := range tests {
		r := e.call(tt.method, tt.path, "tok", tt.body)
		if r.Status != tt.status || r.Str("errorCode") != tt.code || r.EMV("emvErrorDetail") != tt.detail {
			t.Errorf("%s %s %v: %d %s %q, want %d %s %q\n%s", tt.method, tt.path, tt.body, r.Status, r.Str("errorCode"),
				r.EMV("emvErrorDetail"), tt.status, tt.code, tt.detail, r.Raw)
		}
		checkErrorBody(t, r, tt.status, r.EMV("emvErrorCode"))
	}
	if r := e.call("POST", "/admin/clock", "tok", nil); r.Status != 400 {
		t.Errorf("advance without a body: %d %s", r.Status, r.Raw)
	}
	for _, path := range []string{"/admin/transactions", "/admin/transactions/" + id, "/admin/clock"} {
		if r := e.call("GET", path, "", nil); r.Status != 401 {
			t.Errorf("%s without a token: %d", path, r.Status)
		}
	}
}

func TestAdminClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withJournal)
	pending := e.lookupRef("tok", e.card("visa-challenge"), "pending")
	opened := e.lookupRef("tok", e.card("visa-challenge"), "opened")
	e.call(http.MethodGet, "/acs/hosted/"+opened, "", nil)
	theirs := e.lookupRef("other", e.card("visa-challenge"), "theirs")

	if r := e.call(http.MethodGet, "/admin/clock", "tok", nil); r.Str("offset") != "0s" || r.Str("now") != "2026-11-21T12:00:00.000Z" ||
		r.Str("maxOffset") != "720h0m0s" || r.Body["offsetSeconds"] != 0.0 {
		t.Errorf("GET clock: %s", r.Raw)
	}
	r := e.call(http.MethodPost, "/admin/clock", "tok", map[string]any{"advance": "11m"})
	if r.Status != 200 || r.Str("offset") != "11m0s" || r.Body["offsetSeconds"] != 660.0 || r.Str("now") != "2026-11-21T12:11:00.000Z" {
		t.Fatalf("advance 11m: %d %s", r.Status, r.Raw)
	}
	// At once: the pending challenge timed out, the opened one has 4
	// minutes left, the other token's is untouched.
	l := e.listTransactions("tok", "?status=N")
	if len(l.Transactions) != 1 || l.Transactions[0]["threeDsServerTransId"] != pending {
		t.Fatalf("?status=N after 11m: %v", l.ids())
	}
	if p := l.Transactions[0]; p["statusReason"] != "14" || p["challengeCancel"] != "05" || p["final"] != true {
		t.Errorf("timed out: %v", p)
	}
	d := e.call(http.MethodGet, "/admin/transactions/"+pending, "tok", nil)
	if evs := d.Body["events"].([]any); evs[len(evs)-1].(map[string]any)["type"] != "timeout" {
		t.Errorf("the last event is not the timeout: %s", d.Raw)
	}
	if q := e.enquiry("tok", map[string]any{"threeDsServerTransId": opened}); q.Str("transactionStatus") != "C" {
		t.Errorf("the opened challenge after 11m: %s", q.Raw)
	}
	if q := e.enquiry("other", map[string]any{"threeDsServerTransId": theirs}); q.Str("transactionStatus") != "C" {
		t.Errorf("another token's challenge: %s", q.Raw)
	}
	if r := e.call(http.MethodGet, "/admin/clock", "other", nil); r.Str("offset") != "0s" {
		t.Errorf("another token's clock: %s", r.Raw)
	}
	e.call(http.MethodPost, "/admin/clock", "tok", map[string]any{"advance": "4m1s"})
	if d := e.call(http.MethodGet, "/admin/transactions/"+opened, "tok", nil); d.Str("status") != "N" || d.Str("challengeCancel") != "04" {
		t.Errorf("the opened challenge after 15m1s: %s", d.Raw)
	}
	if r := e.call(http.MethodPost, "/admin/clock", "tok", map[string]any{"advance": "720h"}); r.Status != 422 || r.Str("errorCode") != "AD16" {
		t.Errorf("beyond 30 days in all: %d %s", r.Status, r.Raw)
	}
	if r := e.call(http.MethodDelete, "/admin/clock", "tok", nil); r.Status != 200 || r.Str("offset") != "0s" || r.Str("now") != "2026-11-21T12:00:00.000Z" {
		t.Errorf("DELETE clock: %d %s", r.Status, r.Raw)
	}
}

func TestAdminForget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withJournal)
	mine := e.lookupRef("tok", e.card("visa-frictionless-y"), "order-1")
	theirs := e.lookupRef("other", e.card("visa-frictionless-y"), "order-1")
	doc := map[string]any{"scenarios": []any{map[string]any{"id": "kept", "match": map[string]any{"cardNumber": "4111111111111111"},
		"frictionless": map[string]any{"status": "N", "reason": "05"}}}}
	if r := e.call(http.MethodPost, "/admin/scenarios", "tok", doc); r.Status != http.StatusCreated {
		t.Fatal(r.Raw)
	}
	if r := e.call(http.MethodDelete, "/admin/transactions", "tok", nil); r.Status != http.StatusNoContent || r.Raw != "" {
		t.Fatalf("DELETE: %d %s", r.Status, r.Raw)
	}
	if l := e.listTransactions("tok", ""); len(l.Transactions) != 0 {
		t.Errorf("after DELETE: %v", l.ids())
	}
	if r := e.call(http.MethodGet, "/admin/transactions/"+mine, "tok", nil); r.Status != 404 {
		t.Errorf("GET a forgotten transaction: %d", r.Status)
	}
	for _, q := range []map[string]any{{"threeDsServerTransId": mine}, {"externalReferenceId": "order-1"}} {
		if r := e.enquiry("tok", q); r.Status != 404 {
			t.Errorf("enquiry %v after DELETE: %d", q, r.Status)
		}
	}
	if r := e.enquiry("other", map[string]any{"externalReferenceId": "order-1"}); r.Status != 200 || r.Str("threeDsServerTransId") != theirs {
		t.Errorf("another token's transaction after DELETE: %s", r.Raw)
	}
	if l := e.listTransactions("other", ""); len(l.Transactions) != 1 {
		t.Errorf("another token's listing after DELETE: %v", l.ids())
	}
	if r := e.call(http.MethodGet, "/admin/scenarios", "tok", nil); !strings.Contains(r.Raw, `"kept"`) {
		t.Errorf("runtime scenarios after DELETE /admin/transactions: %s", r.Raw)
	}
	again := e.lookupRef("tok", e.card("visa-frictionless-y"), "order-1")
	if l := e.listTransactions("tok", ""); strings.Join(l.ids(), ",") != again {
		t.Errorf("a new transaction after DELETE: %v", l.ids())
	}
}

func TestAdminWait(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal, o.realClock, o.maxWaits = true, true, [2]int{3, 2} })
	wait := func(token, id, timeout string) (result, time.Duration) {
		start := time.Now()
		r := e.call(http.MethodGet, "/admin/transactions/"+id+"?wait=final&timeout="+timeout, token, nil)
		return r, time.Since(start)
	}
	type waited struct {
		r    result
		took time.Duration
	}
	// open starts a wait and returns its answer once the sandbox holds
	// it open (the metrics count it): what the test does next happens
	// while it waits.
	open := func(t *testing.T, token, id, timeout string) <-chan waited {
		t.Helper()
		before := waitsOpen(t, e)
		got := make(chan waited, 1)
		go func() {
			r, took := wait(token, id, timeout)
			got <- waited{r, took}
		}()
		testkit.Eventually(t, "the wait is open", func() bool { return waitsOpen(t, e) > before })
		return got
	}
	// A wait woken by a change ends at once; one that timed out would
	// end after its 60s: 30s tells them apart on a busy machine.
	const woken = 30 * time.Second
	t.Run("a decision ends it", func(t *testing.T) {
		id := e.lookupRef("tok", e.card("visa-challenge"), "w1")
		answer := open(t, "tok", id, "60s")
		e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "pass"})
		a := <-answer
		if a.r.Status != 200 || a.r.Body["final"] != true || a.r.Str("status") != "Y" || a.took > woken {
			t.Errorf("wait: %d after %s: %s", a.r.Status, a.took, a.r.Raw)
		}
		if evs := a.r.Body["events"].([]any); len(evs) != 3 {
			t.Errorf("the answer lacks the decision's events: %s", a.r.Raw)
		}
	})
	t.Run("its own automatic decision ends it", func(t *testing.T) {
		id := e.lookupRef("tok", e.card("visa-challenge-auto-pass"), "w2")
		r, took := wait("tok", id, "60s")
		if r.Body["final"] != true || r.Str("status") != "Y" || took > woken {
			t.Errorf("wait for auto-pass: after %s: %s", took, r.Raw)
		}
	})
	t.Run("a clock advance ends it", func(t *testing.T) {
		id := e.lookupRef("tok", e.card("visa-challenge"), "w3")
		answer := open(t, "tok", id, "60s")
		e.call(http.MethodPost, "/admin/clock", "tok", map[string]any{"advance": "11m"})
		a := <-answer
		e.call(http.MethodDelete, "/admin/clock", "tok", nil)
		if a.r.Body["final"] != true || a.r.Str("challengeCancel") != "05" || a.took > woken {
			t.Errorf("wait across an advance: after %s: %s", a.took, a.r.Raw)
		}
	})
	t.Run("the timeout ends it", func(t *testing.T) {
		id := e.lookupRef("tok", e.card("visa-challenge"), "w4")
		r, took := wait("tok", id, "200ms")
		if r.Status != 200 || r.Body["final"] != false || r.Str("status") != "C" || took < 200*time.Millisecond {
			t.Errorf("wait that times out: %d after %s: %s", r.Status, took, r.Raw)
		}
	})
	t.Run("a final transaction answers at once", func(t *testing.T) {
		id := e.lookupRef("tok", e.card("visa-frictionless-y"), "w5")
		if r, _ := wait("tok", id, "60s"); r.Body["final"] != true {
			t.Errorf("%s", r.Raw)
		}
		if r, _ := wait("other", id, "1s"); r.Status != 404 {
			t.Errorf("another token's: %d", r.Status)
		}
	})
	t.Run("bounded, and shared fairly", func(t *testing.T) {
		// tok's oldest wait lasts 60s unless its slot is taken; the others
		// 20s: the test's steps happen while they are open, on a busy
		// machine too.
		ids := []string{e.lookupRef("tok", e.card("visa-challenge"), "b1"), e.lookupRef("tok", e.card("visa-challenge"), "b2"),
			e.lookupRef("third", e.card("visa-challenge"), "b3")}
		oldest := open(t, "tok", ids[0], "60s") // b1 is tok's oldest
		second := open(t, "tok", ids[1], "20s")
		third := open(t, "third", ids[2], "20s")
		if m := e.call(http.MethodGet, "/metrics", "", nil); !strings.Contains(m.Raw, "\nthreeds_admin_waits_open 3\n") {
			t.Errorf("the metrics do not count 3 open waits")
		}
		r, _ := wait("tok", ids[0], "1s")
		checkErrorBody(t, r, http.StatusTooManyRequests, "103")
		if r.Str("errorCode") != "AD15" || !strings.Contains(r.Str("error"), "per token") {
			t.Errorf("a third wait of one token: %s", r.Raw)
		}
		// Every slot is taken; a token holding none takes the oldest of
		// the token holding the most, which answers at once.
		id := e.lookupRef("fourth", e.card("visa-challenge"), "b4")
		fourth := make(chan waited, 1)
		go func() {
			r, took := wait("fourth", id, "20s")
			fourth <- waited{r, took}
		}()
		select {
		case a := <-oldest:
			if a.r.Status != 200 || a.r.Body["final"] != false {
				t.Errorf("tok's wait: %d %s", a.r.Status, a.r.Raw)
			}
		case <-time.After(woken):
			t.Error("no wait of tok ended when a token holding none needed its slot")
		}
		// Now each token holds one (a slot changes hands in one step): a
		// fifth is refused, with the reason.
		fifth := e.lookupRef("fifth", e.card("visa-challenge"), "b5")
		if r, _ := wait("fifth", fifth, "1s"); r.Status != http.StatusTooManyRequests || !strings.Contains(r.Str("error"), "in all") {
			t.Errorf("a fifth token's wait: %d %s", r.Status, r.Raw)
		}
		if a := <-second; a.r.Status != 200 || a.r.Body["final"] != false {
			t.Errorf("tok's wait: %d %s", a.r.Status, a.r.Raw)
		}
		<-third
		if a := <-fourth; a.r.Status != 200 || a.r.Body["final"] != false {
			t.Errorf("a fourth token's wait while all are taken: %d %s", a.r.Status, a.r.Raw)
		}
		if r, _ := wait("fifth", fifth, "50ms"); r.Status != 200 {
			t.Errorf("a wait once the others ended: %d %s", r.Status, r.Raw)
		}
	})
}

// waitsOpen is how many waits the sandbox of e holds open, as its
// metrics count them.
func waitsOpen(t *testing.T, e *env) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^threeds_admin_waits_open (\d+)$`).FindStringSubmatch(e.call(http.MethodGet, "/metrics", "", nil).Raw)
	if m == nil {
		t.Fatal("the metrics have no threeds_admin_waits_open")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
