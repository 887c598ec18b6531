package redisstore_test

import (
	"bufio"
	"context"
	"fmt"

	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/rueidis"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestScriptsDeclareTheirKeys runs every contract suite of the package on
// a single Redis watched through MONITOR, and fails on each key a Lua
// script touched that its caller did not give it in KEYS.
//
// Why MONITOR: Redis checks no such thing itself. A script with a
// "#!lua" shebang and without allow-cross-slot-keys is refused only when
// its keys span slots on a cluster; a key computed inside the script in
// the same slot as its KEYS passes everywhere, yet breaks the scripting
// contract (a proxy or a managed service may route or refuse by KEYS).
// MONITOR shows every command a node runs, a client's EVAL or EVALSHA
// (with its KEYS) followed at once by the commands its script ran
// ("[0 lua]" lines: a script runs alone); COMMAND GETKEYS on the same
// node names the keys each of those touched, the node's own rule. The
// test first runs a script that reads a key it computes (in its KEYS'
// slot) and fails unless that one is caught, so the check is known to
// bite.
func TestScriptsDeclareTheirKeys(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	w := watchScripts(t, srv)
	runDeclaredSuites(t, func(t *testing.T) rueidis.Client { return connect(t, srv) }, []*scriptWatch{w})
}

// runDeclaredSuites runs the self-check and the contract suites over
// dial, then fails on every undeclared key the watches saw but the
// self-check's.
func runDeclaredSuites(t *testing.T, dial dialer, ws []*scriptWatch) {
	const selfCheck = "{declared}self-check"
	c := dial(t)
	err := c.Do(context.Background(), c.B().Eval().Script("return redis.call('GET', KEYS[1] .. ':computed')").Numkeys(1).Key(selfCheck).Build()).Error()
	if err != nil && !rueidis.IsRedisNil(err) {
		t.Fatal(err)
	}
	for name, run := range contractSuites() {
		t.Run(name, func(t *testing.T) { run(t, dial) })
	}
	caught := false
	type where struct{ script, cmd string }
	seen := map[where]int{}
	for _, w := range ws {
		for _, u := range w.undeclared(t) {
			if u.key == selfCheck+":computed" {
				caught = true
				continue
			}
			at := where{u.script, u.cmd}
			if seen[at]++; seen[at] == 1 {
				t.Errorf("a script ran %s on %q, not among its KEYS %q: %.120s", u.cmd, u.key, u.declared, u.script)
			}
		}
	}
	for at, n := range seen {
		if n > 1 {
			t.Logf("%d more undeclared keys of %s in script %.40s", n-1, at.cmd, at.script)
		}
	}
	if !caught {
		t.Error("the self-check's undeclared key was not caught: the check does not bite")
	}
}

// contractSuites are the package's contract suites and the shares' own
// tests, which TestClusterContracts also runs.
func contractSuites() map[string]func(*testing.T, dialer) {
	return map[string]func(*testing.T, dialer){
		"store": runContract, "shares": runSharesContract, "captures": runCapturesContract,
		"callbacks": runCallbacksContract, "runtime": runRuntimeContract, "namespaces": runNamespacesContract,
		"sessions": runSessionsContract, "keys": runKeyRegistryContract, "journal": runJournalContract,
		"share across replicas": runShareExactAcrossReplicas, "share list's TTL": runShareListOutlivesItsIDs,
	}
}

// scriptWatch is a MONITOR connection to one node and what it fed.
type scriptWatch struct {
	node  *testkit.Redis
	conn  net.Conn
	done  chan struct{}
	mu    sync.Mutex
	lines []string
}

// watchScripts starts MONITOR on node.
func watchScripts(t *testing.T, node *testkit.Redis) *scriptWatch {
	t.Helper()
	conn, err := net.Dial("tcp", node.Addr)
	if err != nil {
		t.Fatal(err)
	}
	w := &scriptWatch{node: node, conn: conn, done: make(chan struct{})}
	if _, err := conn.Write([]byte("*1\r\n$7\r\nMONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReaderSize(conn, 1<<20)
	if ok, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(ok, "+OK") {
		t.Fatalf("MONITOR on %s: %q, %v", node.Addr, ok, err)
	}
	go func() {
		defer close(w.done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			w.mu.Lock()
			w.lines = append(w.lines, strings.TrimRight(line, "\r\n"))
			w.mu.Unlock()
		}
	}()
	t.Cleanup(func() { conn.Close() })
	return w
}

// undeclaredKey is a key a script touched without it among its KEYS.
type undeclaredKey struct {
	script, cmd, key string
	declared         []string
}

// undeclared stops the watch and answers every key the node's scripts
// touched outside their KEYS.
func (w *scriptWatch) undeclared(t *testing.T) []undeclaredKey {
	t.Helper()
	// The node runs commands one at a time, in order: once MONITOR shows
	// a marker sent now, it has shown every command before it.
	marker := fmt.Sprintf("end of the watch %p", w)
	if _, err := w.node.Query("ECHO", marker); err != nil {
		t.Fatal(err)
	}
	scanned := 0
	testkit.Eventually(t, "MONITOR shows the commands up to now", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for ; scanned < len(w.lines); scanned++ {
			if strings.Contains(w.lines[scanned], marker) {
				return true
			}
		}
		return false
	})
	w.conn.Close()
	<-w.done
	type ran struct {
		script   string
		declared []string
		args     []string
	}
	var runs []ran
	var script string
	var declared []string
	inScript := false
	for _, line := range w.lines {
		from, args, ok := monitorLine(line)
		if !ok || len(args) == 0 {
			continue
		}
		if from != "lua" {
			inScript = false
			switch strings.ToLower(args[0]) {
			case "eval", "evalsha", "eval_ro", "evalsha_ro":
				if len(args) < 3 {
					continue
				}
				n, err := strconv.Atoi(args[2])
				if err != nil || 3+n > len(args) {
					continue
				}
				script, declared, inScript = args[1], args[3:3+n], true
			}
			continue
		}
		if inScript {
			runs = append(runs, ran{script: script, declared: declared, args: args})
		}
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{w.node.Addr}, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keysOf := map[string][]string{}
	var out []undeclaredKey
	for _, r := range runs {
		id := strings.Join(r.args, "\x00")
		keys, seen := keysOf[id]
		if !seen {
			res := c.Do(context.Background(), c.B().Arbitrary("COMMAND", "GETKEYS").Args(r.args...).Build())
			keys, err = res.AsStrSlice()
			if err != nil {
				if re, ok := rueidis.IsRedisErr(err); !ok || !strings.Contains(re.Error(), "no key arguments") {
					t.Fatalf("COMMAND GETKEYS %.200q: %v", r.args, err)
				}
				keys = nil
			}
			keysOf[id] = keys
		}
		for _, k := range keys {
			if !slices.Contains(r.declared, k) {
				out = append(out, undeclaredKey{script: r.script, cmd: r.args[0], key: k, declared: r.declared})
			}
		}
	}
	t.Logf("node %s: %d commands run by scripts checked", w.node.Addr, len(runs))
	return out
}

// monitorLine parses a line MONITOR fed: "+<time> [<db> <client or
// lua>] "arg" "arg"...", each argument quoted as Redis's sdscatrepr
// does (\" \\ \n \r \t \a \b \xHH).
func monitorLine(line string) (from string, args []string, ok bool) {
	open := strings.IndexByte(line, '[')
	end := strings.Index(line, "] ")
	if open < 0 || end < open {
		return "", nil, false
	}
	_, from, _ = strings.Cut(line[open+1:end], " ")
	s := line[end+2:]
	for len(s) > 0 {
		if s[0] == ' ' {
			s = s[1:]
			continue
		}
		if s[0] != '"' {
			return "", nil, false
		}
		var b strings.Builder
		i := 1
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] != '\\' || i+1 >= len(s) {
				b.WriteByte(s[i])
				continue
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'x':
				if i+2 < len(s) {
					v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
					if err == nil {
						b.WriteByte(byte(v))
						i += 2
						continue
					}
				}
				b.WriteByte('x')
			default:
				b.WriteByte(s[i])
			}
		}
		if i >= len(s) {
			return "", nil, false
		}
		args = append(args, b.String())
		s = s[i+1:]
	}
	return from, args, true
}
