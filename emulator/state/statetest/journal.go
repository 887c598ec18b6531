package statetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// JournalPair is a journal as two replicas see it: events recorded through
// Writer are read through Reader (the same value for a local journal).
// Sync returns once every event recorded so far can be read.
type JournalPair struct {
	Writer, Reader journal.Journal
	Sync           func()
}

// JournalOpener returns a new, empty journal with the given bounds, closed when t
// ends.
type JournalOpener func(t *testing.T, opt journal.Options) JournalPair

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func event(ns, id string, kind state.EventKind, at time.Duration, status string) state.Event {
	return state.Event{Namespace: ns, Kind: kind, Time: t0.Add(at),
		Transaction: state.Summary{ThreeDSServerTransID: id, Status: status}}
}

// RunJournal runs the journal contract against the journals open makes. It starts no
// server: open's caller does, in its own test. Every transaction opens
// with a lookup, as the engine's do.
func RunJournal(t *testing.T, open JournalOpener) {
	ctx := context.Background()
	t.Run("KeepsItsOwnCopies", func(t *testing.T) {
		// The strings of an event may share its request's memory (an
		// enquiry's transaction id is the body's), which is reused once
		// Record returns: the journal must have copied what it keeps, the
		// key it finds the transaction by included.
		p := open(t, journal.Options{})
		const id = "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
		body := []byte(`{"threeDsServerTransId":"` + id + `","externalReferenceId":"ORD-COPY"}`)
		shared := func(s string) string {
			i := strings.Index(string(body), s)
			return unsafe.String(&body[i], len(s))
		}
		lookup := event("ns1", shared(id), state.EventLookup, 0, "Y")
		lookup.Transaction.ExternalReferenceID = shared("ORD-COPY")
		lookup.Request = []byte(`{"kept":"as given"}`) // the engine's own redacted copy
		p.Writer.Record(ctx, lookup)
		enq := event("ns1", shared(id), state.EventEnquiry, time.Second, "Y")
		enq.Enquiry = &message.EnquiryResponse{TransactionStatus: "Y"}
		p.Writer.Record(ctx, enq)
		for i := range body {
			body[i] = '#'
		}
		p.Sync()
		e, ok, err := p.Reader.Get(ctx, "ns1", id)
		if err != nil || !ok {
			t.Fatalf("Get(%s) = %v, %v; want the transaction", id, ok, err)
		}
		if e.Summary.ID != id || e.Summary.ExternalReferenceID != "ORD-COPY" || len(e.Events) != 2 {
			t.Errorf("the journal kept the caller's memory: summary %+v, %d events", e.Summary, len(e.Events))
		}
	})
	t.Run("RecordsATransaction", func(t *testing.T) {
		p := open(t, journal.Options{})
		lookup := event("ns1", "tx-1", state.EventLookup, 0, "C")
		lookup.Transaction = state.Summary{
			ThreeDSServerTransID: "tx-1", ExternalReferenceID: "ORD-1", ScenarioID: "visa-challenge",
			MaskedPAN: "400000******1109", CardBIN: "400000", CardScheme: "VISA", Version: "2.2.0", Status: "C",
			CardholderName: "Jane Doe", MerchantName: "Example <Shop>", Amount: "129.99", Currency: "EUR", Fallback: true,
		}
		lookup.Request = []byte(`{"card":{"cardNumber":"400000******1109"}}`)
		lookup.Lookup = &message.LookupResponse{Status: "C", ThreeDSServerTransID: "tx-1",
			Challenge: &message.ChallengeIndication{ACSURL: "https://acs.example/c", CReq: "eyJ9", SessionData: "sd", WindowSize: 3}}
		p.Writer.Record(ctx, lookup)
		decision := event("ns1", "tx-1", state.EventDecision, 2*time.Second, "Y")
		decision.Transaction.ECI = "05"
		decision.Detail = "pass -> Y"
		p.Writer.Record(ctx, decision)
		enq := event("ns1", "tx-1", state.EventEnquiry, 3*time.Second, "Y")
		enq.Request = []byte(`{"threeDsServerTransId":"tx-1"}`)
		enq.Enquiry = &message.EnquiryResponse{TransactionStatus: "Y", ECI: "05"}
		p.Writer.Record(ctx, enq)
		p.Sync()

		list, err := p.Reader.List(ctx, "ns1", 0)
		if err != nil || len(list) != 1 {
			t.Fatalf("List = %v, %v; want one summary", list, err)
		}
		s := list[0]
		want := journal.Summary{ID: "tx-1", Status: "Y", ECI: "05", ScenarioID: "visa-challenge", Version: "2.2.0",
			MaskedPAN: "400000******1109", CardBIN: "400000", Scheme: "VISA", CardholderName: "Jane Doe",
			MerchantName: "Example <Shop>", Amount: "129.99", Currency: "EUR", ExternalReferenceID: "ORD-1",
			LookupStatus: "C", Fallback: true, LastEvent: state.EventEnquiry, Events: 3, Enquiries: 1,
			Created: t0, Updated: t0.Add(3 * time.Second)}
		if !s.Created.Equal(want.Created) || !s.Updated.Equal(want.Updated) {
			t.Errorf("Created, Updated = %v, %v; want %v, %v", s.Created, s.Updated, want.Created, want.Updated)
		}
		s.Created, s.Updated, want.Created, want.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if s != want {
			t.Errorf("summary =\n%+v\nwant\n%+v", s, want)
		}
		e, ok, err := p.Reader.Get(ctx, "ns1", "tx-1")
		if err != nil || !ok || len(e.Events) != 3 {
			t.Fatalf("Get = %+v, %v, %v; want 3 events", e, ok, err)
		}
		ev := e.Events
		if ev[0].Kind != state.EventLookup || string(ev[0].Request) != string(lookup.Request) ||
			!strings.Contains(string(ev[0].Response), `"status":"C"`) || ev[0].Challenge == nil || *ev[0].Challenge != *lookup.Lookup.Challenge {
			t.Errorf("lookup event = %+v", ev[0])
		}
		if ev[1].Kind != state.EventDecision || ev[1].Detail != "pass -> Y" || ev[1].Status != "Y" || ev[1].Request != nil ||
			ev[1].SincePrevious != 2*time.Second || ev[1].SinceStart != 2*time.Second {
			t.Errorf("decision event = %+v", ev[1])
		}
		if ev[2].Kind != state.EventEnquiry || !strings.Contains(string(ev[2].Response), `"transactionStatus":"Y"`) {
			t.Errorf("enquiry event = %+v", ev[2])
		}
	})

	t.Run("RecordsTheChannel", func(t *testing.T) {
		p := open(t, journal.Options{})
		lookup := event("ns1", "tx-3ri", state.EventLookup, 0, "U")
		lookup.Transaction.Channel, lookup.Transaction.ThreeRIInd, lookup.Transaction.StatusReason = state.Channel3RI, "05", "21"
		p.Writer.Record(ctx, lookup)
		enq := event("ns1", "tx-3ri", state.EventEnquiry, time.Second, "U")
		enq.Transaction.Channel = state.Channel3RI
		p.Writer.Record(ctx, enq)
		p.Writer.Record(ctx, event("ns1", "tx-brw", state.EventLookup, 2*time.Second, "Y"))
		p.Sync()
		for _, tt := range []struct {
			id      string
			channel state.Channel
			ind     string
		}{{"tx-3ri", state.Channel3RI, "05"}, {"tx-brw", state.ChannelBrowser, ""}} {
			e, ok, err := p.Reader.Get(ctx, "ns1", tt.id)
			if err != nil || !ok || e.Channel != tt.channel || e.ThreeRIInd != tt.ind {
				t.Errorf("Get(%s) = channel %s, threeRIInd %q, %v, %v; want %s, %q", tt.id, e.Channel, e.ThreeRIInd, ok, err, tt.channel, tt.ind)
			}
		}
	})

	t.Run("NamespacesAreIsolated", func(t *testing.T) {
		p := open(t, journal.Options{})
		p.Writer.Record(ctx, event("a", "tx", state.EventLookup, 0, "Y"))
		p.Sync()
		if _, ok, err := p.Reader.Get(ctx, "b", "tx"); ok || err != nil {
			t.Errorf("another namespace's transaction: found %v, err %v; want not found", ok, err)
		}
		if l, err := p.Reader.List(ctx, "b", 0); len(l) != 0 || err != nil {
			t.Errorf("another namespace's list = %v, %v; want empty", l, err)
		}
		if v, err := p.Reader.Version(ctx, "b"); v != 0 || err != nil {
			t.Errorf("an empty namespace's version = %d, %v; want 0", v, err)
		}
		if _, ok, err := p.Reader.Get(ctx, "a", "nope"); ok || err != nil {
			t.Errorf("unknown id: found %v, err %v", ok, err)
		}
	})

	t.Run("BoundedInTransactions", func(t *testing.T) {
		p := open(t, journal.Options{PerNamespace: 5})
		for i := range 8 {
			p.Writer.Record(ctx, event("n", fmt.Sprint(i), state.EventLookup, time.Duration(i)*time.Millisecond, "Y"))
		}
		p.Sync()
		l, err := p.Reader.List(ctx, "n", 0)
		if err != nil || len(l) != 5 || l[0].ID != "7" || l[4].ID != "3" {
			t.Errorf("List = %v, %v; want 7 down to 3", l, err)
		}
		if l, _ := p.Reader.List(ctx, "n", 2); len(l) != 2 {
			t.Errorf("List with limit 2 = %d summaries", len(l))
		}
	})

	t.Run("BoundedInBytes", func(t *testing.T) {
		const bound = 64 << 10
		p := open(t, journal.Options{MaxBytesPerNamespace: bound})
		body := []byte(`"` + strings.Repeat("x", 4000) + `"`)
		for i := range 60 {
			e := event("n", fmt.Sprint(i), state.EventLookup, time.Duration(i)*time.Millisecond, "Y")
			e.Request = body
			p.Writer.Record(ctx, e)
		}
		p.Sync()
		l, err := p.Reader.List(ctx, "n", 0)
		if err != nil || len(l) == 0 || l[0].ID != "59" || len(l)*len(body) > bound {
			t.Errorf("kept %d transactions of %d bytes (newest %v, err %v); want the newest within %d bytes", len(l), len(body), l, err, bound)
		}
		// One transaction beyond the bound keeps its first and last events.
		p.Writer.Record(ctx, event("one", "tx", state.EventLookup, 0, "Y"))
		for i := 1; i < 30; i++ {
			e := event("one", "tx", state.EventEnquiry, time.Duration(i)*time.Millisecond, "Y")
			e.Request = body
			p.Writer.Record(ctx, e)
		}
		p.Sync()
		e, ok, err := p.Reader.Get(ctx, "one", "tx")
		if err != nil || !ok || len(e.Events)*len(body) > bound || e.Dropped == 0 || e.Events[len(e.Events)-1].Time != t0.Add(29*time.Millisecond) {
			t.Fatalf("one large transaction: %d events, %d dropped, %v, %v; want within %d bytes, the last kept", len(e.Events), e.Dropped, ok, err, bound)
		}
		if e.Events[0].Kind != state.EventLookup || e.Summary.Events != 30 || e.Enquiries != 29 || e.Dropped != 30-len(e.Events) {
			t.Errorf("one large transaction: first event %s, %d events counted, %d enquiries, %d dropped of 30 with %d kept; want its lookup kept and every event counted",
				e.Events[0].Kind, e.Summary.Events, e.Enquiries, e.Dropped, len(e.Events))
		}
		if l, err := p.Reader.List(ctx, "one", 0); err != nil || len(l) != 1 || l[0].Events != 30 || l[0].Enquiries != 29 {
			t.Errorf("one large transaction listed as %+v, %v; want 30 events and 29 enquiries counted", l, err)
		}
	})

	t.Run("ATenantsShare", func(t *testing.T) { testJournalShare(t, open) })

	t.Run("BoundedInEvents", func(t *testing.T) {
		p := open(t, journal.Options{MaxEvents: 3})
		p.Writer.Record(ctx, event("n", "tx", state.EventLookup, 0, "Y"))
		for i := 1; i < 6; i++ {
			p.Writer.Record(ctx, event("n", "tx", state.EventEnquiry, time.Duration(i)*time.Second, "Y"))
		}
		p.Sync()
		e, ok, err := p.Reader.Get(ctx, "n", "tx")
		if err != nil || !ok || len(e.Events) != 3 || e.Dropped != 3 || e.Events[0].Time != t0 || e.Events[2].Time != t0.Add(5*time.Second) || e.Summary.Events != 6 {
			t.Errorf("Get = %d events, %d dropped, %d counted; want 3 kept (first and newest), 3 dropped, 6 counted", len(e.Events), e.Dropped, e.Summary.Events)
		}
	})

	t.Run("Query", func(t *testing.T) { testJournalQuery(t, open) })
	t.Run("Forget", func(t *testing.T) { testJournalForget(t, open) })

	t.Run("ChangesAreSeen", func(t *testing.T) {
		p := open(t, journal.Options{})
		ch := p.Reader.Changed("w")
		v0, err := p.Reader.Version(ctx, "w")
		if err != nil {
			t.Fatal(err)
		}
		p.Writer.Record(ctx, event("w", "tx", state.EventLookup, 0, "Y"))
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("Changed was not closed within 5s of an event")
		}
		p.Sync()
		if v1, err := p.Reader.Version(ctx, "w"); err != nil || v1 <= v0 {
			t.Errorf("Version after an event = %d, %v; want more than %d", v1, err, v0)
		}
	})
}

// ids lists the ids of summaries.
func summaryIDs(list []journal.Summary) string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return strings.Join(out, ",")
}

// testJournalQuery: the automation API's listing selects by reference,
// status, scenario and creation time, pages with a position that
// survives new transactions and a forgotten one, and names the
// transactions whose challenge is still open.
func testJournalQuery(t *testing.T, open JournalOpener) {
	ctx := context.Background()
	p := open(t, journal.Options{})
	// Ten transactions, one a second: even ones of scenario "even" with
	// reference "ref-even", every third one still a challenge.
	for i := range 10 {
		status := "Y"
		if i%3 == 0 {
			status = "C"
		}
		e := event("q", fmt.Sprint(i), state.EventLookup, time.Duration(i)*time.Second, status)
		e.Transaction.ScenarioID, e.Transaction.ExternalReferenceID = "odd", "ref-odd"
		if i%2 == 0 {
			e.Transaction.ScenarioID, e.Transaction.ExternalReferenceID = "even", "ref-even"
		}
		p.Writer.Record(ctx, e)
	}
	// 3's challenge ends: it is open no more.
	p.Writer.Record(ctx, event("q", "3", state.EventDecision, 20*time.Second, "N"))
	p.Writer.Record(ctx, event("other", "x", state.EventLookup, 0, "C"))
	p.Sync()

	query := func(q journal.Query) journal.Page {
		t.Helper()
		page, err := p.Reader.Query(ctx, "q", q)
		if err != nil {
			t.Fatalf("Query(%+v): %v", q, err)
		}
		return page
	}
	for _, tt := range []struct {
		name string
		q    journal.Query
		want string
	}{
		{"all", journal.Query{}, "9,8,7,6,5,4,3,2,1,0"},
		{"reference", journal.Query{ExternalReferenceID: "ref-even"}, "8,6,4,2,0"},
		{"status", journal.Query{Status: "C"}, "9,6,0"},
		{"status after a decision", journal.Query{Status: "N"}, "3"},
		{"scenario and status", journal.Query{ScenarioID: "even", Status: "C"}, "6,0"},
		{"since", journal.Query{Since: t0.Add(7 * time.Second)}, "9,8,7"},
		{"nothing", journal.Query{ExternalReferenceID: "nope"}, ""},
	} {
		page := query(tt.q)
		if got := summaryIDs(page.Summaries); got != tt.want || !page.Next.IsZero() {
			t.Errorf("%s: %s, next %+v; want %s and no next", tt.name, got, page.Next, tt.want)
		}
		if got := strings.Join(page.Open, ","); got != "9,6,0" {
			t.Errorf("%s: open %s, want 9,6,0", tt.name, got)
		}
	}
	// Pages of three, while a new transaction arrives: it is on none of
	// the later pages, and each transaction is on exactly one.
	var pages []string
	q := journal.Query{Limit: 3}
	for range 10 {
		page := query(q)
		pages = append(pages, summaryIDs(page.Summaries))
		if len(pages) == 1 {
			p.Writer.Record(ctx, event("q", "10", state.EventLookup, 30*time.Second, "Y"))
			p.Sync()
		}
		if page.Next.IsZero() {
			break
		}
		q.After = page.Next
	}
	if got := strings.Join(pages, " | "); got != "9,8,7 | 6,5,4 | 3,2,1 | 0" {
		t.Errorf("pages of three: %s", got)
	}
	// A page of exactly the rest has no next; a filter pages too.
	if page := query(journal.Query{Limit: 5, ExternalReferenceID: "ref-odd"}); summaryIDs(page.Summaries) != "9,7,5,3,1" || !page.Next.IsZero() {
		t.Errorf("a full last page: %s, next %+v", summaryIDs(page.Summaries), page.Next)
	}
	first := query(journal.Query{Limit: 2, ScenarioID: "even"})
	if summaryIDs(first.Summaries) != "8,6" || first.Next.ID != "6" || !first.Next.Created.Equal(t0.Add(6*time.Second)) {
		t.Fatalf("first page of even: %s, next %+v", summaryIDs(first.Summaries), first.Next)
	}
	if page := query(journal.Query{Limit: 2, ScenarioID: "even", After: first.Next}); summaryIDs(page.Summaries) != "4,2" || page.Next.ID != "2" {
		t.Errorf("second page of even: %s, next %+v", summaryIDs(page.Summaries), page.Next)
	}
	// A position whose transaction is unknown (forgotten) goes on from
	// the transactions created before it.
	gone := journal.Position{ID: "forgotten", Created: t0.Add(4*time.Second + time.Millisecond)}
	if page := query(journal.Query{After: gone}); summaryIDs(page.Summaries) != "4,3,2,1,0" {
		t.Errorf("after a forgotten position: %s", summaryIDs(page.Summaries))
	}
	if page, err := p.Reader.Query(ctx, "empty", journal.Query{}); err != nil || len(page.Summaries) != 0 || len(page.Open) != 0 {
		t.Errorf("an empty namespace: %+v, %v", page, err)
	}
	// A reference that is a card number is kept masked, as the engine
	// hands it over, and found by the reference as sent.
	e := event("masked", "m", state.EventLookup, 0, "Y")
	e.Transaction.ExternalReferenceID = "411111******1111"
	p.Writer.Record(ctx, e)
	p.Sync()
	if page, err := p.Reader.Query(ctx, "masked", journal.Query{ExternalReferenceID: "4111111111111111"}); err != nil || summaryIDs(page.Summaries) != "m" {
		t.Errorf("a card number as reference: %+v, %v; want the transaction kept masked", page.Summaries, err)
	}
}

// testJournalForget: forgetting a namespace's transactions leaves the
// others', is seen by every reader and wakes them, and the namespace
// records again afterwards.
func testJournalForget(t *testing.T, open JournalOpener) {
	ctx := context.Background()
	p := open(t, journal.Options{})
	for i := range 3 {
		p.Writer.Record(ctx, event("f", fmt.Sprint(i), state.EventLookup, time.Duration(i)*time.Second, "Y"))
	}
	p.Writer.Record(ctx, event("kept", "k", state.EventLookup, 0, "Y"))
	p.Sync()
	changed := p.Reader.Changed("f")
	if err := p.Writer.Forget(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("Changed was not closed within 5s of the forgetting")
	}
	if page, err := p.Reader.Query(ctx, "f", journal.Query{}); err != nil || len(page.Summaries) != 0 {
		t.Errorf("after Forget: %s, %v; want none", summaryIDs(page.Summaries), err)
	}
	if _, ok, err := p.Reader.Get(ctx, "f", "1"); ok || err != nil {
		t.Errorf("Get after Forget: found %v, %v", ok, err)
	}
	if l, err := p.Reader.List(ctx, "kept", 0); err != nil || summaryIDs(l) != "k" {
		t.Errorf("another namespace after Forget: %s, %v", summaryIDs(l), err)
	}
	if err := p.Writer.Forget(ctx, "never"); err != nil {
		t.Errorf("Forget of an empty namespace: %v", err)
	}
	p.Writer.Record(ctx, event("f", "new", state.EventLookup, 10*time.Second, "Y"))
	p.Sync()
	if l, err := p.Reader.List(ctx, "f", 0); err != nil || summaryIDs(l) != "new" {
		t.Errorf("after Forget and a new lookup: %s, %v", summaryIDs(l), err)
	}
}

// testJournalShare: tenants, one of them quiet, share a journal bounded
// in all (in transactions, then in bytes) and hostile tokens flood it:
// the floods forget their own transactions, never the quiet tenant's,
// which holds less than its share. (The shared journal has no bound in
// all: Redis's memory is.)
func testJournalShare(t *testing.T, open JournalOpener) {
	ctx := context.Background()
	body := []byte(`"` + strings.Repeat("x", 2000) + `"`)
	for _, tt := range []struct {
		name string
		opt  journal.Options
	}{
		{"transactions", journal.Options{PerNamespace: 40, Total: 60}},
		{"bytes", journal.Options{PerNamespace: 1000, Total: 100000, MaxBytesPerNamespace: 1 << 20, MaxTotalBytes: 160 << 10}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := open(t, tt.opt)
			for i := range 5 {
				e := event("quiet", fmt.Sprint(i), state.EventLookup, time.Duration(i)*time.Millisecond, "Y")
				e.Request = body
				p.Writer.Record(ctx, e)
			}
			for i := range 300 {
				e := event(fmt.Sprintf("hostile-%d", i%3), fmt.Sprint(i), state.EventLookup, time.Second+time.Duration(i)*time.Millisecond, "Y")
				e.Request = body
				p.Writer.Record(ctx, e)
			}
			p.Sync()
			if l, err := p.Reader.List(ctx, "quiet", 0); err != nil || len(l) != 5 {
				t.Errorf("the quiet tenant keeps %d of its 5 transactions (%v) after the floods of three others", len(l), err)
			}
			for i := range 3 {
				if l, err := p.Reader.List(ctx, fmt.Sprintf("hostile-%d", i), 0); err != nil || len(l) == 0 || l[0].ID != fmt.Sprint(297+i) {
					t.Errorf("hostile tenant %d keeps %d transactions, newest %v (%v); want its newest kept", i, len(l), l, err)
				}
			}
		})
	}
}
