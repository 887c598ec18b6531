package journal

import (
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redact"
)

// Query selects the transactions of a namespace, for the automation API:
// every field it sets must match. The zero Query selects them all.
type Query struct {
	// ExternalReferenceID, Status (the current transStatus) and
	// ScenarioID match exactly; a card number in a reference or a
	// scenario id matches masked, as the summaries keep it.
	ExternalReferenceID, Status, ScenarioID string
	// Since selects the transactions created at or after it.
	Since time.Time
	// Limit is the most summaries of a page; all when <= 0.
	Limit int
	// After continues a listing after the transaction it names (a Page's
	// Next); zero: from the newest.
	After Position
}

// Position names a transaction of a listing: its id and creation time,
// so that a listing can go on after it even once it is forgotten.
type Position struct {
	ID      string
	Created time.Time
}

// IsZero reports whether p names no transaction.
func (p Position) IsZero() bool { return p.ID == "" && p.Created.IsZero() }

// Page is one page of a listing.
type Page struct {
	// Summaries are the selected transactions, newest first.
	Summaries []Summary
	// Next is where the next page starts; zero when this is the last.
	Next Position
	// Open are the ids of the namespace's transactions whose challenge is
	// not final yet (status C), newest first, whatever the query
	// selects: what a reader settles before it trusts a status.
	Open []string
}

// matches reports whether s is selected by q's filters.
func (q *Query) matches(s *Summary) bool {
	return (q.ExternalReferenceID == "" || s.ExternalReferenceID == q.ExternalReferenceID) &&
		(q.Status == "" || s.Status == q.Status) &&
		(q.ScenarioID == "" || s.ScenarioID == q.ScenarioID) &&
		(q.Since.IsZero() || !s.Created.Before(q.Since))
}

// Query returns the page of the transactions of ns that q selects,
// newest first. It walks the namespace's transactions once; the
// summaries it copies are only the page's.
func (j *History) Query(ns string, q Query) Page {
	// The summaries keep free text masked: so does the query.
	q.ExternalReferenceID, q.ScenarioID = redact.Text(q.ExternalReferenceID), redact.Text(q.ScenarioID)
	sp := j.spaces[ns]
	if sp == nil {
		return Page{}
	}
	var p Page
	for en := sp.order.Back(); en != nil; en = sp.order.Prev(en) {
		if s := &en.summary; s.Status == "C" {
			p.Open = append(p.Open, s.ID)
		}
	}
	en := sp.order.Back()
	if !q.After.IsZero() {
		en = start(sp, q.After)
	}
	for ; en != nil; en = sp.order.Prev(en) {
		s := &en.summary
		if !q.matches(s) {
			continue
		}
		if q.Limit > 0 && len(p.Summaries) == q.Limit {
			last := &p.Summaries[len(p.Summaries)-1]
			p.Next = Position{ID: last.ID, Created: last.Created}
			break
		}
		p.Summaries = append(p.Summaries, *s)
	}
	return p
}

// start is where a listing goes on after position at: just before its
// transaction, or, once that is forgotten, at the newest transaction
// created before it.
func start(sp *space, at Position) *entry {
	if en := sp.byID[at.ID]; en != nil {
		return sp.order.Prev(en)
	}
	en := sp.order.Back()
	for en != nil && !en.summary.Created.Before(at.Created) {
		en = sp.order.Prev(en)
	}
	return en
}

// Forget forgets every transaction of ns.
func (j *History) Forget(ns string) {
	sp := j.spaces[ns]
	if sp == nil {
		return
	}
	for en := sp.order.Front(); en != nil; {
		next := sp.order.Next(en)
		j.resize(sp, en, 0)
		sp.order.Remove(en)
		j.all.Remove(en)
		en = next
	}
	j.dropSpace(ns, sp)
	j.changed(ns)
}
