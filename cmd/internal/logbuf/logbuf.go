// Package logbuf gathers the lines of a busy log into few writes.
//
// The emulator logs a line per request. Written one by one, each line is
// a system call (and, on a pipe to a container runtime, a wake-up of the
// reader): under load that is a visible share of a request's cost. A
// Writer writes the first lines of each interval at once (a burst of
// them), so a person or a test watching sees every line as it comes at
// any ordinary pace; when lines come faster, it gathers the rest and
// writes them together at most one interval later, or sooner when a
// buffer's worth has gathered.
package logbuf

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Writer is an io.Writer for a log, safe for concurrent use. Each Write
// is kept whole: a line is never split between two writes to the output.
type Writer struct {
	out      io.Writer
	interval time.Duration
	size     int
	now      func() time.Time
	after    func(time.Duration, func()) // time.AfterFunc, or a test's

	mu      sync.Mutex
	buf     []byte
	pending bool      // a flush is scheduled
	window  time.Time // the start of the current interval
	written int       // lines written at once in it
	closed  bool
}

// Burst is how many lines of an interval a Writer writes at once before
// it gathers the rest.
const Burst = 16

// New returns a Writer to out that holds lines at most interval and
// writes at the latest when size bytes have gathered.
func New(out io.Writer, interval time.Duration, size int) *Writer {
	return &Writer{out: out, interval: interval, size: size, now: time.Now,
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
}

// Write writes p at once when nothing waits and fewer than Burst lines
// went at once in the current interval, else appends it to the lines to
// be written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if now := w.now(); now.Sub(w.window) >= w.interval {
		w.window, w.written = now, 0
	}
	if w.closed || len(w.buf) == 0 && !w.pending && w.written < Burst {
		w.written++
		return w.out.Write(p)
	}
	if len(w.buf)+len(p) > w.size {
		w.flushLocked()
	}
	if len(p) >= w.size {
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	if !w.pending {
		w.pending = true
		w.after(w.interval, w.tick)
	}
	return len(p), nil
}

// tick writes what gathered since the flush was scheduled.
func (w *Writer) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = false
	w.flushLocked()
}

func (w *Writer) flushLocked() {
	if len(w.buf) == 0 {
		return
	}
	_, _ = w.out.Write(w.buf) // a log has nowhere to report its own failure
	if cap(w.buf) > 4*w.size {
		w.buf = nil // a burst's large buffer is not kept
	}
	w.buf = w.buf[:0]
}

// Flush writes the lines gathered so far.
func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
}

// Close writes the lines gathered so far; later writes go straight to
// the output.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	w.closed = true
	return nil
}

// Urgent returns a handler that hands every record to h, whose output is
// w, and writes what w gathered at once after a record at level or
// above: a warning or an error is never held back.
func Urgent(h slog.Handler, w *Writer, level slog.Level) slog.Handler {
	return urgent{Handler: h, w: w, level: level}
}

type urgent struct {
	slog.Handler
	w     *Writer
	level slog.Level
}

func (u urgent) Handle(ctx context.Context, r slog.Record) error {
	err := u.Handler.Handle(ctx, r)
	if r.Level >= u.level {
		u.w.Flush()
	}
	return err
}

func (u urgent) WithAttrs(as []slog.Attr) slog.Handler {
	return urgent{Handler: u.Handler.WithAttrs(as), w: u.w, level: u.level}
}

func (u urgent) WithGroup(name string) slog.Handler {
	return urgent{Handler: u.Handler.WithGroup(name), w: u.w, level: u.level}
}
