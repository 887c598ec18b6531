package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// paddedLookup is a lookup body just under the default 64 KiB bound: 52 KiB of JSON
// whitespace, then the realistic lookup with an unknown member of thirty
// 300-byte strings that compaction cannot shrink (they are cut).
func paddedLookup(t testing.TB, card, ref string) []byte {
	t.Helper()
	ext := map[string]string{}
	for i := range 30 {
		ext[fmt.Sprintf("k%02d", i)] = strings.Repeat(string(rune('a'+i%26)), 300)
	}
	raw, err := json.Marshal(testkit.LookupBody(t, card, func(m map[string]any) {
		m["externalReferenceId"] = ref
		m["ext"] = ext
	}))
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("{"+strings.Repeat(" \n\t", 52<<10/3)), raw[1:]...)
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestJournalIsBoundedInBytes drives 4 tokens x 200 padded lookups
// through the handler, and checks that the journal keeps within its byte
// bounds (not only its 200 transactions per token), keeps compacted
// bodies, and forgets the oldest transactions first.
func TestJournalIsBoundedInBytes(t *testing.T) {
	const perToken, total = 256 << 10, 768 << 10
	srv := httptest.NewUnstartedServer(nil)
	public := "http://" + srv.Listener.Addr().String()
	b := buildSandbox(t, envOptions{journal: true, realClock: true, tokens: []string{"t0", "t1", "t2", "t3"},
		journalOpt: journal.Options{MaxBytesPerNamespace: perToken, MaxTotalBytes: total}}, public)
	srv.Config.Handler = b.Server
	srv.Start()
	t.Cleanup(srv.Close)
	ts := &env{t: t, URL: public, Server: srv, Engine: b.Engine}
	ctx := context.Background()
	before := heapInUse()
	first, last := map[string]string{}, map[string]string{}
	for i := range 200 { // the tokens interleaved, as four pipelines at once
		for tok := range 4 {
			token := fmt.Sprintf("t%d", tok)
			r := ts.call(http.MethodPost, "/authentication/brw", token, paddedLookup(t, "", fmt.Sprintf("ref-%d-%d", tok, i)))
			if r.Status != http.StatusOK {
				t.Fatalf("lookup %d of %s: HTTP %d: %.300s", i, token, r.Status, r.Raw)
			}
			if i == 0 {
				first[token] = r.Str("threeDsServerTransId")
			}
			last[token] = r.Str("threeDsServerTransId")
		}
	}
	grown := int64(heapInUse()) - int64(before)
	j := b.Journal
	if got := j.Bytes(); got > total {
		t.Errorf("journal takes %d bytes after 4 x 200 padded lookups, want at most --journal-total-bytes %d", got, total)
	}
	// Generous: the journal's bound plus the test's own garbage.
	if grown > 4<<20 {
		t.Errorf("heap in use grew by %d bytes, want at most 4 MiB (journal bound %d)", grown, total)
	}
	t.Logf("journal %d bytes, %d transactions; heap in use grew by %d bytes", j.Bytes(), j.Len(), grown)
	for tok := range 4 {
		token := fmt.Sprintf("t%d", tok)
		if _, ok, _ := j.Get(ctx, namespaceOf(token), first[token]); ok {
			t.Errorf("%s: the oldest transaction is still kept, want it forgotten first", token)
		}
		e, ok, err := j.Get(ctx, namespaceOf(token), last[token])
		if err != nil || !ok {
			t.Fatalf("%s: the newest transaction is not kept (err %v)", token, err)
		}
		req := e.Events[0].Request
		if len(req) > redact.DefaultMaxBytes || bytes.Contains(req, []byte("  ")) || bytes.Contains(req, []byte("\n")) {
			t.Errorf("%s: kept request is %d bytes, want compacted within %d: %.200s", token, len(req), redact.DefaultMaxBytes, req)
		}
		if !bytes.Contains(req, []byte("…(")) {
			t.Errorf("%s: kept request has no cut marker: %.200s", token, req)
		}
	}
	// The metrics say the same.
	m := ts.call(http.MethodGet, "/metrics", "", nil)
	for _, want := range []string{
		fmt.Sprintf("threeds_journal_bytes %d", j.Bytes()),
		"threeds_journal_events_recorded_total 800",
		"threeds_journal_events_dropped_total 0",
		fmt.Sprintf("threeds_journal_evictions_total %d", 800-j.Len()),
	} {
		if !strings.Contains(m.Raw, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
