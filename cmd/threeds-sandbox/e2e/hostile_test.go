//go:build full

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// hostileCeilingMiB is the resident memory the binary stays under with its
// default flags whatever the traffic; docs/reliability.md, "Memory ceiling",
// states it and how it is made up.
const hostileCeilingMiB = 448

// TestHostileTraffic drives 64 connections of hostile bodies (padded with
// whitespace to just under the body limit, thousands of unknown keys, deep
// nesting, over the limits, each from one of thousands of tokens) at the
// real binary with its default flags, for a bounded time and count. Its
// resident memory must stay under the documented ceiling, no answer may be
// a 5xx, and a client sending ordinary lookups meanwhile must keep getting
// them answered. HOSTILE_DURATION (e.g. 2m) makes it longer.
func TestHostileTraffic(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads the resident memory from /proc")
	}
	duration := 12 * time.Second
	if d, err := time.ParseDuration(os.Getenv("HOSTILE_DURATION")); err == nil {
		duration = d
	}
	const connections, maxPerConnection = 64, 20000

	// The binary as it ships, without the race detector, whose memory
	// would swamp the figures.
	addr := testkit.FreeAddr(t)
	srv := &program{name: "sandbox", bin: sandboxBinary(t), URL: "http://" + addr, Addr: addr,
		args: []string{"--addr", addr, "--log-level", "warn", "--drain-delay", "0s"}}
	srv.start(t)
	t.Cleanup(func() {
		if srv.running() {
			_ = srv.signal(syscall.SIGKILL, 5*time.Second)
		}
		if t.Failed() {
			t.Logf("program output:\n%s", srv.tail(50))
		}
	})
	bodies := hostileBodies(t)

	ctx, stop := context.WithTimeout(context.Background(), duration)
	defer stop()
	var peakKiB atomic.Int64
	var monitor sync.WaitGroup
	monitor.Add(1)
	go func() {
		defer monitor.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib, err := residentKiB(srv.cmd.Process.Pid); err == nil && kib > peakKiB.Load() {
				peakKiB.Store(kib)
				if kib > hostileCeilingMiB<<10 {
					stop() // over the ceiling: no need to go on
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()

	transport := &http.Transport{MaxIdleConnsPerHost: connections + 1, MaxConnsPerHost: connections + 1}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	var (
		sent      atomic.Int64
		byStatus  sync.Map // int -> *atomic.Int64
		failures  atomic.Int64
		attackers sync.WaitGroup
	)
	count := func(status int) {
		c, _ := byStatus.LoadOrStore(status, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
	for c := range connections {
		attackers.Add(1)
		go func() {
			defer attackers.Done()
			for i := 0; i < maxPerConnection && ctx.Err() == nil; i++ {
				b := bodies[(c+i)%len(bodies)]
				token := fmt.Sprintf("hostile-%d-%d", c, i%64)
				path := "/authentication/brw"
				if i%8 == 7 { // runtime scenarios, as large as a token may add
					b, path = runtimeScenario(c, i), "/admin/scenarios"
				}
				status, raw, err := post(ctx, client, srv.URL+path, token, b.body)
				if err != nil {
					if ctx.Err() == nil {
						failures.Add(1)
						t.Errorf("%s body: %v", b.name, err)
					}
					return
				}
				sent.Add(1)
				count(status)
				if status != b.want && !slices.Contains(b.alsoOK, status) {
					failures.Add(1)
					t.Errorf("%s body: HTTP %d, want %d: %.300s", b.name, status, b.want, raw)
				}
				if failures.Load() > 10 {
					stop()
					return
				}
			}
		}()
	}

	// An ordinary client meanwhile: every lookup answered, none refused.
	normal := testkit.LookupJSON()
	var answered int
	var slowest time.Duration
	for ctx.Err() == nil {
		began := time.Now()
		status, raw, err := post(context.Background(), client, srv.URL+"/authentication/brw", "ordinary", normal)
		if err != nil || status != http.StatusOK {
			t.Errorf("an ordinary lookup during the attack: HTTP %d, %v: %.300s", status, err, raw)
			break
		}
		answered++
		slowest = max(slowest, time.Since(began))
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	attackers.Wait()
	stop()
	monitor.Wait()

	var statuses []string
	byStatus.Range(func(k, v any) bool {
		statuses = append(statuses, fmt.Sprintf("%d×%d", v.(*atomic.Int64).Load(), k))
		return true
	})
	peak := float64(peakKiB.Load()) / 1024
	t.Logf("%d hostile requests in %s (%s); %d ordinary lookups answered, the slowest in %s; peak RSS %.0f MiB (ceiling %d MiB); at the end %s",
		sent.Load(), duration, strings.Join(statuses, ", "), answered, slowest.Round(time.Millisecond), peak, hostileCeilingMiB,
		gauges(t, srv.URL+"/metrics", "go_memstats_heap_inuse_bytes", "go_memstats_next_gc_bytes", "threeds_journal_bytes", "threeds_store_transactions"))
	if peak > hostileCeilingMiB {
		t.Errorf("peak resident memory %.0f MiB, over the documented ceiling of %d MiB", peak, hostileCeilingMiB)
	}
	if answered == 0 {
		t.Error("no ordinary lookup was answered during the attack")
	}
	if sent.Load() < connections {
		t.Errorf("only %d hostile requests were answered: the attack did not run", sent.Load())
	}
	if err := srv.signal(syscall.SIGTERM, testkit.Patience); err != nil {
		t.Errorf("after the attack, SIGTERM: %v", err)
	}
}

// hostileBody is one body of the attack and the status it must get.
type hostileBody struct {
	name   string
	body   []byte
	want   int
	alsoOK []int
}

// runtimeScenario is a runtime scenario document of about 55 KB (50
// scenarios with the longest description allowed), its own for connection
// c and request i: when the token's or the sandbox's bound is reached it
// is refused with 413, when the tokens holding scenarios are too many with
// 429.
func runtimeScenario(c, i int) hostileBody {
	doc, _ := runtimeDocument(c, i, 50)
	return hostileBody{"runtime scenario", doc, http.StatusCreated, []int{http.StatusRequestEntityTooLarge, http.StatusTooManyRequests}}
}

// hostileBodies are valid lookups made as costly to keep as the limits
// allow, and bodies just over those limits.
func hostileBodies(t *testing.T) []hostileBody {
	t.Helper()
	raw := testkit.LookupJSON()
	const maxBody = 64 << 10 // --max-body-bytes by default
	// withMembers adds n unknown members of value, in objects of at most
	// perObject members.
	withMembers := func(n, perObject int, value string) []byte {
		var b bytes.Buffer
		b.WriteString(`{`)
		for o := 0; o*perObject < n; o++ {
			fmt.Fprintf(&b, `"extra%d":{`, o)
			for i := o * perObject; i < min(n, (o+1)*perObject); i++ {
				if i > o*perObject {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"x%05d":%q`, i, value)
			}
			b.WriteString(`},`)
		}
		b.Write(raw[1:])
		return b.Bytes()
	}
	deep := func(levels int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"deep":`)
		for range levels {
			b.WriteString(`{"a":"` + strings.Repeat("d", 300) + `","b":`)
		}
		b.WriteString(`0`)
		b.WriteString(strings.Repeat(`}`, levels))
		b.WriteString(`,`)
		b.Write(raw[1:])
		return b.Bytes()
	}
	padded := append(append([]byte{'{'}, bytes.Repeat([]byte{' '}, maxBody-len(raw)-16)...), raw[1:]...)
	longValues := withMembers(180, 250, strings.Repeat("v", 300))
	bodies := []hostileBody{
		{"padded", padded, http.StatusOK, nil},
		{"many keys", withMembers(1750, 250, "v"), http.StatusOK, nil},
		{"long values", longValues, http.StatusOK, nil},
		{"deep", deep(60), http.StatusOK, nil},
		{"too many keys", withMembers(3000, 250, ""), http.StatusBadRequest, nil},
		{"too many members", withMembers(300, 300, ""), http.StatusBadRequest, nil},
		{"too deep", deep(80), http.StatusBadRequest, nil},
		{"too large", append(bytes.Repeat([]byte{' '}, maxBody), raw...), http.StatusRequestEntityTooLarge, nil},
	}
	for _, b := range bodies {
		if b.want == http.StatusOK && (len(b.body) > maxBody || !json.Valid(b.body)) {
			t.Fatalf("%s body: %d bytes, valid JSON %v: want a valid body within the limit", b.name, len(b.body), json.Valid(b.body))
		}
	}
	return bodies
}

// residentKiB is the resident set size of process pid, from /proc.
func residentKiB(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// gauges reads the named gauges from a Prometheus text page, in MiB when
// they are bytes, for the test's log.
func gauges(t *testing.T, u string, names ...string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	values := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || !slices.Contains(names, name) {
			continue
		}
		if f, err := strconv.ParseFloat(value, 64); err == nil && strings.HasSuffix(name, "bytes") {
			value = fmt.Sprintf("%.0f MiB", f/(1<<20))
		}
		values[name] = value
	}
	var out []string
	for _, n := range names {
		out = append(out, n+" "+values[n])
	}
	return strings.Join(out, ", ")
}
