package logbuf

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// recorder keeps each write to the output apart.
type recorder struct{ writes []string }

func (r *recorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

// fakeTime drives a Writer's clock and its scheduled flushes by hand.
type fakeTime struct {
	clock     *testkit.Clock
	scheduled []func()
}

func newWriter(size int) (*Writer, *recorder, *fakeTime) {
	out, ft := &recorder{}, &fakeTime{clock: testkit.NewClock(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))}
	w := New(out, 100*time.Millisecond, size)
	w.now = ft.clock.Now
	w.after = func(_ time.Duration, f func()) { ft.scheduled = append(ft.scheduled, f) }
	return w, out, ft
}

// burst writes the lines an interval writes at once, less one, and
// forgets them: the next line is the last written at once.
func burst(w *Writer, out *recorder) {
	for range Burst - 1 {
		fmt.Fprint(w, "x\n")
	}
	out.writes = nil
}

// fire runs the flushes scheduled so far.
func (ft *fakeTime) fire() {
	fs := ft.scheduled
	ft.scheduled = nil
	for _, f := range fs {
		f()
	}
}

func TestWriter(t *testing.T) {
	for _, tt := range []struct {
		name  string
		spent bool // the interval's burst is spent but for one line
		steps func(w *Writer, ft *fakeTime)
		want  []string // the writes to the output, in order
	}{
		{"a quiet log writes at once", false, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			ft.clock.Advance(time.Second)
			fmt.Fprint(w, "b\n")
		}, []string{"a\n", "b\n"}},
		{"a burst of lines is written at once", false, func(w *Writer, ft *fakeTime) {
			for range Burst {
				fmt.Fprint(w, "a\n")
			}
		}, slices.Repeat([]string{"a\n"}, Burst)},
		{"lines close together are gathered until the flush", true, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			fmt.Fprint(w, "b\n")
			fmt.Fprint(w, "c\n")
			ft.fire()
		}, []string{"a\n", "b\nc\n"}},
		{"nothing gathered is written before the flush", true, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			fmt.Fprint(w, "b\n")
		}, []string{"a\n"}},
		{"a full buffer is written before it overflows", true, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			fmt.Fprint(w, "bbbb\n")
			fmt.Fprint(w, "cccc\n") // 10 bytes would pass the size of 8
			ft.fire()
		}, []string{"a\n", "bbbb\n", "cccc\n"}},
		{"a line longer than the buffer goes alone, in order", true, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			fmt.Fprint(w, "b\n")
			fmt.Fprint(w, "0123456789\n")
			fmt.Fprint(w, "c\n")
			ft.fire()
		}, []string{"a\n", "b\n", "0123456789\n", "c\n"}},
		{"after a flush, a quiet interval writes at once again", true, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			fmt.Fprint(w, "b\n")
			ft.fire()
			ft.clock.Advance(time.Second)
			fmt.Fprint(w, "c\n")
		}, []string{"a\n", "b\n", "c\n"}},
		{"close writes what gathered, later lines go straight", true, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			fmt.Fprint(w, "b\n")
			_ = w.Close()
			fmt.Fprint(w, "c\n")
			fmt.Fprint(w, "d\n")
			ft.fire() // the flush scheduled before Close finds nothing
		}, []string{"a\n", "b\n", "c\n", "d\n"}},
		{"flush writes what gathered", true, func(w *Writer, ft *fakeTime) {
			fmt.Fprint(w, "a\n")
			fmt.Fprint(w, "b\n")
			w.Flush()
			ft.fire()
		}, []string{"a\n", "b\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, out, ft := newWriter(8)
			if tt.spent {
				burst(w, out)
			}
			tt.steps(w, ft)
			if got := strings.Join(out.writes, "|"); got != strings.Join(tt.want, "|") {
				t.Errorf("writes %q, want %q", out.writes, tt.want)
			}
		})
	}
}

// TestWriterConcurrent writes from many goroutines with the real clock:
// every line arrives once and whole, and Close leaves nothing behind.
func TestWriterConcurrent(t *testing.T) {
	var out testkit.Buffer
	w := New(&out, time.Millisecond, 512)
	const goroutines, lines = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(w, "line g=%d i=%04d end\n", g, i)
			}
		})
	}
	wg.Wait()
	_ = w.Close()
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != goroutines*lines {
		t.Fatalf("%d lines, want %d", len(got), goroutines*lines)
	}
	seen := map[string]bool{}
	for _, l := range got {
		if !strings.HasPrefix(l, "line g=") || !strings.HasSuffix(l, " end") || seen[l] {
			t.Fatalf("line %q broken or repeated", l)
		}
		seen[l] = true
	}
}

// BenchmarkWrite is a request log's line written straight to /dev/null
// (a system call per line, the cheapest there is) and through a Writer.
func BenchmarkWrite(b *testing.B) {
	line := []byte(`time=2026-11-26T01:02:03.456Z level=INFO msg=request request_id=0123456789abcdef method=POST path=/authentication/brw status=200 bytes=612 duration=41.2µs namespace=ns-9f2a` + "\n")
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	b.Run("straight", func(b *testing.B) {
		for b.Loop() {
			_, _ = null.Write(line)
		}
	})
	b.Run("gathered", func(b *testing.B) {
		w := New(null, 10*time.Millisecond, 32<<10)
		for b.Loop() {
			_, _ = w.Write(line)
		}
		_ = w.Close()
	})
}

// TestUrgent: a record at the urgent level or above is written at once,
// with the lines gathered before it; one below waits for the flush.
func TestUrgent(t *testing.T) {
	w, out, ft := newWriter(1 << 10)
	burst(w, out)
	log := slog.New(Urgent(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}), w, slog.LevelWarn)).With("replica", "r1")
	log.Info("first")  // a quiet log: at once
	log.Info("second") // gathered
	if len(out.writes) != 1 {
		t.Fatalf("writes %q, want only the first line before a warning", out.writes)
	}
	log.Warn("third")
	want := []string{"level=INFO msg=first replica=r1\n", "level=INFO msg=second replica=r1\nlevel=WARN msg=third replica=r1\n"}
	if strings.Join(out.writes, "|") != strings.Join(want, "|") {
		t.Errorf("writes %q, want %q", out.writes, want)
	}
	log.WithGroup("g").Error("fourth", "k", 1)
	if got := out.writes[len(out.writes)-1]; got != "level=ERROR msg=fourth replica=r1 g.k=1\n" {
		t.Errorf("last write %q", got)
	}
	ft.fire()
}
