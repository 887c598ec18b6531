package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// errFull is what a store that refuses writes at its memory limit returns.
var errFull = fmt.Errorf("%w: %w: redis put: OOM command not allowed", state.ErrUnavailable, state.ErrStoreFull)

// fullStore refuses every write with errFull once full is set; reads work.
type fullStore struct {
	*memstore.Store
	full bool
}

func (s *fullStore) Put(ctx context.Context, t state.Transaction) error {
	if s.full {
		return errFull
	}
	return s.Store.Put(ctx, t)
}

func (s *fullStore) Update(ctx context.Context, id string, fn func(*state.Transaction) error) (state.Transaction, error) {
	if s.full {
		return state.Transaction{}, errFull
	}
	return s.Store.Update(ctx, id, fn)
}

func (s *fullStore) Ping(context.Context) error {
	if s.full {
		return errFull
	}
	return nil
}

// fullSessions refuses to open a session.
type fullSessions struct{ state.SessionStore }

func (fullSessions) Create(context.Context, state.Session, time.Duration) (string, error) {
	return "", errFull
}

// TestStoreFullAnswers: a write the store refuses for want of memory
// answers 503 SY04 (EMV 404) saying the store is full, as JSON on the API
// and as a page on the console and the ACS pages; /readyz answers 503;
// the refusals are counted in /metrics.
func TestStoreFullAnswers(t *testing.T) {
	t.Parallel()
	var store *fullStore
	srv := buildSandbox(t, envOptions{realClock: true, state: func(p *stateParts) {
		store = &fullStore{Store: p.Store.(*memstore.Store)}
		p.Store, p.Sessions = store, fullSessions{p.Sessions}
	}}, "").Server
	srv.SetReady(true)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	ch := testkit.Lookup(t, ts.URL, "t", testkit.LookupBody(t, "4000000000009102", nil))
	creq := formFields(ch.Str("challengeHtml"))["creq"]
	if creq == "" {
		t.Fatalf("no creq in %s", ch.Str("challengeHtml"))
	}
	store.full = true

	r := testkit.Call(t, http.MethodPost, ts.URL+"/authentication/brw", "t", testkit.LookupBody(t, "4000000000009003", nil))
	if r.Status != http.StatusServiceUnavailable || r.Str("errorCode") != "SY04" || r.EMV("emvErrorCode") != "404" || !strings.Contains(r.Str("error"), "full") {
		t.Errorf("lookup: %d %s, want 503 SY04 (EMV 404) saying the store is full", r.Status, r.Raw)
	}
	if ready := testkit.Call(t, http.MethodGet, ts.URL+"/readyz", "", nil); ready.Status != http.StatusServiceUnavailable || !strings.Contains(ready.Raw, "full") {
		t.Errorf("readyz: %d %s, want 503 naming the full store", ready.Status, ready.Raw)
	}
	for _, p := range []struct {
		path string
		form url.Values
	}{
		{"/console/login", url.Values{"token": {"t"}}},
		{"/acs/challenge", url.Values{"creq": {creq}}},
	} {
		resp, err := http.PostForm(ts.URL+p.path, p.form)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(body), "full") {
			t.Errorf("%s: %d %s, want a 503 page saying the store is full\n%.300s", p.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	if m := testkit.Call(t, http.MethodGet, ts.URL+"/metrics", "", nil).Raw; !strings.Contains(m, "threeds_store_full_total 3") {
		t.Errorf("/metrics lacks threeds_store_full_total 3:\n%s", grepLines(m, "store_full"))
	}
}

// grepLines returns the lines of s that hold sub.
func grepLines(s, sub string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
