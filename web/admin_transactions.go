package web

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The automation API lets a test suite read back, as JSON, what the
// console shows a person, for its own token only:
//
//	GET    {base}/admin/transactions        the token's transactions, newest first, filtered and paged
//	GET    {base}/admin/transactions/{id}   one with its events; ?wait=final waits for its end
//	DELETE {base}/admin/transactions        forget them all (references and journal too)
//	DELETE {base}/admin/state               start clean: forget them, the clock at real time, no runtime scenarios, no callback URL
//
// and moves the token's clock (clockRoutes). It reads the journal, so it keeps the journal's bounds (--journal-size
// and --journal-bytes per token), and the store, whose state it settles
// as the enquiry does.
func (s *Server) automationRoutes(api routeGroup) {
	api.HandleFunc("/admin/transactions", s.handleListTransactions).Methods(http.MethodGet, http.MethodHead)
	api.HandleFunc("/admin/transactions", s.handleForgetTransactions).Methods(http.MethodDelete)
	api.HandleFunc("/admin/state", s.handleResetState).Methods(http.MethodDelete)
	api.HandleFunc("/admin/transactions/{id}", s.handleTransaction).Methods(http.MethodGet, http.MethodHead)
}

// Bounds of the listing.
const (
	// DefaultListLimit and MaxListLimit are the listing's page sizes.
	DefaultListLimit = 50
	MaxListLimit     = 1000
	// catchUp bounds how long a read waits for a shared journal to show
	// a change the store already holds (its writes reach Redis within a
	// few milliseconds).
	catchUp = 2 * time.Second
	// settleWorkers bounds the open challenges a listing settles at once.
	settleWorkers = 16
)

// badParam is the error of a malformed query parameter, named in
// emvErrorDetail.
func badParam(name, format string, args ...any) *emv.Error {
	return emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
		"query parameter "+name+": "+fmt.Sprintf(format, args...), name)
}

// params reads a query string that may carry only the allowed
// parameters, each at most once.
func params(r *http.Request, allowed ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badParam("query", "not a valid query string: %v", err)
	}
	var unknown []string
	for k, v := range q {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
			continue
		}
		if len(v) > 1 {
			return nil, badParam(k, "given %d times, want once", len(v))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("unknown query parameter %s; this route takes %s", strings.Join(unknown, ", "), strings.Join(allowed, ", ")),
			strings.Join(unknown, ","))
	}
	return q, nil
}

var (
	scenarioIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	transStatuses     = []string{"Y", "N", "U", "A", "C", "D", "R", "I"}
)

// listQuery reads the listing's filters and page.
func listQuery(r *http.Request) (journal.Query, error) {
	v, err := params(r, "externalReferenceId", "status", "scenarioId", "since", "limit", "cursor")
	if err != nil {
		return journal.Query{}, err
	}
	q := journal.Query{Limit: DefaultListLimit, ExternalReferenceID: v.Get("externalReferenceId"),
		Status: v.Get("status"), ScenarioID: v.Get("scenarioId")}
	if v.Has("externalReferenceId") && (q.ExternalReferenceID == "" || len(q.ExternalReferenceID) > 50) {
		return q, badParam("externalReferenceId", "want 1 to 50 characters")
	}
	if v.Has("status") && !slices.Contains(transStatuses, q.Status) {
		return q, badParam("status", "%q: want one of %s", q.Status, strings.Join(transStatuses, ", "))
	}
	if v.Has("scenarioId") && !scenarioIDPattern.MatchString(q.ScenarioID) {
		return q, badParam("scenarioId", "%q is not a scenario id (lower-case letters, digits, . _ -)", q.ScenarioID)
	}
	if v.Has("since") {
		if q.Since, err = time.Parse(time.RFC3339, v.Get("since")); err != nil {
			return q, badParam("since", "%q: want an RFC 3339 time such as 2026-11-24T09:00:00Z", v.Get("since"))
		}
	}
	if v.Has("limit") {
		n, err := strconv.Atoi(v.Get("limit"))
		if err != nil || n < 1 || n > MaxListLimit {
			return q, badParam("limit", "%q: want a whole number from 1 to %d", v.Get("limit"), MaxListLimit)
		}
		q.Limit = n
	}
	if v.Has("cursor") {
		if q.After, err = parseCursor(v.Get("cursor")); err != nil {
			return q, err
		}
	}
	return q, nil
}

// cursorVersion starts every cursor, so that its form may change.
const cursorVersion = "c1."

// cursorOf is the opaque cursor of a listing's next page: its version,
// then Base64Url of the creation time (Unix nanoseconds) and id of the
// page's last transaction.
func cursorOf(p journal.Position) string {
	if p.IsZero() {
		return ""
	}
	return cursorVersion + base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.Created.UnixNano(), 10)+":"+p.ID))
}

// parseCursor reads what cursorOf made.
func parseCursor(c string) (journal.Position, error) {
	bad := badParam("cursor", "not a cursor of this sandbox: pass the listing's next as it is")
	raw, ok := strings.CutPrefix(c, cursorVersion)
	if !ok || len(raw) > 128 {
		return journal.Position{}, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return journal.Position{}, bad
	}
	at, id, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || !emulator.ValidTransactionID(id) {
		return journal.Position{}, bad
	}
	return journal.Position{ID: id, Created: time.Unix(0, n).UTC()}, nil
}

// noJournal is the answer of a listing without a journal.
func noJournal() *emv.Error {
	return emv.NewError(emv.CodeNoJournal, emv.EMVAccessDenied,
		"the transaction journal is off on this sandbox (--journal-size 0): there is no list of transactions; "+
			"GET /admin/transactions/{id} still answers from the store", "journal")
}

// handleListTransactions serves GET {base}/admin/transactions: the
// token's transactions, newest first. The open challenges among them are
// settled first, as the enquiry would, so that a timeout that fell due
// shows (and is selected by its status).
func (s *Server) handleListTransactions(w http.ResponseWriter, r *http.Request) {
	q, err := listQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.cfg.Journal == nil {
		s.writeError(w, r, noJournal())
		return
	}
	ctx, ns := r.Context(), namespaceOf(r.Context())
	if q.ExternalReferenceID != "" {
		if err := s.awaitReference(ctx, ns, q.ExternalReferenceID); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	page, err := s.cfg.Journal.Query(ctx, ns, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	settled := s.settleOpen(ctx, ns, page.Open)
	if changed := changedIDs(settled); len(changed) > 0 {
		// Settling recorded events: read the journal again once it shows
		// them, so that the filters see the new statuses.
		if page, err = s.queryAfter(ctx, ns, q, changed); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	out := adminapi.TransactionList{Transactions: make([]adminapi.TransactionSummary, 0, len(page.Summaries)), Next: cursorOf(page.Next)}
	for i := range page.Summaries {
		v := summaryOf(&page.Summaries[i])
		if st, ok := settled[v.ThreeDSServerTransID]; ok {
			overlay(&v, st)
		}
		out.Transactions = append(out.Transactions, v)
	}
	respond.JSON(w, http.StatusOK, out)
}

// awaitReference waits, up to catchUp, until a journal that shows events
// a moment late (the shared one) holds the newest transaction the store
// knows with the reference ref: a listing by reference right after a
// lookup on another replica finds it.
func (s *Server) awaitReference(ctx context.Context, ns, ref string) error {
	if _, lags := s.cfg.Journal.(journal.Queued); !lags {
		return nil
	}
	id, err := s.cfg.Engine.ByReference(ctx, ns, ref)
	if errors.Is(err, state.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	deadline := time.NewTimer(catchUp)
	defer deadline.Stop()
	for {
		ch := s.cfg.Journal.Changed(ns)
		if _, ok, err := s.cfg.Journal.Get(ctx, ns, id); err != nil || ok {
			return err
		}
		if !waitOn(ctx, ch, deadline.C) {
			return nil
		}
	}
}

// settleOpen settles the open challenges ids of namespace ns, a few at
// once, and returns those it could read.
func (s *Server) settleOpen(ctx context.Context, ns string, ids []string) map[string]*emulator.Settled {
	out := make(map[string]*emulator.Settled, len(ids))
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, settleWorkers)
	for _, id := range ids {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			st, err := s.cfg.Engine.Settle(ctx, ns, id)
			if err != nil {
				return // forgotten or expired in the store: the journal's word stands
			}
			mu.Lock()
			out[id] = &st
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// changedIDs lists the transactions whose settling changed them.
func changedIDs(settled map[string]*emulator.Settled) []string {
	var out []string
	for id, st := range settled {
		if st.Changed {
			out = append(out, id)
		}
	}
	return out
}

// queryAfter runs q again once the journal no longer shows any of the
// changed transactions as open, or after catchUp.
func (s *Server) queryAfter(ctx context.Context, ns string, q journal.Query, changed []string) (journal.Page, error) {
	deadline := time.NewTimer(catchUp)
	defer deadline.Stop()
	for {
		ch := s.cfg.Journal.Changed(ns)
		page, err := s.cfg.Journal.Query(ctx, ns, q)
		if err != nil || !slices.ContainsFunc(changed, func(id string) bool { return slices.Contains(page.Open, id) }) {
			return page, err
		}
		select {
		case <-ch:
		case <-deadline.C:
			return page, nil
		case <-ctx.Done():
			return page, nil
		}
	}
}

// transactionID reads the {id} of a route: a threeDsServerTransId.
func transactionID(r *http.Request) (string, error) {
	id := strings.ToLower(mux.Vars(r)["id"])
	if !emulator.ValidTransactionID(id) {
		return "", emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("%q is not a threeDsServerTransId (a UUID)", mux.Vars(r)["id"]), "threeDsServerTransId")
	}
	return id, nil
}

// unknownTransaction is the 404 of a transaction the token does not see.
func unknownTransaction(id string) *emv.Error {
	return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction,
		fmt.Sprintf("no transaction with threeDsServerTransId %s for this token (forgotten, expired, or another token's)", id),
		"threeDsServerTransId")
}

// handleTransaction serves GET {base}/admin/transactions/{id}: the
// transaction with its events, now, or once it is final with
// ?wait=final&timeout=30s.
func (s *Server) handleTransaction(w http.ResponseWriter, r *http.Request) {
	id, err := transactionID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	wait, err := waitParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ns := namespaceOf(r.Context())
	var d adminapi.Transaction
	if wait > 0 {
		d, err = s.waitFinal(r.Context(), ns, id, wait)
	} else {
		d, err = s.transaction(r.Context(), ns, id)
	}
	if err != nil && r.Context().Err() != nil {
		return // the client left: nobody to answer
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, d)
}

// transaction reads transaction id of namespace ns: its events from the
// journal, its result from the store (settled to the present). When the
// store is ahead of the journal (a change made a moment ago, here or on
// another replica), it waits up to catchUp for the journal to show it.
func (s *Server) transaction(ctx context.Context, ns, id string) (adminapi.Transaction, error) {
	st, err := s.cfg.Engine.Settle(ctx, ns, id)
	stored := err == nil
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return adminapi.Transaction{}, err
	}
	if s.cfg.Journal == nil {
		if !stored {
			return adminapi.Transaction{}, unknownTransaction(id)
		}
		return adminapi.Transaction{TransactionSummary: storedSummary(&st), Events: []adminapi.Event{}, EventsEvicted: true}, nil
	}
	_, lags := s.cfg.Journal.(journal.Queued)
	var deadline <-chan time.Time
	for {
		ch := s.cfg.Journal.Changed(ns)
		e, ok, err := s.cfg.Journal.Get(ctx, ns, id)
		if err != nil {
			return adminapi.Transaction{}, err
		}
		behind := stored && (!ok || st.Phase != state.PhaseMethod && e.Status != st.Status || awaitsCRes(&st, &e))
		// A change made a moment ago: the journal shows it in a moment (a
		// local one records the events just after the store's change, a
		// shared one a few milliseconds later, on every replica). A local
		// journal without the transaction forgot it.
		recent := st.Changed || st.Now.Sub(lastChange(&st.Transaction)) < catchUp
		if !behind || !recent || !ok && !lags {
			return detail(id, stored, &st, ok, &e)
		}
		if deadline == nil {
			t := time.NewTimer(catchUp)
			defer t.Stop()
			deadline = t.C
		}
		if !waitOn(ctx, ch, deadline) {
			return detail(id, stored, &st, ok, &e)
		}
	}
}

// awaitsCRes tells whether the journal's entry e lacks the final CRes of
// a challenge the store holds as decided by a choice: the engine records
// the decision, then the CRes, and a reader may come in between.
func awaitsCRes(st *emulator.Settled, e *journal.Entry) bool {
	if !emulator.IsChoiceAction(st.Challenge.Decision) {
		return false // not decided, or decided by itself: no CRes
	}
	for i := range e.Events {
		if e.Events[i].Kind == state.EventCRes {
			return false
		}
	}
	return true
}

// waitOn waits for ch; false when done fires or ctx ends first.
func waitOn(ctx context.Context, ch <-chan struct{}, done <-chan time.Time) bool {
	select {
	case <-ch:
		return true
	case <-done:
	case <-ctx.Done():
	}
	return false
}

// detail is the view of a transaction from what the journal (ok, e) and
// the store (stored, st) hold.
func detail(id string, stored bool, st *emulator.Settled, ok bool, e *journal.Entry) (adminapi.Transaction, error) {
	switch {
	case ok:
		d := detailOf(e)
		if stored {
			overlay(&d.TransactionSummary, st)
		}
		return d, nil
	case stored:
		return adminapi.Transaction{TransactionSummary: storedSummary(st), Events: []adminapi.Event{}, EventsEvicted: true}, nil
	}
	return adminapi.Transaction{}, unknownTransaction(id)
}

// handleForgetTransactions serves DELETE {base}/admin/transactions: the
// token's transactions, their references and its journal are forgotten;
// its runtime scenarios and clock stay.
func (s *Server) handleForgetTransactions(w http.ResponseWriter, r *http.Request) {
	s.forget(w, r, s.cfg.Engine.Forget)
}

// handleResetState serves DELETE {base}/admin/state: the token starts
// clean, as a new one would (emulator.Engine.Reset), its journal too.
func (s *Server) handleResetState(w http.ResponseWriter, r *http.Request) {
	s.forget(w, r, s.cfg.Engine.Reset)
}

// forget runs what the engine forgets of the token's namespace, then
// clears its journal.
func (s *Server) forget(w http.ResponseWriter, r *http.Request, engine func(ctx context.Context, ns string) error) {
	if _, err := params(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	ns := namespaceOf(r.Context())
	if err := engine(r.Context(), ns); err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.cfg.Journal != nil {
		if err := s.cfg.Journal.Forget(r.Context(), ns); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
