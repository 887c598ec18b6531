package fastlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Strings that exercise slog's quoting: plain, empty, spaces, '=', quotes,
// backslashes, control characters, DEL, unicode letters and spaces,
// non-printable runes and invalid UTF-8.
var samples = []string{
	"request", "", " ", "a b", "k=v", `say "hi"`, `back\slash`, "tab\there", "nl\n", "\x00", "\x7f",
	"/authentication/brw", "/enquiry/", "POST", "d056eb487ce66dea", "héllo", "日本語", "a\u00a0b", "a\u2028b",
	"\u200b", "\xff", "ok\xc3", "µs", "<&>", "path?q=1&r=2", "'single'", "emoji 😀", "=", "-", "a=b c",
}

// record builds a record at t of the attributes attrs.
func record(t time.Time, level slog.Level, msg string, attrs ...slog.Attr) slog.Record {
	r := slog.NewRecord(t, level, msg, 0)
	r.AddAttrs(attrs...)
	return r
}

// both writes r through Handler and through slog.TextHandler.
func both(t testing.TB, r slog.Record) (fast, want string) {
	t.Helper()
	var a, b bytes.Buffer
	if err := NewText(&a, slog.LevelDebug).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug}).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return a.String(), b.String()
}

// TestMatchesSlog compares the two handlers on records of every kind of
// value, level and time, and on random ones.
func TestMatchesSlog(t *testing.T) {
	at := time.Date(2026, 11, 26, 1, 31, 51, 632_999_999, time.UTC)
	cases := []slog.Record{
		record(at, slog.LevelInfo, "request", slog.String("request_id", "e639cb6ff776ff0b"), slog.String("method", "POST"),
			slog.String("path", "/authentication/brw"), slog.Int("status", 200), slog.Int("bytes", 435),
			slog.Duration("duration", 480135*time.Nanosecond), slog.String("namespace", "")),
		record(time.Time{}, slog.LevelWarn, "no time"),
		record(at.In(time.FixedZone("X", 5*3600+30*60)), slog.LevelError+2, "zone", slog.Bool("b", true), slog.Uint64("u", 1<<63)),
		record(at, slog.LevelDebug-1, "", slog.Int64("neg", -5), slog.Duration("d", 0), slog.Duration("h", 90*time.Minute+time.Nanosecond)),
		record(at, slog.LevelInfo, "fallback: any", slog.Any("err", errors.New("boom"))),
		record(at, slog.LevelInfo, "fallback: group", slog.Group("g", slog.Int("a", 1))),
		record(at, slog.LevelInfo, "fallback: empty key", slog.String("", "v")),
		record(at, slog.LevelInfo, "fallback: float, time", slog.Float64("f", 1.5), slog.Time("t", at)),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return samples[rng.IntN(len(samples))] }
	for range 2000 {
		r := record(at.Add(time.Duration(rng.Int64N(int64(time.Hour)))), slog.Level(rng.IntN(20)-8), pick())
		for range rng.IntN(8) {
			k := pick()
			if k == "" {
				k = "k"
			}
			switch rng.IntN(5) {
			case 0:
				r.AddAttrs(slog.String(k, pick()))
			case 1:
				r.AddAttrs(slog.Int64(k, rng.Int64()-rng.Int64()))
			case 2:
				r.AddAttrs(slog.Uint64(k, rng.Uint64()))
			case 3:
				r.AddAttrs(slog.Bool(k, rng.IntN(2) == 0))
			default:
				r.AddAttrs(slog.Duration(k, time.Duration(rng.Int64()>>rng.IntN(63))-time.Duration(rng.Int64N(1000))))
			}
		}
		cases = append(cases, r)
	}
	for _, r := range cases {
		if fast, want := both(t, r); fast != want {
			t.Fatalf("fastlog wrote\n%q\nslog writes\n%q", fast, want)
		}
	}
}

// TestDerivedLoggers: a logger derived with With or WithGroup, and the
// level, behave as slog's.
func TestDerivedLoggers(t *testing.T) {
	var a, b bytes.Buffer
	fast := slog.New(NewText(&a, slog.LevelInfo))
	std := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelInfo}))
	for _, l := range []*slog.Logger{fast, std} {
		l.Debug("hidden")
		l.With("replica", "r1").WithGroup("g").Info("derived", "k", 1)
	}
	strip := func(s string) string { _, rest, _ := strings.Cut(s, " "); return rest } // the times differ
	if strip(a.String()) != strip(b.String()) || strings.Contains(a.String(), "hidden") {
		t.Errorf("fastlog wrote %q, slog writes %q", a.String(), b.String())
	}
}

// FuzzMatchesSlog compares the two handlers on a message and a value
// from the fuzzer.
func FuzzMatchesSlog(f *testing.F) {
	for _, s := range samples {
		f.Add(s, s, int64(len(s)))
	}
	at := time.Date(2026, 11, 26, 1, 31, 51, 632_000_000, time.UTC)
	f.Fuzz(func(t *testing.T, msg, val string, n int64) {
		r := record(at, slog.LevelInfo, msg, slog.String(val+"k", val), slog.Int64("n", n), slog.Duration("d", time.Duration(n)))
		if fast, want := both(t, r); fast != want {
			t.Fatalf("fastlog wrote\n%q\nslog writes\n%q", fast, want)
		}
	})
}

// BenchmarkRequestLine is the request log's line, through Handler and
// through slog.TextHandler.
func BenchmarkRequestLine(b *testing.B) {
	r := record(time.Now(), slog.LevelInfo, "request", slog.String("request_id", "e639cb6ff776ff0b"), slog.String("method", "POST"),
		slog.String("path", "/authentication/brw"), slog.Int("status", 200), slog.Int("bytes", 435),
		slog.Duration("duration", 480135*time.Nanosecond), slog.String("namespace", "d056eb487ce66dea"))
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{{"fastlog", NewText(io.Discard, slog.LevelInfo)}, {"slog", slog.NewTextHandler(io.Discard, nil)}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = h.h.Handle(context.Background(), r)
			}
		})
	}
}

// TestTimesOfOneHandler: one handler, which reuses the text of a second,
// writes the times slog writes, through seconds, zones and milliseconds.
func TestTimesOfOneHandler(t *testing.T) {
	var a, b bytes.Buffer
	fast := NewText(&a, slog.LevelInfo)
	std := slog.NewTextHandler(&b, nil)
	at := time.Date(2026, 11, 26, 23, 59, 59, 998_000_000, time.UTC)
	zones := []*time.Location{time.UTC, time.FixedZone("A", -7*3600), time.FixedZone("B", 5*3600+45*60)}
	for i := range 3000 {
		tm := at.Add(time.Duration(i) * 777 * time.Microsecond).In(zones[i/1000])
		r := record(tm, slog.LevelInfo, "t")
		_ = fast.Handle(context.Background(), r)
		_ = std.Handle(context.Background(), r)
	}
	if a.String() != b.String() {
		al, bl := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
		for i := range al {
			if al[i] != bl[i] {
				t.Fatalf("line %d: fastlog wrote %q, slog writes %q", i, al[i], bl[i])
			}
		}
	}
}
