package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestMain lets the test binary serve as the floor process, as loadbench
// re-executes itself for it.
func TestMain(m *testing.M) {
	if isFloor(os.Getenv) {
		if err := serveFloor(os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		target string
		ok     bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://localhost:8080/3ds", true},
		{"http://[::1]:8080", true},
		{"http://127.0.0.2:8080", true},
		{"http://10.0.0.5:8080", false},
		{"https://sandbox.example.com", false},
		{"127.0.0.1:8080", false}, // no scheme
		{"ftp://127.0.0.1", false},
	}
	for _, tt := range tests {
		err := checkLoopback(tt.target)
		if got := err == nil; got != tt.ok {
			t.Errorf("checkLoopback(%q): got error %v, want accepted %v", tt.target, err, tt.ok)
		}
	}
}

func TestParseOptionsRefuses(t *testing.T) {
	tests := [][]string{
		{"-target", "http://192.0.2.1:8080"},
		{"-concurrency", "0"},
		{"-rounds", "0"},
		{"-duration", "10ms"},
		{"-rates", "1000,fast"},
		{"-rates", "-5"},
		{"-rate-window", "1ms"},
		{"-without", "fastlog"},
		{"-without", "logbuf", "-target", "http://127.0.0.1:8080"},
		{"-compare", "/tmp/x", "-target", "http://127.0.0.1:8080"},
		{"extra"},
	}
	for _, args := range tests {
		if _, err := parseOptions(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseOptions(%q): got no error, want one", args)
		}
	}
}

const wrkReport = `Running 5s test @ http://127.0.0.1:40000/authentication/brw
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.42ms    7.61ms  59.41ms   92.84%
    Req/Sec     7.10k   291.55     8.29k    70.00%
  71234 requests in 5.01s, 36.58MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  14218.36
Transfer/sec:      7.30MB
loadbench-p50 1884
loadbench-p90 9329
loadbench-p99 48058
`

func TestParseWRK(t *testing.T) {
	s, err := parseWRK(wrkReport)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Requests, 71234; got != want {
		t.Errorf("Requests: got %d, want %d", got, want)
	}
	if got, want := s.Errors, 7; got != want {
		t.Errorf("Errors: got %d, want %d", got, want)
	}
	if got, want := s.Elapsed, 5010*time.Millisecond; got != want {
		t.Errorf("Elapsed: got %s, want %s", got, want)
	}
	if got, want := []time.Duration{s.P50, s.P90, s.P99}, []time.Duration{1884 * time.Microsecond, 9329 * time.Microsecond, 48058 * time.Microsecond}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("percentiles: got %v, want %v", got, want)
	}
	if _, err := parseWRK("unable to connect to 127.0.0.1:1 Connection refused"); err == nil {
		t.Error("parseWRK of a failed run: got no error, want one")
	}
}

func TestPercentilesAndMedian(t *testing.T) {
	var l []time.Duration
	for i := 100; i >= 1; i-- {
		l = append(l, time.Duration(i)*time.Millisecond)
	}
	p50, p90, p99 := percentiles(l)
	if p50 != 51*time.Millisecond || p90 != 91*time.Millisecond || p99 != 100*time.Millisecond {
		t.Errorf("percentiles: got %s %s %s, want 51ms 91ms 100ms", p50, p90, p99)
	}
	if got := median([]float64{0.5, 0.7, 0.6}); got != 0.6 {
		t.Errorf("median of 3: got %v, want 0.6", got)
	}
	if got := median([]float64{1, 2, 3, 4}); got != 2.5 {
		t.Errorf("median of 4: got %v, want 2.5", got)
	}
}

// TestRunShort runs a tiny lookup, fixed-rate and mixed benchmark against
// the emulator binary (memory store and Redis store) and the floor
// process, and checks the report's shape.
func TestRunShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, starts two servers and drives them for 4s")
	}
	var out, progress bytes.Buffer
	args := []string{"-duration", "4s", "-rounds", "1", "-concurrency", "4", "-rates", "100,200", "-rate-window", "500ms", "-memory", "2000", "-memory-bound", "500", "-coldstart", "1",
		"-redis", testkit.Need(t, "redis-server", "redis-server"), "-redis-memory", "1000", "-bounds", "-gctrace"}
	if err := run(context.Background(), args, &out, &progress); err != nil {
		t.Fatalf("run: %v\n%s", err, progress.String())
	}
	report := out.String()
	reportHas(t, report,
		"## Lookup: emulator vs floor", "Emulator/floor throughput ratio", "Emulator-redis/floor throughput ratio",
		"## Latency at fixed rates", "| 200 | emulator |", "| 200 | emulator-redis |",
		"p99 against the target", "## Mixed traffic", "| headless challenge |", "Emulator-redis, per request kind",
		"## Bounds", "| Bound | req/s | bound/floor | emulator/bound | emulator-redis/bound | emulator-redis-local/bound |", "| floor+valid |", "| floor+decode |",
		"## Memory per stored transaction", "| 500 | 500 |", "## Redis memory per stored transaction", "| 1000 |", "## Cold start",
	)
	if strings.Contains(report, "| 1 | emulator | 0 |") || strings.Contains(report, "| 1 | emulator-redis | 0 |") {
		t.Errorf("an emulator answered nothing:\n%s", report)
	}
	// The rounds' tables, not the tables per round that follow them.
	inRounds := false
	for _, line := range strings.Split(report, "\n") {
		switch {
		case strings.HasPrefix(line, "| Round | Server | req/s |"):
			inRounds = true
		case !strings.HasPrefix(line, "|"):
			inRounds = false
		case inRounds && strings.HasPrefix(line, "| 1 |") && !strings.HasSuffix(line, "| 0 |"):
			t.Errorf("errors in round: %s", line)
		}
	}
	reportHas(t, report, "Tail: p99 over the floor's p99", "## Redis per lookup", "| 1 | emulator-redis |", "requests/s per core |",
		"Garbage collection in the lookup rounds", "| 1 | emulator-redis-local |")
}

// reportHas fails t for each of wants that report lacks.
func reportHas(t *testing.T, report string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

// TestOpenLoopChargesQueueing drives a server that needs 20ms per request
// over one connection at 100 requests per second: it can serve only 50, so
// the due requests queue and their latency, counted from when each was
// due, grows far beyond the 20ms of service. A closed loop would report
// 20ms throughout.
func TestOpenLoopChargesQueueing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
	}))
	defer srv.Close()
	client := newClient(1)
	defer client.CloseIdleConnections()
	st := openLoop(context.Background(), client, 1, 100, time.Second, lookupScript(srv.URL, []byte(`{}`)))
	// At most the server's pace (50, a few more at the edges of the
	// window); on a busy machine it may serve fewer, which only lengthens
	// the queue.
	if st.Requests < 1 || st.Requests > 60 {
		t.Errorf("requests served in 1s: got %d, want at most about 50 (the server's pace)", st.Requests)
	}
	if st.P99 < 300*time.Millisecond {
		t.Errorf("p99: got %s, want the queue charged (several hundred ms)", st.P99)
	}
}

// TestOpenLoopKeepsRate checks the offered rate on a fast server.
func TestOpenLoopKeepsRate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	client := newClient(4)
	defer client.CloseIdleConnections()
	st := openLoop(context.Background(), client, 4, 200, time.Second, lookupScript(srv.URL, []byte(`{}`)))
	// Never more than offered; most of it even on a busy machine.
	if st.Requests < 120 || st.Requests > 200 {
		t.Errorf("requests in 1s at 200/s: got %d, want 120 to 200", st.Requests)
	}
	if st.Errors != 0 {
		t.Errorf("errors: got %d, want 0", st.Errors)
	}
}

// TestFloorAnswersCannedResponse starts the floor process and checks that
// it answers the emulator's body and headers, whatever the request.
func TestFloorAnswersCannedResponse(t *testing.T) {
	header := http.Header{
		"Content-Type":           {"application/json"},
		"X-Content-Type-Options": {"nosniff"},
		"X-Request-Id":           {"0123456789abcdef"},
		"Date":                   {"Sun, 22 Nov 2026 00:00:00 GMT"}, // net/http's own
	}
	body := []byte(`{"status":"Y"}` + "\n")
	floor, err := startFloor(context.Background(), t.TempDir(), workNone, header, body)
	if err != nil {
		t.Fatal(err)
	}
	defer floor.Close()
	code, got, b, err := postFull(context.Background(), http.DefaultClient, floor.URL+"/authentication/brw", []byte(`{}`))
	if err != nil || code != http.StatusOK || !bytes.Equal(b, body) {
		t.Fatalf("floor answered HTTP %d %q, %v; want 200 %q", code, b, err, body)
	}
	for _, k := range []string{"Content-Type", "X-Content-Type-Options", "X-Request-Id"} {
		if got.Get(k) != header.Get(k) {
			t.Errorf("header %s: got %q, want %q", k, got.Get(k), header.Get(k))
		}
	}
	if got.Get("Date") == header.Get("Date") {
		t.Error("Date copied from the canned answer; net/http should set its own")
	}
}

// TestBoundsDoTheirWork starts each bound and checks that it answers the
// canned response to a lookup body its work accepts, and 400 to one it
// refuses: the bound did the work, and the rounds would count a refusal
// as an error.
func TestBoundsDoTheirWork(t *testing.T) {
	canned := []byte(`{"status":"Y"}`)
	header := http.Header{"Content-Type": {"application/json"}}
	lookup := examples.Lookup()
	tests := []struct {
		work     floorWork
		body     []byte
		wantCode int
	}{
		{workJSON, lookup, http.StatusOK},
		{workJSON, []byte(`{"threeDsServerTransId":`), http.StatusBadRequest},
		{workStd, lookup, http.StatusOK},
		{workStd, []byte(`{"a": 1,}`), http.StatusBadRequest},
		{workWire, lookup, http.StatusOK},
		{workWire, []byte(`{}`), http.StatusBadRequest}, // valid JSON, not a lookup
		{workWire, bytes.Replace(lookup, []byte(`"203.0.113.42"`), []byte(`"not an address"`), 1), http.StatusBadRequest},
	}
	servers := map[floorWork]*server{}
	for _, w := range boundWorks {
		s, err := startFloor(context.Background(), t.TempDir(), w, header, canned)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !s.Bound || s.Name != w.Name() {
			t.Errorf("%s: Bound %v, Name %q", w, s.Bound, s.Name)
		}
		servers[w] = s
	}
	for _, tt := range tests {
		code, b, err := post(context.Background(), http.DefaultClient, servers[tt.work].URL+"/authentication/brw", tt.body)
		if err != nil || code != tt.wantCode {
			t.Errorf("%s, body %.40q: HTTP %d %q, %v; want %d", tt.work.Name(), tt.body, code, b, err, tt.wantCode)
		}
		if code == http.StatusOK && !bytes.Equal(b, canned) {
			t.Errorf("%s: answered %q, want the canned %q", tt.work.Name(), b, canned)
		}
	}
	if _, err := floorWork("sleep").handler(header, canned, nil); err == nil {
		t.Error("an unknown floor work was accepted")
	}
	if _, err := workRedis.handler(header, canned, nil); err == nil {
		t.Errorf("%s without a Redis was accepted", workRedis.Name())
	}
}

// TestRedisBoundWrites: the Redis bound answers a lookup once its two
// writes are in Redis (a transaction of redisFloorValue bytes and its
// reference, each with a time to live), refuses what the emulator's
// decoding refuses, and cycles its ids so its keys stay bounded.
func TestRedisBoundWrites(t *testing.T) {
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	canned := []byte(`{"status":"Y"}`)
	s, err := startFloor(context.Background(), t.TempDir(), workRedis, http.Header{"Content-Type": {"application/json"}}, canned, floorRedisEnv+"="+srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Bound || s.Name != "floor+decode+redis" {
		t.Errorf("Bound %v, Name %q", s.Bound, s.Name)
	}
	for i := range 3 {
		code, b, err := post(context.Background(), http.DefaultClient, s.URL+"/authentication/brw", examples.Lookup())
		if err != nil || code != http.StatusOK || !bytes.Equal(b, canned) {
			t.Fatalf("lookup %d: HTTP %d %q, %v", i, code, b, err)
		}
	}
	if code, _, err := post(context.Background(), http.DefaultClient, s.URL+"/authentication/brw", []byte(`{}`)); err != nil || code != http.StatusBadRequest {
		t.Errorf("a body the emulator refuses: HTTP %d, %v; want 400", code, err)
	}
	for _, key := range []string{"loadbench-floor:t:3", "loadbench-floor:r:3"} {
		ttl, err := srv.Query("PTTL", key)
		if n, _ := strconv.Atoi(ttl); err != nil || n <= 0 {
			t.Errorf("PTTL %s = %s, %v; want a time to live", key, ttl, err)
		}
	}
	if v, err := srv.Query("STRLEN", "loadbench-floor:t:1"); err != nil || v != strconv.Itoa(redisFloorValue) {
		t.Errorf("the transaction's value: %s bytes, %v; want %d", v, err, redisFloorValue)
	}
	if n, err := srv.Query("DBSIZE"); err != nil || n != "6" {
		t.Errorf("DBSIZE %s, %v; want 6: three lookups, two keys each", n, err)
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"-wrk", "-rates", "", "-body", "my lookup.json", "-x", "it's"})
	want := `-wrk -rates '' -body 'my lookup.json' -x 'it'\''s'`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestFindFastPaths(t *testing.T) {
	tests := []struct {
		list string
		want []string
	}{
		{"", nil},
		{"logbuf", []string{"logbuf"}},
		{" static-routes , gcheadroom,", []string{"static-routes", "gcheadroom"}},
	}
	for _, tt := range tests {
		got, err := findFastPaths(tt.list)
		if err != nil {
			t.Errorf("findFastPaths(%q): %v", tt.list, err)
			continue
		}
		var names []string
		for _, p := range got {
			names = append(names, p.Name)
			if p.Tags == "" && len(p.Args) == 0 {
				t.Errorf("%s: neither build tags nor flags turn it off", p.Name)
			}
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("findFastPaths(%q) = %v, want %v", tt.list, names, tt.want)
		}
	}
}

func TestCPUTicksOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	deadline := time.Now().Add(5 * time.Second)
	for cpuTicks(os.Getpid()) == 0 && time.Now().Before(deadline) {
		for range 1_000_000 {
			_ = shellJoin([]string{"spin"})
		}
	}
	if cpuTicks(os.Getpid()) == 0 {
		t.Error("cpuTicks read no CPU time for this busy process")
	}
	if got := cpuTicks(-1); got != 0 {
		t.Errorf("cpuTicks of no process = %v, want 0", got)
	}
}
