// Package fastlog is a text handler for log/slog that writes the bytes
// slog.TextHandler writes, at a fraction of its cost, for the records the
// emulator logs on every request: flat ones, whose values are strings,
// integers, booleans and durations. Any other record (a value of another
// kind, an attribute with an empty key) goes to a slog.TextHandler on the
// same output, as do the records of loggers derived with With or
// WithGroup; TestMatchesSlog and FuzzMatchesSlog compare the two.
//
// The request log writes a line per request: with slog's handler that
// line cost about as much as decoding a small request body.
package fastlog

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Handler is a slog.Handler of the text format with no options but the
// level.
type Handler struct {
	out   *lockedWriter
	level slog.Leveler
	slow  slog.Handler // slog's own, on the same output
	bufs  *sync.Pool   // of *[]byte
	stamp *atomic.Pointer[second]
}

// second is the text of a time but its milliseconds, for one second in
// one location: the lines of a second share it.
type second struct {
	unix   int64
	loc    *time.Location
	prefix string // 2006-01-02T15:04:05.
	zone   string // Z or -07:00
}

// NewText returns a Handler that writes to out the records at level or
// above.
func NewText(out io.Writer, level slog.Leveler) *Handler {
	w := &lockedWriter{w: out}
	return &Handler{out: w, level: level, slow: slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}),
		bufs: &sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}, stamp: new(atomic.Pointer[second])}
}

// lockedWriter serializes the writes of both handlers, as slog's
// handlers do their own: each line is one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Enabled reports whether records at level are written.
func (h *Handler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.level.Level()
}

// WithAttrs returns slog's handler with attrs: derived loggers are rare
// and not on the hot path.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler { return h.slow.WithAttrs(attrs) }

// WithGroup returns slog's handler with the group name.
func (h *Handler) WithGroup(name string) slog.Handler { return h.slow.WithGroup(name) }

// Handle writes r as slog.TextHandler would.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !flat(r) {
		return h.slow.Handle(ctx, r)
	}
	bp := h.bufs.Get().(*[]byte)
	b := h.appendRecord((*bp)[:0], r)
	_, err := h.out.Write(b)
	if cap(b) <= 16<<10 {
		*bp = b
		h.bufs.Put(bp)
	}
	return err
}

// flat tells whether every attribute of r has a key and a value of a kind
// the fast path writes.
func flat(r slog.Record) bool {
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		switch a.Value.Kind() {
		case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindBool, slog.KindDuration:
			ok = a.Key != ""
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// appendRecord appends the line of r, which flat accepts.
func (h *Handler) appendRecord(b []byte, r slog.Record) []byte {
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = h.appendTime(b, r.Time.Round(0))
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = appendString(b, r.Level.String())
	b = append(b, " msg="...)
	b = appendString(b, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b = append(b, ' ')
		b = appendString(b, a.Key)
		b = append(b, '=')
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			b = appendString(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		}
		return true
	})
	return append(b, '\n')
}

// appendTime appends t as appendRFC3339Millis does, from the text of
// its second when the last line had the same.
func (h *Handler) appendTime(b []byte, t time.Time) []byte {
	if st := h.stamp.Load(); st != nil && st.unix == t.Unix() && st.loc == t.Location() {
		ms := t.Nanosecond() / int(time.Millisecond)
		b = append(b, st.prefix...)
		b = append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
		return append(b, st.zone...)
	}
	n := len(b)
	b = appendRFC3339Millis(b, t)
	const prefixLen, millisLen = len("2006-01-02T15:04:05."), 3
	if text := b[n:]; len(text) > prefixLen+millisLen && text[prefixLen-1] == '.' {
		h.stamp.Store(&second{unix: t.Unix(), loc: t.Location(), prefix: string(text[:prefixLen]), zone: string(text[prefixLen+millisLen:])})
	}
	return b
}

// appendString appends s as slog's text handler does: as it is, or
// quoted when it is empty or holds a space, '=', '"', a control
// character or a rune that is not printable.
func appendString(b []byte, s string) []byte {
	if needsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// needsQuoting is slog's rule for the text format.
func needsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if stop[s[i]] {
			return s[i] < utf8.RuneSelf || needsQuotingFrom(s, i)
		}
	}
	return false
}

// needsQuotingFrom is needsQuoting of s from i on, where s[i] is not
// ASCII.
func needsQuotingFrom(s string, i int) bool {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if stop[c] {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// stop marks the bytes needsQuoting stops at: the ASCII ones that make
// slog quote a string (controls, space, '=' and '"') and every byte that
// is not ASCII.
var stop = func() (q [256]bool) {
	for c := range q {
		q[c] = c <= ' ' || c == '=' || c == '"' || c >= utf8.RuneSelf
	}
	return q
}()

// appendRFC3339Millis is slog's: RFC 3339 with exactly three digits of
// milliseconds.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}
