package redisstore

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// Version returns the version of ns: the count of its changes, 0 when it
// holds nothing.
func (j *Journal) Version(ctx context.Context, ns string) (uint64, error) {
	ctx, cancel := j.ctx(ctx)
	defer cancel()
	v, err := j.c.Do(ctx, j.c.B().Hget().Key(j.base(ns)+"m").Field("v").Build()).AsUint64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	if err != nil {
		return 0, Classify("journal version", err)
	}
	return v, nil
}

// List returns the summaries of the most recent transactions of ns,
// newest first; at most limit of them (all when limit <= 0).
func (j *Journal) List(ctx context.Context, ns string, limit int) ([]journal.Summary, error) {
	f, err := j.fold(ctx, ns, "journal list", "")
	if err != nil || f == nil {
		return nil, err
	}
	list := f.mem.List(ns, limit)
	for i := range list {
		s := &list[i]
		s.Events += f.dropped["n:"+s.ID]
		s.Enquiries += f.dropped["q:"+s.ID]
	}
	return list, nil
}

// Get returns the transaction id of namespace ns with its events.
func (j *Journal) Get(ctx context.Context, ns, id string) (journal.Entry, bool, error) {
	f, err := j.fold(ctx, ns, "journal entry", id)
	if err != nil || f == nil {
		return journal.Entry{}, false, err
	}
	e, ok := f.mem.Get(ns, id)
	if !ok {
		return journal.Entry{}, false, nil
	}
	e.Timeline()
	n := f.dropped["n:"+id]
	e.Summary.Events += n
	e.Dropped += n
	e.Enquiries += f.dropped["q:"+id]
	return e, true, nil
}

// Query returns the page of the transactions of ns that q selects,
// newest first. It reads the whole namespace, as List does.
func (j *Journal) Query(ctx context.Context, ns string, q journal.Query) (journal.Page, error) {
	f, err := j.fold(ctx, ns, "journal query", "")
	if err != nil || f == nil {
		return journal.Page{}, err
	}
	p := f.mem.Query(ns, q)
	for i := range p.Summaries {
		s := &p.Summaries[i]
		s.Events += f.dropped["n:"+s.ID]
		s.Enquiries += f.dropped["q:"+s.ID]
	}
	return p, nil
}

// Forget forgets every transaction of ns: this replica's queued events
// are written first (within the store's timeout), then the namespace's
// keys go in one step and the change is published. An event queued on
// another replica in the same instant may still arrive after it.
func (j *Journal) Forget(ctx context.Context, ns string) error {
	fctx, cancel := j.ctx(ctx)
	_ = j.Flush(fctx) // best effort: a busy queue must not hold the request
	cancel()
	ctx, cancel = j.ctx(ctx)
	defer cancel()
	b := j.base(ns)
	res := j.c.DoMulti(ctx,
		j.c.B().Multi().Build(),
		j.c.B().Del().Key(b+"o", b+"s", b+"m", b+"d", b+"zo", b+"zs").Build(),
		j.c.B().Publish().Channel(j.channel()).Message(ns).Build(),
		j.c.B().Exec().Build())
	for _, r := range res {
		if err := r.Error(); err != nil {
			return ClassifyWrite("journal forget", err)
		}
	}
	return nil
}

// folded is a namespace read back: its events kept by an in-memory
// journal with the same bounds, and the counts of the events the trim
// dropped.
type folded struct {
	mem     *journal.History
	dropped map[string]int
}

// fold reads the streams of ns and keeps their events, oldest first, in
// an in-memory journal: the transactions whose openings are held, each
// with its events; only transaction only's when only is set (the others'
// events are skipped unread). An entry that cannot be read is skipped.
// nil when ns holds nothing.
func (j *Journal) fold(ctx context.Context, ns, op, only string) (*folded, error) {
	ctx, cancel := j.ctx(ctx)
	defer cancel()
	b := j.base(ns)
	res := j.c.DoMulti(ctx,
		j.c.B().Xrange().Key(b+"o").Start("-").End("+").Build(),
		j.c.B().Xrange().Key(b+"s").Start("-").End("+").Build(),
		j.c.B().Hgetall().Key(b+"d").Build())
	opened, err := res[0].AsXRangeSlices()
	if err != nil {
		return nil, Classify(op, err)
	}
	if len(opened) == 0 {
		return nil, nil
	}
	later, err := res[1].AsXRangeSlices()
	if err != nil {
		return nil, Classify(op, err)
	}
	counts, err := res[2].AsStrMap()
	if err != nil {
		return nil, Classify(op, err)
	}
	type stored struct {
		ev state.Event
		e  journal.Event
	}
	held := make(map[string]bool, len(opened))
	read := func(xs []rueidis.XRangeSlice, opening bool) []stored {
		out := make([]stored, 0, len(xs))
		for _, x := range xs {
			// An entry holds its events compressed in one field; one it
			// cannot read (written by another version) is not shown
			// rather than an error.
			for _, fv := range x.FieldValues {
				if fv.Field != chunkField {
					continue
				}
				_ = readChunk(fv.Value, func(rawID, rawValue []byte) {
					if only != "" && string(rawID) != only {
						return
					}
					id := string(rawID)
					if opening {
						held[id] = true
					} else if !held[id] {
						return // its transaction is forgotten
					}
					rec, sum, ok := unpackEvent(string(rawValue))
					if !ok {
						return
					}
					ev, ok := eventOf(ns, id, sum)
					e, err := decodeRecord([]byte(rec))
					if !ok || err != nil {
						return
					}
					out = append(out, stored{ev: ev, e: e})
				})
			}
		}
		return out
	}
	all := read(opened, true)
	all = append(all, read(later, false)...)
	// The two streams in the order of the events; an opening first among
	// events of the same time.
	sort.SliceStable(all, func(a, b int) bool { return all[a].e.Time.Before(all[b].e.Time) })
	opt := j.opt.Options
	opt.Total, opt.MaxTotalBytes = math.MaxInt, math.MaxInt64
	f := &folded{mem: journal.NewHistory(opt), dropped: make(map[string]int, len(counts))}
	for k, v := range counts {
		f.dropped[k], _ = strconv.Atoi(v)
	}
	for _, s := range all {
		f.mem.Add(s.ev, s.e)
	}
	return f, nil
}

// appendSummary appends the summary fields ev sets, each as its name,
// "=", the length of its value in decimal, ":" and the value: the id and
// the event's time ("c"), then those the event knows (an empty one keeps
// the earlier value), and those that always follow the latest event. A
// read folds them back into the transaction's summary (see eventOf).
func appendSummary(b []byte, ev state.Event) []byte {
	t := ev.Transaction
	field := func(b []byte, k, v string) []byte {
		b = append(b, k...)
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		return append(b, v...)
	}
	b = appendTimeField(append(b, "c=19:"...), ev.Time)
	b = field(b, "id", t.ThreeDSServerTransID)
	b = field(b, "sr", t.StatusReason)
	b = field(b, "cc", t.ChallengeCancel)
	b = field(b, "le", string(ev.Kind))
	for _, f := range [...]struct{ k, v string }{
		{"st", t.Status}, {"eci", t.ECI}, {"sc", t.ScenarioID}, {"ver", t.Version}, {"pan", t.MaskedPAN},
		{"bin", t.CardBIN}, {"sch", t.CardScheme}, {"chn", t.CardholderName}, {"mn", t.MerchantName},
		{"amt", t.Amount}, {"cur", t.Currency}, {"ref", t.ExternalReferenceID},
	} {
		if f.v != "" {
			b = field(b, f.k, f.v)
		}
	}
	if ev.Kind == state.EventLookup {
		b = field(b, "ls", t.Status)
		b = field(b, "fb", strconv.FormatBool(t.Fallback))
	}
	if t.Channel != state.ChannelBrowser { // a browser transaction's summary is as before channels
		b = field(b, "chl", t.Channel.String())
	}
	if t.ThreeRIInd != "" {
		b = field(b, "3ri", t.ThreeRIInd)
	}
	return b
}

// unpackSummary adds to m the fields packed in s (see appendSummary) that
// m does not hold: those set one by one since override them. It stops at
// the first malformed field.
func unpackSummary(m map[string]string, s string) {
	for s != "" {
		k, rest, ok := strings.Cut(s, "=")
		if !ok {
			return
		}
		ls, rest, ok := strings.Cut(rest, ":")
		n, err := strconv.Atoi(ls)
		if !ok || err != nil || n < 0 || n > len(rest) {
			return
		}
		if _, set := m[k]; !set {
			m[k] = rest[:n]
		}
		s = rest[n:]
	}
}

// eventOf is the engine's event as its summary fields (see appendSummary)
// describe it, for the in-memory journal to keep again; false when they
// are not a summary.
func eventOf(ns, id, packed string) (state.Event, bool) {
	m := make(map[string]string, 20)
	unpackSummary(m, packed)
	if m["id"] != id || m["le"] == "" {
		return state.Event{}, false
	}
	at, err := strconv.ParseInt(m["c"], 10, 64)
	if err != nil {
		return state.Event{}, false
	}
	channel := state.ChannelBrowser
	if name, ok := m["chl"]; ok {
		if channel, ok = state.ParseChannel(name); !ok {
			return state.Event{}, false
		}
	}
	return state.Event{Namespace: ns, Kind: state.EventKind(m["le"]), Time: time.Unix(0, at).UTC(),
		Transaction: state.Summary{
			ThreeDSServerTransID: id, ExternalReferenceID: m["ref"], ScenarioID: m["sc"], MaskedPAN: m["pan"],
			CardBIN: m["bin"], CardScheme: m["sch"], Version: m["ver"], Status: m["st"], StatusReason: m["sr"],
			ECI: m["eci"], ChallengeCancel: m["cc"], Fallback: m["fb"] == "true", CardholderName: m["chn"],
			MerchantName: m["mn"], Amount: m["amt"], Currency: m["cur"], Channel: channel, ThreeRIInd: m["3ri"],
		}}, true
}
