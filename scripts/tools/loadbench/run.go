package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// The scenarios of the default catalogue whose cards loadbench sends.
const (
	scenarioFrictionless = "visa-frictionless-y" // frictionless Y
	scenarioChallenge    = "visa-challenge"      // challenge, completed headlessly with pass
)

// Targets, checked at the end of a run: throughput against the floor
// (per emulator), p99 at fixed rates, memory per stored transaction.
const (
	targetRatio           = 0.75
	targetRatioRedis      = 0.5
	targetRatioRedisLocal = 0.55
	targetP99             = 5 * time.Millisecond
	targetPerTxKB         = 1024
	targetRedisPerTx      = 600
)

// Names of the servers under load.
const (
	nameEmulator = "emulator"       // the binary with its default flags: the memory store
	nameRedis    = "emulator-redis" // the binary with --store redis://: the console journal shared in Redis
	// nameRedisLocal is the binary with --store redis:// and
	// --journal-store local: the journal in the replica's memory.
	nameRedisLocal = "emulator-redis-local"
	nameFloor      = "floor"
)

// ratioTargets are the throughput ratios to the floor each emulator must reach.
var ratioTargets = map[string]float64{nameEmulator: targetRatio, nameRedis: targetRatioRedis, nameRedisLocal: targetRatioRedisLocal}

// options are the command-line flags.
type options struct {
	Duration    time.Duration
	Rounds      int
	Concurrency int
	Mix         bool
	Rates       []float64
	RateWindow  time.Duration
	WRK         bool
	Target      string
	Body        string
	Log         bool
	Memory      int
	MemoryBound int
	ColdStart   int
	Redis       string
	RedisMemory int
	Bounds      bool
	GCTrace     bool
	Without     []fastPath
	Compare     string
	Peer        peerOptions
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&o.Duration, "duration", 50*time.Second, "total time of the closed-loop windows, warm-up excluded: two thirds for the lookup rounds, one third for the mixed rounds (the fixed-rate rounds take -rate-window each)")
	fs.IntVar(&o.Rounds, "rounds", 5, "rounds of emulator-then-floor windows; the ratio is the median of the rounds")
	fs.IntVar(&o.Concurrency, "concurrency", 64, "concurrent keep-alive connections")
	rates := fs.String("rates", "1000,2500,5000", "comma-separated requests per second offered, open loop, in the fixed-rate latency rounds (empty or 0 skips them)")
	fs.DurationVar(&o.RateWindow, "rate-window", 2*time.Second, "length of one fixed-rate window (per server, round and rate)")
	fs.BoolVar(&o.Mix, "mix", true, "also measure mixed traffic: lookups, enquiries and headless challenges (a third of -duration)")
	fs.BoolVar(&o.WRK, "wrk", false, "drive the lookup rounds with wrk (Debian package wrk) instead of the Go client")
	fs.StringVar(&o.Target, "target", "", "drive an emulator already running on loopback (e.g. http://127.0.0.1:8080) instead of the in-process one")
	fs.StringVar(&o.Body, "body", "", "a file holding the lookup request sent (its card number is replaced by the scenarios' cards); the built-in example when empty")
	fs.BoolVar(&o.Log, "log", true, "the emulator logs one line per request, as with its default --log-level info (false: --log-level warn); the lines are discarded")
	fs.IntVar(&o.Memory, "memory", 300_000, "lookups stored to measure memory per transaction (0 skips)")
	fs.IntVar(&o.MemoryBound, "memory-bound", 100_000, "--store-max-entries of the bounded memory run")
	fs.IntVar(&o.ColdStart, "coldstart", 5, "cold starts of the built binary to time, median reported (0 skips)")
	fs.StringVar(&o.Redis, "redis", "auto", "also measure the emulator with its state in Redis (--store redis://), next to the memory store and the floor: auto (when redis-server is installed), off, or the path of redis-server")
	fs.IntVar(&o.RedisMemory, "redis-memory", 100_000, "lookups stored to measure Redis memory per transaction (0 skips)")
	fs.BoolVar(&o.Bounds, "bounds", false, "also run, in the lookup rounds, the floor doing part of a lookup's work and nothing else: json.Valid of the body (floor+valid, the least any JSON API does) and the emulator's own decoding and validation (floor+decode); shows how much of the gap to the floor that part alone accounts for")
	fs.BoolVar(&o.GCTrace, "gctrace", false, "run the emulators with GODEBUG=gctrace=1 and print, for each lookup round, their collections, stop-the-world pauses and mark time beside the round's p99 and the floor's")
	without := fs.String("without", "", "also run, in the lookup rounds, the emulator without each of these fast paths (comma-separated: logbuf, gcheadroom, static-routes), and print each one's throughput, allocations and CPU time per request beside the emulator's")
	fs.StringVar(&o.Compare, "compare", "", "also run, in the lookup rounds, the emulator binaries at these paths (say, built from other commits; comma-separated, each path or name=path) as emulator-compare or emulator-<name>, with the -without rows, and with Redis (unless -redis off) as emulator-redis-<name>, with the Redis rows")
	var peerNames string
	peerFlags(fs, &o.Peer, &peerNames)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	errs := checkPeerOptions(&o.Peer, peerNames)
	var err error
	if o.Without, err = findFastPaths(*without); err != nil {
		errs = append(errs, err)
	}
	if (len(o.Without) > 0 || o.Compare != "") && o.Target != "" {
		errs = append(errs, errors.New("-without and -compare start their own emulators: not with -target"))
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if o.Rounds < 1 || o.Rounds > 100 {
		errs = append(errs, fmt.Errorf("-rounds %d: want 1 to 100", o.Rounds))
	}
	if o.Concurrency < 1 || o.Concurrency > 4096 {
		errs = append(errs, fmt.Errorf("-concurrency %d: want 1 to 4096", o.Concurrency))
	}
	for _, f := range strings.Split(*rates, ",") {
		f = strings.TrimSpace(f)
		if f == "" || f == "0" {
			continue
		}
		r, err := strconv.ParseFloat(f, 64)
		if err != nil || r <= 0 || r > 1e6 {
			errs = append(errs, fmt.Errorf("-rates: %q is not a rate between 0 and 1000000 requests per second", f))
			continue
		}
		o.Rates = append(o.Rates, r)
	}
	if o.RateWindow < 100*time.Millisecond || o.RateWindow > time.Minute {
		errs = append(errs, fmt.Errorf("-rate-window %s: want 100ms to 1m", o.RateWindow))
	}
	if o.Duration < time.Second || o.Duration > 30*time.Minute {
		errs = append(errs, fmt.Errorf("-duration %s: want 1s to 30m", o.Duration))
	}
	if o.Memory < 0 || o.MemoryBound < 1 || o.ColdStart < 0 || o.RedisMemory < 0 {
		errs = append(errs, errors.New("-memory, -redis-memory and -coldstart must not be negative, -memory-bound must be positive"))
	}
	if o.Redis == "" {
		errs = append(errs, errors.New("-redis: want auto, off or the path of redis-server"))
	}
	if o.Target != "" {
		if err := checkLoopback(o.Target); err != nil {
			errs = append(errs, err)
		}
	}
	return o, errors.Join(errs...)
}

// run is the whole program.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.Peer.On() {
		if o.Peer.found, err = findPeers(o.Peer.Dir, o.Peer.Names, exec.LookPath); err != nil {
			return err
		}
	}
	progress := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	printMachine(stdout)
	fmt.Fprintf(stdout, "Command: go -C scripts/tools run ./loadbench %s\n\n", shellJoin(args))

	cat, err := scenarios.Load(scenarios.LoadOptions{})
	if err != nil {
		return fmt.Errorf("load the default scenarios: %w", err)
	}
	raw, err := readBody(o.Body)
	if err != nil {
		return err
	}
	frictionless, err := withCard(raw, cat, scenarioFrictionless)
	if err != nil {
		return err
	}
	challenge, err := withCard(raw, cat, scenarioChallenge)
	if err != nil {
		return err
	}

	dir, err := os.MkdirTemp("", "loadbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := ""
	if o.Target == "" || o.ColdStart > 0 {
		progress("go build ./cmd/threeds-sandbox")
		if bin, err = buildBinary(ctx, dir); err != nil {
			return err
		}
	}
	var redis *redisProc
	if o.Target == "" {
		if redis, err = startRedis(ctx, o.Redis, dir); err != nil {
			return err
		}
		if redis != nil {
			defer redis.Close()
			progress("redis-server %s (append-only file, fsync every second)", redis.URL)
		}
	}
	if err := loadPhases(ctx, o, bin, dir, redis, frictionless, challenge, stdout, progress); err != nil {
		return err
	}
	if o.Memory > 0 {
		if err := memoryPhase(ctx, o, frictionless, stdout, progress); err != nil {
			return err
		}
	}
	if redis != nil && o.RedisMemory > 0 {
		if err := redisMemoryPhase(ctx, o.RedisMemory, redis, frictionless, stdout, progress); err != nil {
			return err
		}
	}
	if o.ColdStart > 0 {
		if err := coldStartPhase(ctx, bin, o.ColdStart, stdout, progress); err != nil {
			return err
		}
	}
	return nil
}

// loadPhases measures the emulator (the binary bin, or o.Target) against
// the floor: lookup rounds, fixed-rate rounds, then mixed rounds. dir holds
// temporary files.
func loadPhases(ctx context.Context, o options, bin, dir string, redis *redisProc, frictionless, challenge []byte, stdout io.Writer, progress func(string, ...any)) error {
	emu := &server{Name: nameEmulator, URL: strings.TrimRight(o.Target, "/"), close: func() error { return nil }}
	if o.Target == "" {
		var err error
		if emu, err = startEmulatorTraced(ctx, nameEmulator, bin, o.Log, o.GCTrace); err != nil {
			return err
		}
	}
	defer emu.Close()
	servers := []*server{emu}
	if redis != nil {
		emuRedis, err := startEmulatorTraced(ctx, nameRedis, bin, o.Log, o.GCTrace, redis.Args()...)
		if err != nil {
			return err
		}
		defer emuRedis.Close()
		emuLocal, err := startEmulatorTraced(ctx, nameRedisLocal, bin, o.Log, o.GCTrace, append(redis.Args(), "--journal-store", "local")...)
		if err != nil {
			return err
		}
		defer emuLocal.Close()
		servers = append(servers, emuRedis, emuLocal)
	}
	client := newClient(o.Concurrency)
	defer client.CloseIdleConnections()

	// The floor answers a real lookup response, byte for byte the size of
	// the emulator's.
	code, header, canned, err := postFull(ctx, client, emu.URL+"/authentication/brw", frictionless)
	if err != nil || code != http.StatusOK {
		return fmt.Errorf("first lookup on the emulator: HTTP %d, %v\n%s", code, err, canned)
	}
	floor, err := startFloor(ctx, dir, workNone, header, canned)
	if err != nil {
		return err
	}
	defer floor.Close()
	var bounds []*server
	if o.Bounds {
		for _, w := range boundWorks {
			b, err := startFloor(ctx, dir, w, header, canned)
			if err != nil {
				closeAll(bounds)
				return err
			}
			bounds = append(bounds, b)
		}
		if redis != nil {
			b, err := startFloor(ctx, dir, workRedis, header, canned, floorRedisEnv+"="+redis.URL)
			if err != nil {
				closeAll(bounds)
				return err
			}
			bounds = append(bounds, b)
		}
	}
	defer closeAll(bounds)
	without, err := startWithout(ctx, o.Without, bin, dir, o.Log, progress)
	if err != nil {
		return err
	}
	defer closeAll(without)
	for _, c := range strings.Split(o.Compare, ",") {
		if c == "" {
			continue
		}
		name, bin, ok := strings.Cut(c, "=")
		if !ok {
			name, bin = "compare", c
		}
		cmp, err := startEmulator(ctx, nameEmulator+"-"+name, bin, o.Log)
		if err != nil {
			return err
		}
		defer cmp.Close()
		cmp.Without = true
		without = append(without, cmp)
		if redis != nil {
			// The same binary on the benchmark's Redis, in the lookup
			// rounds, with its own rows of Redis's work per lookup.
			cmpRedis, err := startEmulatorTraced(ctx, nameRedis+"-"+name, bin, o.Log, o.GCTrace, redis.Args()...)
			if err != nil {
				return err
			}
			defer cmpRedis.Close()
			servers = append(servers, cmpRedis)
		}
	}
	peers, err := startPeers(ctx, o.Peer.found, dir, frictionless, cannedFrom(header, canned), progress)
	if err != nil {
		return err
	}
	defer closeAll(peers)
	servers = append(servers, floor)

	windows := time.Duration(len(servers) * o.Rounds)
	lookupShare, mixShare := o.Duration, time.Duration(0)
	if o.Mix {
		mixShare = o.Duration / 3
	}
	lookupShare -= mixShare
	lookupWindow := lookupShare / windows
	warm := min(time.Second, lookupWindow/2)
	for _, s := range servers {
		closedLoop(ctx, client, o.Concurrency, warm, lookupScript(s.URL, frictionless))
	}

	driver := "Go client (net/http, in this process)"
	measure := func(s *server, d time.Duration) (*stats, error) {
		return closedLoop(ctx, client, o.Concurrency, d, lookupScript(s.URL, frictionless)), nil
	}
	if o.WRK {
		w, err := newWRK(dir, frictionless, min(runtime.NumCPU(), o.Concurrency))
		if err != nil {
			return err
		}
		driver = fmt.Sprintf("wrk (%d threads, separate process)", w.threads)
		measure = func(s *server, d time.Duration) (*stats, error) {
			return w.run(ctx, s.URL+"/authentication/brw", o.Concurrency, d)
		}
	}
	if err := warmPeers(peers, o.Peer.Warmup, measure, progress); err != nil {
		return err
	}

	fmt.Fprintf(stdout, "## Lookup: emulator vs floor\n\nDriver: %s; %d connections, keep-alive, closed loop; %d rounds of %s per server, taking turns (the order rotates each round); card %s (%s).%s\n\n",
		driver, o.Concurrency, o.Rounds, lookupWindow.Round(100*time.Millisecond), cardIn(frictionless), scenarioFrictionless, serversNote(servers))
	lookupServers := withPeers(servers, slices.Concat(without, bounds, peers))
	counted := slices.Concat(servers[:len(servers)-1], without)
	var allocs allocCounter
	if err := allocs.start(ctx, client, counted); err != nil {
		return err
	}
	lookups, err := rounds(ctx, o.Rounds, lookupServers, lookupWindow, withGCTrace(withProcessCPU(withRedisUsage(ctx, redis, measure))), progress)
	if err != nil {
		return err
	}
	if err := allocs.stop(ctx, client, counted, lookups); err != nil {
		return err
	}
	printRounds(stdout, lookups, lookupServers)
	printTail(stdout, lookups, lookupServers)
	printRedisUsage(stdout, lookups, lookupServers)
	printProcessCPU(stdout, lookups, lookupServers)
	printGC(stdout, lookups, lookupServers)
	printWithout(stdout, lookups, lookupServers, allocs)
	printBounds(stdout, lookups, lookupServers)
	printPeers(stdout, o.Peer, lookups, lookupServers)

	if len(o.Rates) > 0 {
		if err := fixedRatePhase(ctx, o, client, servers, frictionless, stdout, progress); err != nil {
			return err
		}
	}

	if !o.Mix {
		return nil
	}
	mixWindow := mixShare / windows
	fmt.Fprintf(stdout, "## Mixed traffic: emulator vs floor\n\nDriver: Go client; %d connections; %d rounds of %s per server; per 10 requests: 6 frictionless lookups, 2 enquiries by threeDsServerTransId, 1 challenge lookup (card %s) and its headless completion (POST /challenge/{id} {\"action\":\"pass\"}). The floor answers every request with the canned lookup response.\n\n",
		o.Concurrency, o.Rounds, mixWindow.Round(100*time.Millisecond), cardIn(challenge))
	mixed, err := rounds(ctx, o.Rounds, servers, mixWindow, func(s *server, d time.Duration) (*stats, error) {
		return closedLoop(ctx, client, o.Concurrency, d, mixScript(s.URL, frictionless, challenge)), nil
	}, progress)
	if err != nil {
		return err
	}
	printRounds(stdout, mixed, servers)
	for _, sv := range servers[:len(servers)-1] {
		printKinds(stdout, mixed, sv.Name)
	}
	return nil
}

// serversNote says what the emulators under load are.
func serversNote(servers []*server) string {
	if len(servers) < 3 {
		return " The emulator runs with its default flags (memory store)."
	}
	return " `emulator` runs with its default flags (memory store); `emulator-redis` with `--store redis://…` (a redis-server on loopback with its append-only file, fsync every second), its console journal shared in that Redis as with the defaults (written in the background, batched); `emulator-redis-local` the same with `--journal-store local` (the journal in the replica's memory)."
}

// fixedRatePhase measures latency at each offered rate of o.Rates, open
// loop, emulator and floor alternately, and prints one line per rate and
// server (medians of the rounds).
func fixedRatePhase(ctx context.Context, o options, client *http.Client, servers []*server, body []byte, stdout io.Writer, progress func(string, ...any)) error {
	fmt.Fprintf(stdout, "## Latency at fixed rates: emulator vs floor\n\nDriver: Go client; %d connections; open loop: each rate is offered whatever the answers' pace; a request that waits for a free connection is timed from when it was due, so a server that falls behind is charged for its queue; %d rounds of %s per server and rate, alternating; same card. Medians of the rounds.\n\n",
		o.Concurrency, o.Rounds, o.RateWindow)
	fmt.Fprintln(stdout, "| offered req/s | server | served req/s | p50 | p90 | p99 | errors |")
	fmt.Fprintln(stdout, "|---:|---|---:|---:|---:|---:|---:|")
	var verdicts []string
	for _, rate := range o.Rates {
		progress("fixed rate %.0f req/s", rate)
		rs, err := rounds(ctx, o.Rounds, servers, o.RateWindow, func(s *server, d time.Duration) (*stats, error) {
			return openLoop(ctx, client, o.Concurrency, rate, d, lookupScript(s.URL, body)), nil
		}, progress)
		if err != nil {
			return err
		}
		for _, sv := range servers {
			m := medianStats(rs, sv.Name)
			fmt.Fprintf(stdout, "| %.0f | %s | %.0f | %s | %s | %s | %d |\n", rate, sv.Name, m.rps, fmtDur(m.p50), fmtDur(m.p90), fmtDur(m.p99), m.errors)
			if sv.Name != nameFloor {
				verdicts = append(verdicts, fmt.Sprintf("%s at %.0f req/s: %s (%s)", sv.Name, rate, fmtDur(m.p99), verdict(m.p99 < targetP99)))
			}
		}
	}
	fmt.Fprintf(stdout, "\np99 against the target < %s at %d connections: %s.\n\n", fmtDur(targetP99), o.Concurrency, strings.Join(verdicts, "; "))
	return nil
}

// memoryPhase measures the live heap per stored transaction, unbounded and
// bounded.
func memoryPhase(ctx context.Context, o options, body []byte, stdout io.Writer, progress func(string, ...any)) error {
	fmt.Fprintf(stdout, "## Memory per stored transaction\n\n%d frictionless lookups (`POST /authentication/brw`, one token) to the emulator served in the benchmark's process as the binary is (cmd/sandboxtest), with a fresh in-memory store, each with its own externalReferenceId; live heap after a full GC, above the sandbox before its first lookup.\n\n", o.Memory)
	fmt.Fprintln(stdout, "| --store-max-entries | stored | live heap at 25% | 50% | 75% | 100% | bytes per stored transaction |")
	fmt.Fprintln(stdout, "|---:|---:|---:|---:|---:|---:|---:|")
	var perTx float64
	for _, bound := range []int{max(o.Memory, o.MemoryBound), o.MemoryBound} {
		progress("memory: %d lookups, --store-max-entries %d", o.Memory, bound)
		m, err := measureMemory(ctx, body, o.Memory, bound)
		if err != nil {
			return err
		}
		cells := make([]string, len(m.Checkpoints))
		for i, c := range m.Checkpoints {
			cells[i] = fmt.Sprintf("%.1f MB", float64(c)/1e6)
		}
		fmt.Fprintf(stdout, "| %d | %d | %s | %.0f |\n", bound, m.Stored, strings.Join(cells, " | "), m.BytesPerTx())
		if perTx == 0 {
			perTx = m.BytesPerTx()
		}
	}
	fmt.Fprintf(stdout, "\nTarget < %d bytes per stored transaction: %s.\n\n", targetPerTxKB, verdict(perTx < targetPerTxKB))
	return nil
}

// coldStartPhase times n cold starts of the binary bin.
func coldStartPhase(ctx context.Context, bin string, n int, stdout io.Writer, progress func(string, ...any)) error {
	progress("cold start: %d runs", n)
	var times []time.Duration
	probe := ""
	for range n {
		d, p, err := coldStart(ctx, bin)
		if err != nil {
			return err
		}
		times, probe = append(times, d), p
	}
	cells := make([]string, len(times))
	for i, d := range times {
		cells[i] = fmtDur(d)
	}
	fmt.Fprintf(stdout, "## Cold start\n\nFrom exec of the built binary (default catalogue, --log-level warn) to the first 200 of %s, %d runs: %s; median **%s**.\n\n",
		probe, n, strings.Join(cells, ", "), fmtDur(median(times)))
	return nil
}

// verdict spells a target check.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// fmtDur prints a latency with a precision that suits it.
func fmtDur(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	}
}

// printMachine prints what the numbers were measured on.
func printMachine(w io.Writer) {
	model := "unknown"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fmt.Fprintf(w, "# loadbench\n\nMachine: %d CPUs (%s), GOMAXPROCS %d, %s %s/%s; load average before the run %s (other processes skew absolute numbers; the alternating rounds keep the ratio fair).\n",
		runtime.NumCPU(), model, runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH, load)
}

// shellJoin joins args as a shell reads them back: an empty argument, or
// one with a space or a quote, in single quotes.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\|&;<>()*?[]#~!{}") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// readBody reads the lookup body of -body; the example lookup of package
// examples when the flag is empty.
func readBody(path string) ([]byte, error) {
	if path == "" {
		return examples.Lookup(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-body: %w", err)
	}
	return b, nil
}

// cardNumberField finds the card number of a lookup body.
var cardNumberField = regexp.MustCompile(`"cardNumber"\s*:\s*"[0-9]*"`)

// withCard returns body with the card number of the scenario id.
func withCard(body []byte, cat *scenarios.Catalogue, id string) ([]byte, error) {
	sc, ok := cat.ByID(id)
	if !ok || sc.Match.CardNumber == "" {
		return nil, fmt.Errorf("default catalogue: no scenario %q with a card number", id)
	}
	if !cardNumberField.Match(body) {
		return nil, errors.New("-body: no card.cardNumber in the lookup body")
	}
	return cardNumberField.ReplaceAll(body, []byte(`"cardNumber": "`+sc.Match.CardNumber+`"`)), nil
}

// cardIn returns the card number of a lookup body.
func cardIn(body []byte) string {
	m := cardNumberField.Find(body)
	if m == nil {
		return "?"
	}
	s := string(m)
	return s[strings.LastIndex(s[:len(s)-1], `"`)+1 : len(s)-1]
}
