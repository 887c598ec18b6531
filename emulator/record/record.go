// Package record encodes a transaction into compact bytes and back: no
// pointers for the garbage collector when a store keeps many of them in
// memory, and a few hundred bytes a transaction when a store keeps them
// elsewhere. Both stores use it: emulator/memstore for its arena, and
// emulator/redisstore for the values it writes (behind a format byte).
package record

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// A record is one transaction encoded into bytes, so that the store keeps
// no pointers the garbage collector would have to follow. Its layout:
//
//	CreatedAt                       a time, see appendTime
//	uvarint n, then n bytes         the string fields back to back, in stringsOf order
//	uvarint ×numStrings             the length of each string field, same order
//	Challenge.OpenedAt, .DecidedAt  times
//	Phase, PANLength, PANLast4      6 bytes
//	Challenge.WindowSize, .Interactions, .WrongOTPs   varints
//	[method section]                only when Method is not zero, see appendMethod
//	[generation section]            only when Generation is not zero: generationV1, uvarint
//	[language section]              only when Challenge.Language is not empty: languageV1, uvarint length, bytes
//	[style section]                 only when Challenge.Resends or .App is set: styleV1, uvarint, uvarint length, bytes
//	[steps section]                 only when Challenge.Steps differs from .Interactions: stepsV1, varint
//	[channel section]               only when Channel is not the browser: channelV1, one byte
//	[app section]                   only when App is not zero: see appendApp
//
// The sections came later, each opened by its own byte: a record without
// them (every record written before they existed, every transaction
// without a device data collection, of a namespace that never forgot its
// transactions) decodes with a zero Method and Generation, so old records
// still read.
// The strings are in one piece: decoding converts it to a single string
// and slices the fields out of it, one allocation per decoded transaction.
// What the store reads most lies at the front: the creation time (the age
// check reads nothing else), then the strings, whose first three lengths
// are those of the namespace, id and reference that the indexes verify.

// numStrings is the number of string fields of a Transaction.
const numStrings = 25

// stringsOf returns the string fields of t in record order, the three the
// indexes use first. Decode lists them in the same order.
func stringsOf(t *state.Transaction) [numStrings]string {
	c := &t.Challenge
	return [numStrings]string{
		t.Namespace, t.ThreeDSServerTransID, t.ExternalReferenceID,
		t.ACSTransID, t.DSTransID, t.ScenarioID,
		t.CardScheme, t.CardBIN, t.Version,
		t.Status, t.StatusReason, t.ECI, t.AuthenticationType, t.ChallengeCancel,
		t.WhiteListStatus, t.WhiteListStatusSrc, t.ACSReferenceNumber, t.ACSOperatorID,
		c.NotificationURL, c.Session, c.MerchantName, c.Amount, c.Currency, c.PurchaseDate, c.Decision,
	}
}

// Kinds of time in a record. A time keeps its instant and its location:
// the zero time, UTC and time.Local come back exactly as they went in (==
// holds, only the monotonic clock reading is dropped); any other location
// comes back as a fixed zone of the same name and offset at that instant,
// which formats the same and compares Equal.
const (
	timeZero byte = iota
	timeUTC
	timeLocal
	timeFixed // the zone's offset (varint seconds) and name (uvarint length, bytes) follow
)

// appendTime appends t: its kind, then unless zero its Unix seconds (8
// bytes) and nanoseconds (4 bytes), little-endian. Fixed sizes decode
// fastest, and seconds and nanoseconds are exact for every time a
// time.Time holds, unlike UnixNano.
func appendTime(b []byte, t time.Time) []byte {
	switch {
	case t.IsZero():
		return append(b, timeZero)
	case t.Location() == time.UTC:
		b = append(b, timeUTC)
	case t.Location() == time.Local:
		b = append(b, timeLocal)
	default:
		name, offset := t.Zone()
		b = append(b, timeFixed)
		b = binary.AppendVarint(b, int64(offset))
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.LittleEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

// Append appends the record of t to b.
func Append(b []byte, t *state.Transaction) []byte {
	b = appendTime(b, t.CreatedAt)
	strs := stringsOf(t)
	n := 0
	for _, s := range strs {
		n += len(s)
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, s := range strs {
		b = append(b, s...)
	}
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
	}
	b = appendTime(b, t.Challenge.OpenedAt)
	b = appendTime(b, t.Challenge.DecidedAt)
	b = append(b, byte(t.Phase), t.PANLength)
	b = append(b, t.PANLast4[:]...)
	b = binary.AppendVarint(b, int64(t.Challenge.WindowSize))
	b = binary.AppendVarint(b, int64(t.Challenge.Interactions))
	b = binary.AppendVarint(b, int64(t.Challenge.WrongOTPs))
	if t.Method != (state.MethodState{}) {
		b = appendMethod(b, &t.Method)
	}
	if t.Generation != 0 {
		b = binary.AppendUvarint(append(b, generationV1), t.Generation)
	}
	if l := t.Challenge.Language; l != "" {
		b = binary.AppendUvarint(append(b, languageV1), uint64(len(l)))
		b = append(b, l...)
	}
	if t.Challenge.Resends != 0 || t.Challenge.App != "" {
		b = binary.AppendUvarint(append(b, styleV1), uint64(t.Challenge.Resends))
		b = binary.AppendUvarint(b, uint64(len(t.Challenge.App)))
		b = append(b, t.Challenge.App...)
	}
	if t.Challenge.Steps != t.Challenge.Interactions {
		b = binary.AppendVarint(append(b, stepsV1), int64(t.Challenge.Steps))
	}
	if t.Channel != state.ChannelBrowser {
		b = append(b, channelV1, byte(t.Channel))
	}
	if !t.App.IsZero() {
		b = appendApp(b, &t.App)
	}
	return b
}

// channelV1 opens the channel section of a record: the transaction's
// Channel follows in one byte. It follows the steps section; a record
// without it is a browser transaction's.
const channelV1 byte = 7

// languageV1 opens the language section of a record: the length of the
// transaction's Challenge.Language follows as a uvarint, then its bytes.
// It comes after the generation section.
const languageV1 byte = 4

// styleV1 opens the style section of a record: what a challenge style
// keeps beyond the common fields: the codes sent again
// (Challenge.Resends) as a uvarint, then the bank app's answer
// (Challenge.App) as a uvarint length and its bytes. It follows the
// language section.
const styleV1 byte = 5

// stepsV1 opens the steps section of a record: the answers the challenge
// page took (Challenge.Steps) as a varint, when they differ from the
// authentication cycles (Challenge.Interactions). Without it Steps is
// Interactions: every cycle is a step, and a record written before the
// two were counted apart counted every step as an interaction. It
// follows the style section.
const stepsV1 byte = 6

// generationV1 opens the generation section of a record: the
// transaction's Generation follows as a uvarint. Its byte follows those
// of the method section, which comes first.
const generationV1 byte = 3

// methodV2 opens the method section of a record. Its layout:
//
//	methodV2
//	uvarint length, bytes           DDCID, NotificationURL, CompInd, RequestorCompInd
//	RequestedAt, StartedAt, CompletedAt   times
//	Available                       one byte, 0 or 1
//	Duration                        varint milliseconds
//	uvarint length, bytes           Merchant
//	flags                           one byte: Claimable 1, PartialCard 2, Used 4
//
// A section of version 1 (methodV1, written before the browser's capture)
// ends after Duration; it decodes with Used set when CompInd is, which is
// how version 1 told a collection a lookup had continued.
const (
	methodV1 byte = 1
	methodV2 byte = 2
)

// Flags of the method section.
const (
	methodClaimable byte = 1 << iota
	methodPartialCard
	methodUsed
)

// appendMethod appends the method section of m.
func appendMethod(b []byte, m *state.MethodState) []byte {
	b = append(b, methodV2)
	for _, s := range [...]string{m.DDCID, m.NotificationURL, m.CompInd, m.RequestorCompInd} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = appendTime(b, m.RequestedAt)
	b = appendTime(b, m.StartedAt)
	b = appendTime(b, m.CompletedAt)
	avail := byte(0)
	if m.Available {
		avail = 1
	}
	b = append(b, avail)
	b = binary.AppendVarint(b, m.Duration.Milliseconds())
	b = binary.AppendUvarint(b, uint64(len(m.Merchant)))
	b = append(b, m.Merchant...)
	var flags byte
	if m.Claimable {
		flags |= methodClaimable
	}
	if m.PartialCard {
		flags |= methodPartialCard
	}
	if m.Used {
		flags |= methodUsed
	}
	return append(b, flags)
}

// method reads what appendMethod wrote, of either version.
func (r *reader) method() state.MethodState {
	var m state.MethodState
	version := r.byte()
	if version != methodV1 && version != methodV2 {
		r.fail()
		return m
	}
	m.DDCID = string(r.bytes(r.uvarint()))
	m.NotificationURL = string(r.bytes(r.uvarint()))
	m.CompInd = string(r.bytes(r.uvarint()))
	m.RequestorCompInd = string(r.bytes(r.uvarint()))
	m.RequestedAt, m.StartedAt, m.CompletedAt = r.time(), r.time(), r.time()
	switch r.byte() {
	case 0:
	case 1:
		m.Available = true
	default:
		r.fail()
	}
	ms := int64(r.int())
	if ms > math.MaxInt64/int64(time.Millisecond) || ms < math.MinInt64/int64(time.Millisecond) {
		r.fail()
	}
	m.Duration = time.Duration(ms) * time.Millisecond
	if version == methodV1 {
		m.Used = m.CompInd != ""
		return m
	}
	m.Merchant = string(r.bytes(r.uvarint()))
	flags := r.byte()
	if flags&^(methodClaimable|methodPartialCard|methodUsed) != 0 {
		r.fail()
	}
	m.Claimable, m.PartialCard, m.Used = flags&methodClaimable != 0, flags&methodPartialCard != 0, flags&methodUsed != 0
	return m
}

// ErrCorrupt reports a record that does not decode.
var ErrCorrupt = errors.New("record: corrupt transaction record")

// reader consumes a record from its front. Its first failure sticks (bad)
// and makes every later read return zero values, so that decoders check
// once, at the end.
//
// It advances an offset rather than reslicing b, so that its methods write
// no pointers (which would cost write barriers while the GC runs), and bad
// is a bool rather than an error, so that escape analysis does not see the
// record flow into a returned error and move callers' buffers to the heap.
type reader struct {
	b   []byte
	off int
	bad bool
}

func (r *reader) fail() {
	r.bad, r.off = true, len(r.b)
}

func (r *reader) byte() byte {
	if r.off >= len(r.b) {
		r.fail()
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)-r.off) {
		r.fail()
		return nil
	}
	start := r.off
	r.off += int(n)
	return r.b[start:r.off]
}

func (r *reader) uint64() uint64 {
	if len(r.b)-r.off < 8 {
		r.fail()
		return 0
	}
	r.off += 8
	return binary.LittleEndian.Uint64(r.b[r.off-8:])
}

func (r *reader) uint32() uint32 {
	if len(r.b)-r.off < 4 {
		r.fail()
		return 0
	}
	r.off += 4
	return binary.LittleEndian.Uint32(r.b[r.off-4:])
}

func (r *reader) uvarint() uint64 {
	if r.off < len(r.b) && r.b[r.off] < 0x80 { // one byte: most lengths
		r.off++
		return uint64(r.b[r.off-1])
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

// int reads a varint that must fit an int.
func (r *reader) int() int {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 || int64(int(v)) != v {
		r.fail()
		return 0
	}
	r.off += n
	return int(v)
}

// time reads what appendTime wrote.
func (r *reader) time() time.Time {
	var loc *time.Location
	switch r.byte() {
	case timeZero:
		return time.Time{}
	case timeUTC:
		loc = time.UTC
	case timeLocal:
		loc = time.Local
	case timeFixed:
		offset := r.int()
		name := r.bytes(r.uvarint())
		loc = time.FixedZone(string(name), offset)
	default:
		r.fail()
	}
	sec, nsec := int64(r.uint64()), r.uint32()
	if r.bad || nsec >= 1e9 {
		r.fail()
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).In(loc)
}

// strings reads the string section at r's position: it returns its bytes
// and sets ends to the end of each of the first len(ends) strings within
// them. Only a full decode (numStrings ends) checks that they add up.
func (r *reader) strings(ends []int) []byte {
	strs := r.bytes(r.uvarint())
	end := 0
	for i := range ends {
		var n uint64
		if r.off < len(r.b) && r.b[r.off] < 0x80 {
			// One byte, most lengths: inline, as uvarint is too large
			// for the compiler to inline.
			n = uint64(r.b[r.off])
			r.off++
		} else {
			n = min(r.uvarint(), uint64(len(strs)+1)) // no overflow of end
		}
		end += int(n)
		ends[i] = end
	}
	if end > len(strs) || (len(ends) == numStrings && end != len(strs)) {
		r.fail()
		return nil
	}
	return strs
}

// Keys are the strings of a record that the indexes use, sharing
// the record's memory.
// Keys are the namespace, id and external reference of a record, as
// slices of it.
type Keys struct {
	NS, ID, Ref []byte
}

// ReadKeys reads the keys of rec without decoding the rest.
func ReadKeys(rec []byte) (Keys, error) {
	r := reader{b: rec}
	r.time()
	var ends [3]int
	strs := r.strings(ends[:])
	if r.bad {
		return Keys{}, ErrCorrupt
	}
	return Keys{NS: strs[:ends[0]], ID: strs[ends[0]:ends[1]], Ref: strs[ends[1]:ends[2]]}, nil
}

// ReadCreatedAt reads only the creation time of rec.
func ReadCreatedAt(rec []byte) (time.Time, error) {
	r := reader{b: rec}
	t := r.time()
	if r.bad {
		return time.Time{}, ErrCorrupt
	}
	return t, nil
}

// Decode decodes a record made by Append. The string fields share one
// allocation; the record's memory is not retained.
func Decode(rec []byte) (state.Transaction, error) {
	r := reader{b: rec}
	createdAt := r.time()
	var s stringTable
	strs := r.strings(s.ends[:])
	openedAt, decidedAt := r.time(), r.time()
	fixed := r.bytes(6)
	windowSize, interactions, wrongOTPs := r.int(), r.int(), r.int()
	var method state.MethodState
	var generation uint64
	var lang string
	var resends int
	var bankApp string
	steps := interactions
	var channel state.Channel
	var app state.AppState // the app channel's, not the bank app's answer
	// The sections, each at most once and in their order.
	for last := byte(0); !r.bad && r.off < len(r.b); {
		tag := r.b[r.off]
		if tag <= last {
			r.fail()
			break
		}
		last = tag
		switch tag {
		case methodV1, methodV2:
			method = r.method()
		case generationV1:
			r.off++
			generation = r.uvarint()
		case languageV1:
			r.off++
			lang = string(r.bytes(r.uvarint()))
		case styleV1:
			r.off++
			if n := r.uvarint(); n <= math.MaxInt32 {
				resends = int(n)
			} else {
				r.fail()
			}
			bankApp = string(r.bytes(r.uvarint()))
		case stepsV1:
			r.off++
			steps = r.int()
		case channelV1:
			r.off++
			if channel = state.Channel(r.byte()); !channel.Valid() || channel == state.ChannelBrowser {
				r.fail()
			}
		case appV1:
			app = r.app()
		default:
			r.fail()
		}
	}
	if r.bad || r.off != len(r.b) {
		return state.Transaction{}, ErrCorrupt
	}
	s.all = string(strs)
	return state.Transaction{
		Namespace: s.at(0), ThreeDSServerTransID: s.at(1), ExternalReferenceID: s.at(2),
		ACSTransID: s.at(3), DSTransID: s.at(4), ScenarioID: s.at(5),
		CardScheme: s.at(6), CardBIN: s.at(7), Version: s.at(8),
		Status: s.at(9), StatusReason: s.at(10), ECI: s.at(11), AuthenticationType: s.at(12), ChallengeCancel: s.at(13),
		WhiteListStatus: s.at(14), WhiteListStatusSrc: s.at(15), ACSReferenceNumber: s.at(16), ACSOperatorID: s.at(17),
		Challenge: state.ChallengeState{
			NotificationURL: s.at(18), Session: s.at(19), MerchantName: s.at(20), Amount: s.at(21),
			Currency: s.at(22), PurchaseDate: s.at(23), Decision: s.at(24),
			WindowSize: windowSize, Interactions: interactions, Steps: steps, WrongOTPs: wrongOTPs, Resends: resends, App: bankApp,
			OpenedAt: openedAt, DecidedAt: decidedAt, Language: lang,
		},
		Method:     method,
		Generation: generation,
		CreatedAt:  createdAt,
		Phase:      state.Phase(fixed[0]),
		Channel:    channel,
		App:        app,
		PANLength:  fixed[1],
		PANLast4:   [4]byte(fixed[2:6]),
	}, nil
}

// stringTable is the string fields of a decoded record: all of them in
// one string, and the end of each in it.
type stringTable struct {
	all  string
	ends [numStrings]int
}

// at returns string field i.
func (s *stringTable) at(i int) string {
	start := 0
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.all[start:s.ends[i]]
}
