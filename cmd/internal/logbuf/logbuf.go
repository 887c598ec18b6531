// Package logbuf gathers the lines of a busy log into few writes.
//
// The emulator logs a line per request. Written one by one, each line is
// a system call (and, on a pipe to a container runtime, a wake-up of the
// reader): under load that is a visible share of a request's cost. A
// Writer writes a line at once when the log has been quiet for an
// interval, so a person watching sees every line as it comes; when lines
// come faster, it gathers them and writes them together at most one
// interval later, or sooner when a buffer's worth has gathered.
package logbuf

import (
	"io"
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
	last    time.Time // of the last write to out
	closed  bool
}

// New returns a Writer to out that holds lines at most interval and
// writes at the latest when size bytes have gathered.
func New(out io.Writer, interval time.Duration, size int) *Writer {
	return &Writer{out: out, interval: interval, size: size, now: time.Now,
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
}

// Write writes p at once when nothing waits and the last write is an
// interval old, else appends it to the lines to be written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if w.closed || len(w.buf) == 0 && !w.pending && now.Sub(w.last) >= w.interval {
		w.last = now
		return w.out.Write(p)
	}
	if len(w.buf)+len(p) > w.size {
		w.flushLocked(now)
	}
	if len(p) >= w.size {
		w.last = now
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
	w.flushLocked(w.now())
}

func (w *Writer) flushLocked(now time.Time) {
	if len(w.buf) == 0 {
		return
	}
	_, _ = w.out.Write(w.buf) // a log has nowhere to report its own failure
	w.last = now
	if cap(w.buf) > 4*w.size {
		w.buf = nil // a burst's large buffer is not kept
	}
	w.buf = w.buf[:0]
}

// Flush writes the lines gathered so far.
func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked(w.now())
}

// Close writes the lines gathered so far; later writes go straight to
// the output.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked(w.now())
	w.closed = true
	return nil
}
