package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/redisstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
)

// server is one HTTP server under test, listening on loopback.
type server struct {
	Name  string
	URL   string // base URL, e.g. http://127.0.0.1:41234
	Peer  bool   // another make of mock server (-peers), not an emulator
	Bound bool   // the floor doing part of a lookup's work (-bounds)
	// Without tells an emulator without one of its fast paths (-without),
	// or another build of it (-compare).
	Without bool
	pid     int // of its process, 0 when not started here
	// gc reads its GODEBUG=gctrace=1 output (-gctrace); nil otherwise.
	gc    *gcTrace
	close func() error
}

// Close stops the server.
func (s *server) Close() error { return s.close() }

// Each server under load runs in a process of its own, as it would in
// production: its garbage collector, scheduler and heap are its own, and
// neither server (nor the load generator) pays for the other's memory.

// startEmulator execs the built emulator binary with its default flags on
// a free loopback port and waits until /readyz answers. With log false it
// runs with --log-level warn (no line per request); its output is
// discarded either way.
func startEmulator(ctx context.Context, name, bin string, log bool, extra ...string) (*server, error) {
	return startEmulatorTraced(ctx, name, bin, log, false, extra...)
}

// startEmulatorTraced is startEmulator; with gctrace the emulator runs
// with GODEBUG=gctrace=1, and the server's gc reads what it reports.
func startEmulatorTraced(ctx context.Context, name, bin string, log, gctrace bool, extra ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// No drain: the benchmark stops its emulator at once.
	args := append([]string{"--addr", addr, "--drain-delay", "0"}, extra...)
	if !log {
		args = append(args, "--log-level", "warn")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = cleanEnv()
	// Its log goes down a pipe, read and dropped, as a container
	// runtime reads it.
	cmd.Stdout = io.Discard
	var trace *gcTrace
	if gctrace {
		trace = &gcTrace{}
		cmd.Env = append(cmd.Env, "GODEBUG=gctrace=1")
		cmd.Stderr = trace
	}
	s, err := startProcess(ctx, name, cmd, "http://"+addr, "/readyz")
	if err != nil {
		return nil, err
	}
	s.gc = trace
	return s, nil
}

// floorEnv names the environment variables that turn this program into
// the floor server: the address to listen on, the file of the canned
// response body and the file of its headers.
const (
	floorAddrEnv   = "LOADBENCH_FLOOR_ADDR"
	floorBodyEnv   = "LOADBENCH_FLOOR_BODY"
	floorHeaderEnv = "LOADBENCH_FLOOR_HEADER"
	floorWorkEnv   = "LOADBENCH_FLOOR_WORK"  // a floorWork: what the floor does with the body
	floorRedisEnv  = "LOADBENCH_FLOOR_REDIS" // the Redis URL of workRedis
)

// floorWork is what a floor process does with each request's body before
// its canned answer. The bounds (-bounds) are the floor doing part of the
// work of a lookup, nothing else, so the rounds show how much of the gap
// between the floor and the emulator that part alone accounts for.
type floorWork string

const (
	workNone floorWork = ""       // read and discard the body: the floor
	workJSON floorWork = "valid"  // json.Valid: the least any JSON API does with a body
	workWire floorWork = "decode" // wire.DecodeLookup: the emulator's decoding and validation of the lookup
	// workStd is json.Unmarshal into an any: encoding/json's generic
	// decoding, no field judged.
	workStd floorWork = "unmarshal"
	// workRedis is workWire, then a lookup's two writes to Redis: a
	// transaction's SET PX and its reference's SET PX, pipelined in one
	// round trip by a client set up as the emulator's Redis store sets up
	// its own (one connection, redisstore.DefaultFlushDelay). The least a
	// server storing each lookup in Redis, found again by id and by
	// reference, does: it keeps no share, no journal, and its ids cycle
	// through redisFloorKeys, so its keys stay as many as the emulator's
	// at a token's share.
	workRedis floorWork = "decode+redis"
)

// redisFloorKeys is how many transactions workRedis keeps (the default
// --store-max-entries-per-token); redisFloorValue is the size of each,
// about that of an emulator's stored lookup (its record, 380-400 bytes).
const (
	redisFloorKeys  = 100_000
	redisFloorValue = 384
)

// Name is the server name of a floor doing w.
func (w floorWork) Name() string {
	if w == workNone {
		return nameFloor
	}
	return nameFloor + "+" + string(w)
}

// boundWorks are the floors that -bounds adds to the lookup rounds.
var boundWorks = []floorWork{workJSON, workStd, workWire}

// handler is the floor's handler doing w, answering canned with header.
// A POST body that w refuses is answered 400, which the rounds count as
// an error; other methods (the readiness probe) are answered at once.
func (w floorWork) handler(header http.Header, canned []byte, redis rueidis.Client) (http.Handler, error) {
	var check func([]byte) bool
	switch w {
	case workNone:
		return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			answer(rw, header, canned)
		}), nil
	case workJSON:
		check = json.Valid
	case workWire:
		check = func(b []byte) bool { _, _, err := wire.DecodeLookup(b); return err == nil }
	case workStd:
		check = func(b []byte) bool { var v any; return json.Unmarshal(b, &v) == nil }
	case workRedis:
		if redis == nil {
			return nil, fmt.Errorf("%s %q needs %s", floorWorkEnv, string(w), floorRedisEnv)
		}
		check = redisWrites(redis)
	default:
		return nil, fmt.Errorf("%s %q: want %q, %q, %q, %q or empty", floorWorkEnv, string(w), workJSON, workStd, workWire, workRedis)
	}
	// Bodies are read into pooled buffers, as the emulator reads them.
	pool := sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			answer(rw, header, canned)
			return
		}
		buf := pool.Get().(*[]byte)
		defer pool.Put(buf)
		b, err := readAll(r.Body, (*buf)[:0])
		*buf = b
		if err != nil || !check(b) {
			http.Error(rw, "refused", http.StatusBadRequest)
			return
		}
		answer(rw, header, canned)
	}), nil
}

// redisWrites is workRedis's check: the emulator's decoding, then the
// two SETs of a lookup in one round trip.
func redisWrites(c rueidis.Client) func([]byte) bool {
	value := strings.Repeat("v", redisFloorValue)
	var next atomic.Uint64
	return func(b []byte) bool {
		if _, _, err := wire.DecodeLookup(b); err != nil {
			return false
		}
		n := strconv.FormatUint(next.Add(1)%redisFloorKeys, 10)
		ctx, cancel := context.WithTimeout(context.Background(), redisstore.DefaultTimeout)
		defer cancel()
		for _, r := range c.DoMulti(ctx,
			c.B().Set().Key("loadbench-floor:t:"+n).Value(value).PxMilliseconds(86_400_000).Build(),
			c.B().Set().Key("loadbench-floor:r:"+n).Value(n).PxMilliseconds(86_400_000).Build()) {
			if r.Error() != nil {
				return false
			}
		}
		return true
	}
}

// readAll appends all of r to b.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// answer writes the canned answer with its headers.
func answer(w http.ResponseWriter, header http.Header, canned []byte) {
	wh := w.Header()
	for k, v := range header {
		wh[k] = v
	}
	_, _ = w.Write(canned)
}

// startFloor re-executes this program as the floor server (see
// serveFloor) on a free loopback port, answering canned with the headers
// of header that net/http does not set itself: the emulator's answer, so
// the load generator reads the same bytes from both servers. The floor
// does work with each body first (none for the floor itself).
func startFloor(ctx context.Context, dir string, work floorWork, header http.Header, canned []byte, env ...string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	body := dir + "/floor-response.json"
	if err := os.WriteFile(body, canned, 0o600); err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	header = header.Clone()
	header.Del("Date")
	header.Del("Content-Length")
	hb, err := json.Marshal(header)
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	headerFile := dir + "/floor-header.json"
	if err := os.WriteFile(headerFile, hb, 0o600); err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(self)
	cmd.Env = append(cleanEnv(), floorAddrEnv+"="+addr, floorBodyEnv+"="+body, floorHeaderEnv+"="+headerFile, floorWorkEnv+"="+string(work))
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	s, err := startProcess(ctx, work.Name(), cmd, "http://"+addr, "/")
	if s != nil {
		s.Bound = work != workNone
	}
	return s, err
}

// startProcess starts cmd and waits until GET base+probe answers.
func startProcess(ctx context.Context, name string, cmd *exec.Cmd, base, probe string) (*server, error) {
	orphanProof(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 500 * time.Millisecond}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(5 * time.Millisecond) {
		resp, err := client.Get(base + probe)
		if err != nil {
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return &server{Name: name, URL: base, pid: cmd.Process.Pid, close: func() error { stopProcess(cmd); return nil }}, nil
		}
	}
	stopProcess(cmd)
	return nil, fmt.Errorf("%s: not ready on %s within 20s", name, base)
}

// isFloor tells whether this process was started as the floor server.
func isFloor(getenv func(string) string) bool { return getenv(floorAddrEnv) != "" }

// serveFloor is the floor: a bare net/http handler that reads the whole
// body and answers the canned response with its canned headers, whatever
// the path, until SIGTERM. It is the fastest any emulator could answer the
// same bytes over the same connections. With LOADBENCH_FLOOR_WORK set it
// is a bound: the floor doing that part of a lookup's work first.
func serveFloor(getenv func(string) string) error {
	canned, err := os.ReadFile(getenv(floorBodyEnv))
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	var header http.Header
	hb, err := os.ReadFile(getenv(floorHeaderEnv))
	if err == nil {
		err = json.Unmarshal(hb, &header)
	}
	if err != nil {
		return fmt.Errorf("floor: headers: %w", err)
	}
	ln, err := net.Listen("tcp", getenv(floorAddrEnv))
	if err != nil {
		return fmt.Errorf("floor: listen: %w", err)
	}
	var redis rueidis.Client
	if u := getenv(floorRedisEnv); u != "" {
		redis, err = redisstore.ConnectWith(context.Background(), u, redisstore.ConnectOptions{FlushDelay: redisstore.DefaultFlushDelay})
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		defer redis.Close()
	}
	h, err := floorWork(getenv(floorWorkEnv)).handler(header, canned, redis)
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("floor: %w", err)
	}
	return nil
}

// checkLoopback refuses a target that is not on this machine: the load
// must never leave loopback.
func checkLoopback(target string) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q: want an http URL such as http://127.0.0.1:8080", target)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("target %q is not a loopback address: loadbench only drives servers on this machine", target)
}
