package journal_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const lookupReq = `{"externalReferenceId":"ORD-1","merchantName":"Example <Shop>","card":{"cardNumber":"4000000000001109","cardholderName":"Jane Doe"},"purchase":{"amount":129.99,"currencyCode":"EUR"}}`
const lookupResp = `{"status":"C","cardScheme":"VISA","cardBin":"400000","threeDsServerTransId":"tx-1"}`

func ev(ns, id string, kind emulator.EventKind, at time.Duration, status string) emulator.Event {
	return emulator.Event{Namespace: ns, ThreeDSServerTransID: id, Kind: kind, Time: t0.Add(at), Status: status}
}

func TestJournalRecordsATransaction(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{})
	lookup := ev("ns1", "tx-1", emulator.EventLookup, 0, "C")
	lookup.Request, lookup.Response = []byte(lookupReq), []byte(lookupResp)
	j.Observe(lookup)
	j.Observe(ev("ns1", "tx-1", emulator.EventCReq, 2*time.Second, "C"))
	d := ev("ns1", "tx-1", emulator.EventDecision, 5*time.Second, "Y")
	d.Detail = "pass"
	j.Observe(d)
	enq := ev("ns1", "tx-1", emulator.EventEnquiry, 6500*time.Millisecond, "Y")
	enq.Response = []byte(`{"transactionStatus":"Y","eci":"05"}`)
	j.Observe(enq)

	got, ok := j.Get("ns1", "tx-1")
	if !ok {
		t.Fatal("Get(ns1, tx-1) = false, want the transaction")
	}
	want := journal.Summary{
		ID: "tx-1", Created: t0, Updated: t0.Add(6500 * time.Millisecond), Status: "Y",
		LastEvent: emulator.EventEnquiry, Events: 4, Enquiries: 1,
		MaskedPAN: "400000******1109", CardBIN: "400000", Scheme: "VISA", CardholderName: "Jane Doe",
		MerchantName: "Example <Shop>", Amount: "129.99", Currency: "EUR", ExternalReferenceID: "ORD-1",
		LookupStatus: "C", ECI: "05",
	}
	if got.Summary != want {
		t.Errorf("summary =\n%+v\nwant\n%+v", got.Summary, want)
	}
	kinds := []emulator.EventKind{emulator.EventLookup, emulator.EventCReq, emulator.EventDecision, emulator.EventEnquiry}
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
	if strings.Contains(string(got.Events[0].Request), "4000000000001109") {
		t.Errorf("journaled request carries the full card number: %s", got.Events[0].Request)
	}
}

func TestJournalNamespacesAreIsolated(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{})
	j.Observe(ev("a", "tx-a", emulator.EventLookup, 0, "Y"))
	j.Observe(ev("b", "tx-b", emulator.EventLookup, 0, "Y"))
	if _, ok := j.Get("a", "tx-b"); ok {
		t.Error("Get(a, tx-b) found b's transaction")
	}
	if got := j.List("a", 0); len(got) != 1 || got[0].ID != "tx-a" {
		t.Errorf("List(a) = %+v, want only tx-a", got)
	}
	if got := j.List("nobody", 0); len(got) != 0 {
		t.Errorf("List(nobody) = %+v, want none", got)
	}
}

func TestJournalIgnoresEventsWithoutIDs(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{})
	j.Observe(ev("", "tx", emulator.EventLookup, 0, "Y"))
	j.Observe(ev("ns", "", emulator.EventError, 0, "U"))
	if got := j.Len(); got != 0 {
		t.Errorf("Len() = %d, want 0", got)
	}
}

func TestJournalListsNewestFirstAndEvictsOldest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opt     journal.Options
		events  []emulator.Event
		ns      string
		limit   int
		wantIDs []string
		wantLen int
	}{
		{
			name:    "newest first with a limit",
			opt:     journal.Options{},
			events:  []emulator.Event{ev("n", "1", emulator.EventLookup, 0, "Y"), ev("n", "2", emulator.EventLookup, 1, "Y"), ev("n", "3", emulator.EventLookup, 2, "Y")},
			ns:      "n",
			limit:   2,
			wantIDs: []string{"3", "2"},
			wantLen: 3,
		},
		{
			name:    "per-namespace bound",
			opt:     journal.Options{PerNamespace: 2},
			events:  []emulator.Event{ev("n", "1", emulator.EventLookup, 0, "Y"), ev("m", "m1", emulator.EventLookup, 1, "Y"), ev("n", "2", emulator.EventLookup, 2, "Y"), ev("n", "3", emulator.EventLookup, 3, "Y")},
			ns:      "n",
			wantIDs: []string{"3", "2"},
			wantLen: 3,
		},
		{
			name:    "global bound evicts the oldest of any namespace",
			opt:     journal.Options{Total: 2},
			events:  []emulator.Event{ev("m", "m1", emulator.EventLookup, 0, "Y"), ev("n", "1", emulator.EventLookup, 1, "Y"), ev("n", "2", emulator.EventLookup, 2, "Y")},
			ns:      "m",
			wantIDs: nil,
			wantLen: 2,
		},
		{
			name:    "a later event does not renew a transaction",
			opt:     journal.Options{PerNamespace: 2},
			events:  []emulator.Event{ev("n", "1", emulator.EventLookup, 0, "C"), ev("n", "2", emulator.EventLookup, 1, "Y"), ev("n", "1", emulator.EventCReq, 2, "C"), ev("n", "3", emulator.EventLookup, 3, "Y")},
			ns:      "n",
			wantIDs: []string{"3", "2"},
			wantLen: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := journal.New(tt.opt)
			for _, e := range tt.events {
				j.Observe(e)
			}
			var ids []string
			for _, s := range j.List(tt.ns, tt.limit) {
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
	j := journal.New(journal.Options{MaxEvents: 3})
	j.Observe(ev("n", "1", emulator.EventLookup, 0, "C"))
	for i := 1; i <= 5; i++ {
		j.Observe(ev("n", "1", emulator.EventEnquiry, time.Duration(i)*time.Second, "C"))
	}
	e, _ := j.Get("n", "1")
	if got, want := len(e.Events), 3; got != want {
		t.Fatalf("%d events kept, want %d", got, want)
	}
	if got, want := e.Dropped, 3; got != want {
		t.Errorf("Dropped = %d, want %d", got, want)
	}
	if got, want := e.Events[0].Kind, emulator.EventLookup; got != want {
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
	j := journal.New(journal.Options{})
	if got := j.Version("n"); got != 0 {
		t.Errorf("Version of an empty namespace = %d, want 0", got)
	}
	ch := j.Changed("n")
	other := j.Changed("m")
	j.Observe(ev("n", "1", emulator.EventLookup, 0, "Y"))
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
	v1 := j.Version("n")
	j.Observe(ev("n", "1", emulator.EventEnquiry, 1, "Y"))
	if v2 := j.Version("n"); v2 <= v1 {
		t.Errorf("Version after a second event = %d, want more than %d", v2, v1)
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"card":{"cardNumber":"4000000000001109"}}`, `{"card":{"cardNumber":"400000******1109"}}`},
		{`{"cardNumber" : "340000000001007"}`, `{"cardNumber" : "340000*****1007"}`},
		{`{"cardNumber":"400000******1109"}`, `{"cardNumber":"400000******1109"}`},
		{`{"cardNumber":"1234567890"}`, `{"cardNumber":"**********"}`},
		{`{"cardNumber":"\u00340000000000001109"}`, `{"cardNumber":"****"}`},
		{`{"acctNumber":"5200000000001005","x":"4000000000001109"}`, `{"acctNumber":"520000******1005","x":"4000000000001109"}`},
		{`{"cardBin":"400000"}`, `{"cardBin":"400000"}`},
	}
	for _, tt := range tests {
		if got := string(journal.Mask([]byte(tt.in))); got != tt.want {
			t.Errorf("Mask(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := journal.Mask(nil); got != nil {
		t.Errorf("Mask(nil) = %q, want nil", got)
	}
}

// TestJournalConcurrentUse runs writers, readers and watchers together;
// run it with -race.
func TestJournalConcurrentUse(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{PerNamespace: 20, Total: 50})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := fmt.Sprintf("ns%d", w%3)
			for i := range 200 {
				id := fmt.Sprintf("%d-%d", w, i/3)
				e := ev(ns, id, emulator.EventLookup, time.Duration(i), "Y")
				e.Request = []byte(lookupReq)
				j.Observe(e)
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := fmt.Sprintf("ns%d", w%3)
			for range 100 {
				ch := j.Changed(ns)
				for _, s := range j.List(ns, 10) {
					j.Get(ns, s.ID)
				}
				_ = j.Version(ns)
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
		if got := len(j.List(fmt.Sprintf("ns%d", ns), 0)); got > 20 {
			t.Errorf("namespace ns%d holds %d transactions, want at most 20", ns, got)
		}
	}
}

func BenchmarkObserve(b *testing.B) {
	j := journal.New(journal.Options{})
	e := ev("n", "", emulator.EventLookup, 0, "Y")
	e.Request, e.Response = []byte(lookupReq), []byte(lookupResp)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.ThreeDSServerTransID = ids[i%len(ids)]
		j.Observe(e)
	}
}
