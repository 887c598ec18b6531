package memstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

var ctx = context.Background()

func ev(ns, id string, kind state.EventKind, at time.Duration, status string) state.Event {
	return state.Event{Namespace: ns, Kind: kind, Time: t0.Add(at),
		Transaction: state.Summary{ThreeDSServerTransID: id, Status: status}}
}

// list, get and version read the journal, failing the test on an error.
func list(t testing.TB, j journal.Journal, ns string, limit int) []journal.Summary {
	t.Helper()
	out, err := j.List(ctx, ns, limit)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func get(t testing.TB, j journal.Journal, ns, id string) (journal.Entry, bool) {
	t.Helper()
	e, ok, err := j.Get(ctx, ns, id)
	if err != nil {
		t.Fatal(err)
	}
	return e, ok
}

func version(t testing.TB, j journal.Journal, ns string) uint64 {
	t.Helper()
	v, err := j.Version(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestJournalRecordsATransaction(t *testing.T) {
	t.Parallel()
	j := memstore.NewJournal(journal.Options{})
	lookup := ev("ns1", "tx-1", state.EventLookup, 0, "C")
	lookup.Transaction = state.Summary{
		ThreeDSServerTransID: "tx-1", ExternalReferenceID: "ORD-1", ScenarioID: "visa-challenge",
		MaskedPAN: "400000******1109", CardBIN: "400000", CardScheme: "VISA", Version: "2.2.0", Status: "C",
		CardholderName: "Jane Doe", MerchantName: "Example <Shop>", Amount: "129.99", Currency: "EUR",
	}
	lookup.Request = []byte(`{"card":{"cardNumber":"400000******1109"}}`)
	lookup.Lookup = &message.LookupResponse{Status: "C", ThreeDSServerTransID: "tx-1", CardScheme: "VISA",
		Challenge: &message.ChallengeIndication{ACSURL: "http://acs.example/acs/challenge", CReq: "eyJ9", WindowSize: 2}}
	j.Record(ctx, lookup)
	j.Record(ctx, ev("ns1", "tx-1", state.EventCReq, 2*time.Second, "C"))
	d := ev("ns1", "tx-1", state.EventDecision, 5*time.Second, "Y")
	d.Detail = "pass"
	d.Transaction.ECI = "05"
	j.Record(ctx, d)
	enq := ev("ns1", "tx-1", state.EventEnquiry, 6500*time.Millisecond, "Y")
	enq.Transaction.ECI = "05"
	enq.Enquiry = &message.EnquiryResponse{TransactionStatus: "Y", ECI: "05"}
	j.Record(ctx, enq)

	got, ok := get(t, j, "ns1", "tx-1")
	if !ok {
		t.Fatal("Get(ns1, tx-1) = false, want the transaction")
	}
	want := journal.Summary{
		ID: "tx-1", Created: t0, Updated: t0.Add(6500 * time.Millisecond), Status: "Y",
		LastEvent: state.EventEnquiry, Events: 4, Enquiries: 1, ScenarioID: "visa-challenge", Version: "2.2.0",
		MaskedPAN: "400000******1109", CardBIN: "400000", Scheme: "VISA", CardholderName: "Jane Doe",
		MerchantName: "Example <Shop>", Amount: "129.99", Currency: "EUR", ExternalReferenceID: "ORD-1",
		LookupStatus: "C", ECI: "05",
	}
	if got.Summary != want {
		t.Errorf("summary =\n%+v\nwant\n%+v", got.Summary, want)
	}
	kinds := []state.EventKind{state.EventLookup, state.EventCReq, state.EventDecision, state.EventEnquiry}
	since := []time.Duration{0, 2 * time.Second, 3 * time.Second, 1500 * time.Millisecond}
	if len(got.Events) != len(kinds) {
		t.Fatalf("%d events, want %d", len(got.Events), len(kinds))
	}
	for i, e := range got.Events {
		if e.Kind != kinds[i] {
			t.Errorf("event %d kind = %q, want %q", i, e.Kind, kinds[i])
		}
		if e.SincePrevious != since[i] {
			t.Errorf("event %d SincePrevious = %v, want %v", i, e.SincePrevious, since[i])
		}
	}
	if got, want := got.Events[3].SinceStart, 6500*time.Millisecond; got != want {
		t.Errorf("last event SinceStart = %v, want %v", got, want)
	}
	// The typed answers are kept as the API wrote them.
	if r := string(got.Events[0].Response); !strings.HasPrefix(r, `{"status":"C","hostedChallengeUrl"`) && !strings.HasPrefix(r, `{"status":"C","version"`) {
		t.Errorf("lookup response = %s", r)
	}
	if c := got.Events[0].Challenge; c == nil || c.CReq != "eyJ9" || c.WindowSize != 2 {
		t.Errorf("lookup challenge = %+v", c)
	}
	if r := string(got.Events[3].Response); !strings.Contains(r, `"transactionStatus":"Y"`) || strings.HasSuffix(r, "\n") {
		t.Errorf("enquiry response = %q", r)
	}
}

func TestJournalNamespacesAreIsolated(t *testing.T) {
	t.Parallel()
	j := memstore.NewJournal(journal.Options{})
	j.Record(ctx, ev("a", "tx-a", state.EventLookup, 0, "Y"))
	j.Record(ctx, ev("b", "tx-b", state.EventLookup, 0, "Y"))
	if _, ok := get(t, j, "a", "tx-b"); ok {
		t.Error("Get(a, tx-b) found b's transaction")
	}
	if got := list(t, j, "a", 0); len(got) != 1 || got[0].ID != "tx-a" {
		t.Errorf("List(a) = %+v, want only tx-a", got)
	}
	if got := list(t, j, "nobody", 0); len(got) != 0 {
		t.Errorf("List(nobody) = %+v, want none", got)
	}
}

func TestJournalIgnoresEventsWithoutIDs(t *testing.T) {
	t.Parallel()
	j := memstore.NewJournal(journal.Options{})
	j.Record(ctx, ev("", "tx", state.EventLookup, 0, "Y"))
	j.Record(ctx, ev("ns", "", state.EventEnquiry, 0, "U"))
	if got := j.Len(); got != 0 {
		t.Errorf("Len() = %d, want 0", got)
	}
}

func TestJournalListsNewestFirstAndEvictsOldest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opt     journal.Options
		events  []state.Event
		ns      string
		limit   int
		wantIDs []string
		wantLen int
	}{
		{
			name:    "newest first with a limit",
			opt:     journal.Options{},
			events:  []state.Event{ev("n", "1", state.EventLookup, 0, "Y"), ev("n", "2", state.EventLookup, 1, "Y"), ev("n", "3", state.EventLookup, 2, "Y")},
			ns:      "n",
			limit:   2,
			wantIDs: []string{"3", "2"},
			wantLen: 3,
		},
		{
			name:    "per-namespace bound",
			opt:     journal.Options{PerNamespace: 2},
			events:  []state.Event{ev("n", "1", state.EventLookup, 0, "Y"), ev("m", "m1", state.EventLookup, 1, "Y"), ev("n", "2", state.EventLookup, 2, "Y"), ev("n", "3", state.EventLookup, 3, "Y")},
			ns:      "n",
			wantIDs: []string{"3", "2"},
			wantLen: 3,
		},
		{
			name:    "global bound evicts the oldest of any namespace",
			opt:     journal.Options{Total: 2},
			events:  []state.Event{ev("m", "m1", state.EventLookup, 0, "Y"), ev("n", "1", state.EventLookup, 1, "Y"), ev("n", "2", state.EventLookup, 2, "Y")},
			ns:      "m",
			wantIDs: nil,
			wantLen: 2,
		},
		{
			name:    "a later event does not renew a transaction",
			opt:     journal.Options{PerNamespace: 2},
			events:  []state.Event{ev("n", "1", state.EventLookup, 0, "C"), ev("n", "2", state.EventLookup, 1, "Y"), ev("n", "1", state.EventCReq, 2, "C"), ev("n", "3", state.EventLookup, 3, "Y")},
			ns:      "n",
			wantIDs: []string{"3", "2"},
			wantLen: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := memstore.NewJournal(tt.opt)
			for _, e := range tt.events {
				j.Record(ctx, e)
			}
			var ids []string
			for _, s := range list(t, j, tt.ns, tt.limit) {
				ids = append(ids, s.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.wantIDs) {
				t.Errorf("List(%q, %d) ids = %v, want %v", tt.ns, tt.limit, ids, tt.wantIDs)
			}
			if got := j.Len(); got != tt.wantLen {
				t.Errorf("Len() = %d, want %d", got, tt.wantLen)
			}
		})
	}
}

func TestJournalBoundsEventsPerTransaction(t *testing.T) {
	t.Parallel()
	j := memstore.NewJournal(journal.Options{MaxEvents: 3})
	j.Record(ctx, ev("n", "1", state.EventLookup, 0, "C"))
	for i := 1; i <= 5; i++ {
		j.Record(ctx, ev("n", "1", state.EventEnquiry, time.Duration(i)*time.Second, "C"))
	}
	e, _ := get(t, j, "n", "1")
	if got, want := len(e.Events), 3; got != want {
		t.Fatalf("%d events kept, want %d", got, want)
	}
	if got, want := e.Dropped, 3; got != want {
		t.Errorf("Dropped = %d, want %d", got, want)
	}
	if got, want := e.Events[0].Kind, state.EventLookup; got != want {
		t.Errorf("first event = %q, want the lookup kept", got)
	}
	if got, want := e.Events[2].Time, t0.Add(5*time.Second); !got.Equal(want) {
		t.Errorf("last event at %v, want %v", got, want)
	}
	if got, want := e.Summary.Events, 6; got != want {
		t.Errorf("Summary.Events = %d, want %d (dropped ones counted)", got, want)
	}
}

func TestJournalChangedAndVersion(t *testing.T) {
	t.Parallel()
	j := memstore.NewJournal(journal.Options{})
	if got := version(t, j, "n"); got != 0 {
		t.Errorf("Version of an empty namespace = %d, want 0", got)
	}
	ch := j.Changed("n")
	other := j.Changed("m")
	j.Record(ctx, ev("n", "1", state.EventLookup, 0, "Y"))
	select {
	case <-ch:
	default:
		t.Fatal("Changed(n) not closed after an event of n")
	}
	select {
	case <-other:
		t.Error("Changed(m) closed by an event of n")
	default:
	}
	v1 := version(t, j, "n")
	j.Record(ctx, ev("n", "1", state.EventEnquiry, 1, "Y"))
	if v2 := version(t, j, "n"); v2 <= v1 {
		t.Errorf("Version after a second event = %d, want more than %d", v2, v1)
	}
}

// TestJournalConcurrentUse runs writers, readers and watchers together;
// run it with -race.
func TestJournalConcurrentUse(t *testing.T) {
	t.Parallel()
	j := memstore.NewJournal(journal.Options{PerNamespace: 20, Total: 50})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := fmt.Sprintf("ns%d", w%3)
			for i := range 200 {
				id := fmt.Sprintf("%d-%d", w, i/3)
				e := ev(ns, id, state.EventLookup, time.Duration(i), "Y")
				e.Request = []byte(`{"card":{"cardNumber":"400000******1109"}}`)
				j.Record(ctx, e)
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := fmt.Sprintf("ns%d", w%3)
			for range 100 {
				ch := j.Changed(ns)
				summaries, _ := j.List(ctx, ns, 10)
				for _, s := range summaries {
					_, _, _ = j.Get(ctx, ns, s.ID)
				}
				_, _ = j.Version(ctx, ns)
				select {
				case <-ch:
				case <-time.After(time.Millisecond):
				}
			}
		}()
	}
	wg.Wait()
	if got := j.Len(); got > 50 {
		t.Errorf("Len() = %d, want at most the total bound 50", got)
	}
	for ns := range 3 {
		if got := len(list(t, j, fmt.Sprintf("ns%d", ns), 0)); got > 20 {
			t.Errorf("namespace ns%d holds %d transactions, want at most 20", ns, got)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	j := memstore.NewJournal(journal.Options{})
	e := ev("n", "", state.EventLookup, 0, "Y")
	e.Request = []byte(`{"externalReferenceId":"ORD-1","card":{"cardNumber":"400000******1109"}}`)
	e.Lookup = &message.LookupResponse{Status: "Y", ThreeDSServerTransID: "tx", ECI: "05", CardScheme: "VISA"}
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Transaction.ThreeDSServerTransID = ids[i%len(ids)]
		j.Record(ctx, e)
	}
}

// TestJournalBoundedInBytes: each namespace keeps within its bytes, the
// journal within its total, the oldest transactions go first, and one
// transaction larger than its namespace may take loses its middle events.
func TestJournalBoundedInBytes(t *testing.T) {
	t.Parallel()
	const perNS, total = 64 << 10, 160 << 10
	j := memstore.NewJournal(journal.Options{MaxBytesPerNamespace: perNS, MaxTotalBytes: total})
	body := []byte(`{"note":"` + strings.Repeat("x", 200) + `"}`)
	body = append(body, strings.Repeat(" ", 1000)...)
	for i := range 300 {
		for _, ns := range []string{"a", "b", "c"} {
			e := ev(ns, fmt.Sprint(i), state.EventLookup, time.Duration(i), "Y")
			e.Request = body
			j.Record(ctx, e)
		}
		if ns := "a"; i < 10 {
			e := ev(ns, "0", state.EventEnquiry, time.Duration(i), "Y")
			e.Request = body
			j.Record(ctx, e)
		}
	}
	if got := j.Bytes(); got > total || got < total/2 {
		t.Errorf("Bytes() = %d, want at most the total %d (and not far below)", got, total)
	}
	st := j.Stats()
	if st.Evicted == 0 || st.Recorded != 910 || st.Bytes != j.Bytes() {
		t.Errorf("Stats() = %+v, want evictions, 910 recorded and the bytes", st)
	}
	for _, ns := range []string{"a", "b", "c"} {
		l := list(t, j, ns, 0)
		if len(l) == 0 || l[0].ID != "299" {
			t.Fatalf("namespace %s keeps %d transactions, newest %v: want the newest kept", ns, len(l), l)
		}
		if _, ok := get(t, j, ns, "0"); ok {
			t.Errorf("namespace %s still keeps its oldest transaction", ns)
		}
	}

	// One transaction alone beyond the namespace's bytes.
	j = memstore.NewJournal(journal.Options{MaxBytesPerNamespace: perNS, MaxEvents: 1000})
	big := []byte(`"` + strings.Repeat("y", 4000) + `"`)
	for i := range 100 {
		e := ev("a", "tx", state.EventEnquiry, time.Duration(i), "Y")
		e.Request = big
		j.Record(ctx, e)
	}
	e, ok := get(t, j, "a", "tx")
	if !ok || j.Bytes() > perNS || e.Dropped == 0 || e.Events[0].Time != t0 || e.Events[len(e.Events)-1].Time != t0.Add(99) {
		t.Errorf("one large transaction: kept %v, %d bytes, %d events, %d dropped; want it within %d bytes, its first and last events kept",
			ok, j.Bytes(), len(e.Events), e.Dropped, perNS)
	}
	if got := j.Stats().Dropped; got != uint64(e.Dropped) {
		t.Errorf("Stats().Dropped = %d, want %d", got, e.Dropped)
	}
}

// TestJournalNewTransactionOwesNothingToTheEvicted: a namespace at its
// bound forgets its oldest transaction for each new one, and the new one
// (which reuses the forgotten one's memory) shows only its own events,
// summary and bytes: as in a journal that never held the old one.
func TestJournalNewTransactionOwesNothingToTheEvicted(t *testing.T) {
	t.Parallel()
	opt := journal.Options{PerNamespace: 1, MaxEvents: 3}
	j := memstore.NewJournal(opt)
	old := ev("ns1", "tx-old", state.EventLookup, 0, "C")
	old.Transaction.ECI, old.Transaction.MerchantName, old.Transaction.MaskedPAN = "05", "Old Shop", "400000******1109"
	old.Request = []byte(`{"card":{"cardNumber":"400000******1109"}}`)
	old.Lookup = &message.LookupResponse{Status: "C", ThreeDSServerTransID: "tx-old",
		Challenge: &message.ChallengeIndication{ACSURL: "http://acs.example/acs/challenge", CReq: "eyJ9"}}
	j.Record(ctx, old)
	for i, k := range []state.EventKind{state.EventCReq, state.EventDecision, state.EventCRes, state.EventEnquiry} {
		j.Record(ctx, ev("ns1", "tx-old", k, time.Duration(i+1)*time.Second, "Y"))
	}
	if e, _ := get(t, j, "ns1", "tx-old"); e.Dropped == 0 {
		t.Fatalf("the old transaction dropped no event: %+v", e)
	}

	// A frictionless lookup, then another: each takes what the one before
	// it left.
	lookup := func(id string, at time.Duration) state.Event {
		e := ev("ns1", id, state.EventLookup, at, "Y")
		e.Request = []byte(`{"card":{"cardNumber":"520000******1005"}}`)
		e.Answer = []byte(`{"status":"Y","threeDsServerTransId":"tx-new"}` + "\n")
		e.Lookup = &message.LookupResponse{Status: "Y", ThreeDSServerTransID: id}
		return e
	}
	j.Record(ctx, lookup("tx-between", time.Minute))
	if _, ok := get(t, j, "ns1", "tx-old"); ok {
		t.Error("the oldest transaction is still kept beyond PerNamespace 1")
	}
	fresh := lookup("tx-new", 2*time.Minute)
	j.Record(ctx, fresh)
	alone := memstore.NewJournal(opt)
	alone.Record(ctx, fresh)
	if _, ok := get(t, j, "ns1", "tx-between"); ok {
		t.Error("the transaction before is still kept beyond PerNamespace 1")
	}
	got, ok := get(t, j, "ns1", "tx-new")
	want, _ := get(t, alone, "ns1", "tx-new")
	if !ok || got.Summary != want.Summary || got.Dropped != 0 || len(got.Events) != 1 {
		t.Fatalf("the new transaction = %+v (found %v)\nwant %+v", got, ok, want)
	}
	e := got.Events[0]
	if e.Challenge != nil || string(e.Request) != string(fresh.Request) || string(e.Response) != `{"status":"Y","threeDsServerTransId":"tx-new"}` {
		t.Errorf("the new transaction's event = %+v, want its own request and answer (without the newline), no challenge", e)
	}
	if gs, as := j.Stats(), alone.Stats(); gs.Bytes != as.Bytes || gs.Transactions != 1 {
		t.Errorf("the journal takes %d bytes for %d transactions, want %d as one that held only the new one", gs.Bytes, gs.Transactions, as.Bytes)
	}
}
