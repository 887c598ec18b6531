package main

// Peer mode (-peers DIR): other mock servers, each answering the lookup
// with the emulator's frictionless answer canned, take part in the lookup
// rounds beside the emulators and the floor, so the gap to each is
// measured the same way as the gap to the floor. Not part of CI: it needs
// java, node and the npm packages of peersInstall.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// peersInstall is the command that installs the peers, in the directory
// given to -peers.
const peersInstall = "npm install wiremock@3.13.2 @mockoon/cli@9.9.0 @stoplight/prism-cli@5.16.0"

// Paths every peer answers: the lookup, with the canned answer, and a GET
// that tells it is up.
const (
	lookupPath    = "/authentication/brw"
	peerReadyPath = "/loadbench-ready"
)

// peerOptions are the flags of peer mode.
type peerOptions struct {
	Dir    string        // "off", or the directory holding node_modules
	Names  []string      // which peers, by name
	Warmup time.Duration // load on each peer before the rounds (JIT)
	found  []peer        // the peers found in Dir (set by run)
}

// On tells whether peer mode was asked for.
func (p peerOptions) On() bool { return p.Dir != "off" }

// peerFlags registers the flags of peer mode on fs; names receives the
// raw -peer-names until checkPeerOptions splits it.
func peerFlags(fs *flag.FlagSet, p *peerOptions, names *string) {
	fs.StringVar(&p.Dir, "peers", "off", "also measure other mock servers answering the canned lookup, in the lookup rounds: off, or the directory holding node_modules where `"+peersInstall+"` ran (needs java and node)")
	fs.StringVar(names, "peer-names", "wiremock,mockoon,prism", "comma-separated peers of -peers: wiremock, mockoon, prism")
	fs.DurationVar(&p.Warmup, "peer-warmup", 10*time.Second, "load on each peer before the rounds, so its JIT has compiled the hot path")
}

// checkPeerOptions checks the flags of peer mode and splits names.
func checkPeerOptions(p *peerOptions, names string) []error {
	var errs []error
	if p.Dir == "" {
		errs = append(errs, errors.New("-peers: want off or the directory holding node_modules"))
	}
	p.Names = nil
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
		case !slices.ContainsFunc(peerKinds(), func(k peerKind) bool { return k.name == n }):
			errs = append(errs, fmt.Errorf("-peer-names: unknown peer %q (want wiremock, mockoon or prism)", n))
		case !slices.Contains(p.Names, n):
			p.Names = append(p.Names, n)
		}
	}
	if p.On() && len(p.Names) == 0 {
		errs = append(errs, errors.New("-peer-names: name at least one peer"))
	}
	if p.Warmup < 0 || p.Warmup > 5*time.Minute {
		errs = append(errs, fmt.Errorf("-peer-warmup %s: want 0 to 5m", p.Warmup))
	}
	return errs
}

// cannedAnswer is what every peer answers to the lookup: the emulator's
// frictionless answer, the floor's too.
type cannedAnswer struct {
	Header http.Header // without Date and Content-Length, which each server sets itself
	Body   []byte
}

// peerKind is a make of mock server.
type peerKind struct {
	name    string // in -peer-names and the report
	title   string // in the report
	runtime string // java or node
	pkg     string // its npm package: node_modules/<pkg>
	entry   string // the jar or script run, a glob under the package
	// args writes the peer's configuration into dir and returns the
	// runtime's arguments that serve it on port.
	args func(entry, dir string, port int, a cannedAnswer) ([]string, error)
	note string // how it is configured, for the report
}

// peerKinds are the peers loadbench knows.
func peerKinds() []peerKind {
	return []peerKind{
		{name: "wiremock", title: "WireMock", runtime: "java", pkg: "wiremock", entry: "build/wiremock-standalone-*.jar", args: wiremockArgs,
			note: "the standalone jar, a stub mapping, `--no-request-journal --disable-request-logging --use-chunked-encoding never`"},
		{name: "mockoon", title: "Mockoon CLI", runtime: "node", pkg: "@mockoon/cli", entry: "bin/run.js", args: mockoonArgs,
			note: "one route, templating and CORS off, admin API off"},
		{name: "prism", title: "Prism", runtime: "node", pkg: "@stoplight/prism-cli", entry: "dist/index.js", args: prismArgs,
			note: "`prism mock` of an OpenAPI document whose example is the answer, CORS off, `-v error`"},
	}
}

// peer is a peer found installed.
type peer struct {
	peerKind
	runtimePath string // java or node on PATH
	entryPath   string // the jar or script
	version     string // of its npm package
}

// Label names the peer and its version, e.g. "WireMock 3.13.2".
func (p peer) Label() string { return strings.TrimSpace(p.title + " " + p.version) }

// findPeers finds the peers names in dir (which holds node_modules) and
// their runtimes with lookPath. What is missing is reported all at once,
// with what to install.
func findPeers(dir string, names []string, lookPath func(string) (string, error)) ([]peer, error) {
	var found []peer
	var missing []string
	for _, k := range peerKinds() {
		if !slices.Contains(names, k.name) {
			continue
		}
		p := peer{peerKind: k}
		rt, err := lookPath(k.runtime)
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s needs %s, which is not on PATH", k.name, k.runtime))
		}
		p.runtimePath = rt
		pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(k.pkg))
		entries, _ := filepath.Glob(filepath.Join(pkgDir, filepath.FromSlash(k.entry)))
		if len(entries) == 0 {
			missing = append(missing, fmt.Sprintf("%s: no %s in %s", k.name, k.entry, pkgDir))
			continue
		}
		p.entryPath = entries[len(entries)-1]
		var pkg struct{ Version string }
		if b, err := os.ReadFile(filepath.Join(pkgDir, "package.json")); err == nil && json.Unmarshal(b, &pkg) == nil {
			p.version = pkg.Version
		}
		found = append(found, p)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("-peers %s: %s. Install java 17+ and node 20+, then the peers: cd %s && %s (or leave some out with -peer-names)",
			dir, strings.Join(missing, "; "), dir, peersInstall)
	}
	return found, nil
}

// startPeers starts each peer with the canned answer, one after the other,
// and checks that it answers it to the lookup request. On error none is
// left running.
func startPeers(ctx context.Context, peers []peer, dir string, request []byte, a cannedAnswer, progress func(string, ...any)) ([]*server, error) {
	var out []*server
	for _, p := range peers {
		progress("starting %s (%s)", p.Label(), p.runtime)
		s, err := startPeer(ctx, p, dir, request, a)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// closeAll stops servers.
func closeAll(servers []*server) {
	for _, s := range servers {
		_ = s.Close()
	}
}

// startPeer writes p's configuration under dir, starts it on a free
// loopback port in a process group of its own, waits until it is up and
// checks that it answers request with the canned answer.
func startPeer(ctx context.Context, p peer, dir string, request []byte, a cannedAnswer) (*server, error) {
	pdir := filepath.Join(dir, "peer-"+p.name)
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args, err := p.args(p.entryPath, pdir, port, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	logPath := filepath.Join(pdir, "stderr.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(p.runtimePath, args...)
	cmd.Dir = pdir
	cmd.Env = cleanEnv()
	cmd.Stderr = logFile // stdout, where some log each request, is discarded as the emulator's is
	ownGroup(cmd)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	s, err := startProcess(ctx, p.name, cmd, base, peerReadyPath)
	if err != nil {
		return nil, fmt.Errorf("%w (%s %s); its stderr:\n%s", err, p.runtime, strings.Join(args, " "), logTail(logPath))
	}
	s.Peer = true
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	code, header, body, err := postFull(ctx, client, base+lookupPath, request)
	if err == nil {
		err = checkCanned(code, header, body, a)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: the lookup's answer: %w", p.name, err)
	}
	return s, nil
}

// checkCanned tells whether an answer is the canned one: status 200, the
// same JSON (a peer may re-encode it) and the same headers.
func checkCanned(code int, header http.Header, body []byte, a cannedAnswer) error {
	if code != http.StatusOK {
		return fmt.Errorf("HTTP %d %.200s, want 200", code, body)
	}
	var got, want any
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("not JSON: %w: %.200s", err, body)
	}
	if err := json.Unmarshal(a.Body, &want); err != nil {
		return fmt.Errorf("the canned answer is not JSON: %w", err)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("got %.300s, want %.300s", body, a.Body)
	}
	for k, v := range a.Header {
		g := header.Values(k)
		if http.CanonicalHeaderKey(k) == "Content-Type" && len(g) == 1 && len(v) == 1 {
			// The media type is what counts; Mockoon (Express) adds a
			// charset.
			g, v = []string{mediaType(g[0])}, []string{mediaType(v[0])}
		}
		if !slices.Equal(g, v) {
			return fmt.Errorf("header %s: got %q, want %q", k, g, v)
		}
	}
	return nil
}

// mediaType is the media type of a Content-Type, without parameters.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// logTail returns the end of a peer's log.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	const keep = 2000
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return string(b)
}

// cannedFrom is the canned answer of an emulator's answer: its body and
// its headers but Date and Content-Length.
func cannedFrom(header http.Header, body []byte) cannedAnswer {
	header = header.Clone()
	header.Del("Date")
	header.Del("Content-Length")
	return cannedAnswer{Header: header, Body: body}
}

// headerValues lists a's headers in a fixed order, one entry per value.
func headerValues(a cannedAnswer) [][2]string {
	var kv [][2]string
	for _, k := range slices.Sorted(maps.Keys(a.Header)) {
		for _, v := range a.Header[k] {
			kv = append(kv, [2]string{k, v})
		}
	}
	return kv
}

// wiremockMapping is a WireMock stub mapping: POST on path answers the
// canned answer.
func wiremockMapping(method, path string, status int, a cannedAnswer) ([]byte, error) {
	headers := map[string][]string{}
	for _, kv := range headerValues(a) {
		headers[kv[0]] = append(headers[kv[0]], kv[1])
	}
	return json.MarshalIndent(map[string]any{
		"request":  map[string]any{"method": method, "url": path},
		"response": map[string]any{"status": status, "body": string(a.Body), "headers": headers},
	}, "", "  ")
}

// wiremockArgs writes the mappings (the lookup, the readiness probe) under
// dir/mappings and runs the standalone jar with its request journal and
// request logging off, answering with a Content-Length as the others do.
func wiremockArgs(jar, dir string, port int, a cannedAnswer) ([]string, error) {
	mappings := filepath.Join(dir, "mappings")
	if err := os.MkdirAll(mappings, 0o700); err != nil {
		return nil, err
	}
	for file, m := range map[string]struct {
		method, path string
		a            cannedAnswer
	}{"lookup.json": {http.MethodPost, lookupPath, a}, "ready.json": {http.MethodGet, peerReadyPath, cannedAnswer{}}} {
		b, err := wiremockMapping(m.method, m.path, http.StatusOK, m.a)
		if err == nil {
			err = os.WriteFile(filepath.Join(mappings, file), b, 0o600)
		}
		if err != nil {
			return nil, fmt.Errorf("mapping %s: %w", file, err)
		}
	}
	return []string{"-jar", jar, "--port", strconv.Itoa(port), "--bind-address", "127.0.0.1", "--root-dir", dir,
		"--no-request-journal", "--disable-request-logging", "--use-chunked-encoding", "never", "--disable-banner"}, nil
}

// mockoonSchemaVersion is the lastMigration of Mockoon's data files that
// @mockoon/cli 9.9.0 reads without migrating.
const mockoonSchemaVersion = 33

// mockoonEnvironment is a Mockoon data file: one environment on port whose
// route POST path answers the canned answer (templating off), plus GET
// on the readiness path; CORS off.
func mockoonEnvironment(port int, a cannedAnswer) ([]byte, error) {
	headers := []map[string]string{}
	for _, kv := range headerValues(a) {
		headers = append(headers, map[string]string{"key": kv[0], "value": kv[1]})
	}
	route := func(id int, method, path, body string, headers []map[string]string) map[string]any {
		return map[string]any{
			"uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", id), "type": "http", "documentation": "",
			"method": method, "endpoint": strings.TrimPrefix(path, "/"),
			"responses": []map[string]any{{
				"uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", 100+id), "body": body, "latency": 0, "statusCode": 200,
				"label": "", "headers": headers, "bodyType": "INLINE", "filePath": "", "databucketID": "",
				"sendFileAsBody": false, "rules": []any{}, "rulesOperator": "OR", "disableTemplating": true,
				"fallbackTo404": false, "default": true, "crudKey": "id", "callbacks": []any{},
			}},
			"responseMode": nil, "streamingMode": nil, "streamingInterval": 0,
		}
	}
	routes := []map[string]any{
		route(1, "post", lookupPath, string(a.Body), headers),
		route(2, "get", peerReadyPath, "", []map[string]string{}),
	}
	var children []map[string]any
	for _, r := range routes {
		children = append(children, map[string]any{"type": "route", "uuid": r["uuid"]})
	}
	return json.MarshalIndent(map[string]any{
		"uuid": "00000000-0000-4000-8000-000000000000", "lastMigration": mockoonSchemaVersion, "name": "loadbench",
		"endpointPrefix": "", "latency": 0, "port": port, "hostname": "127.0.0.1", "folders": []any{},
		"routes": routes, "rootChildren": children, "proxyMode": false, "proxyHost": "", "proxyRemovePrefix": false,
		"cors": false, "headers": []any{}, "proxyReqHeaders": []any{}, "proxyResHeaders": []any{}, "data": []any{}, "callbacks": []any{},
		"tlsOptions": map[string]any{"enabled": false, "type": "CERT", "pfxPath": "", "certPath": "", "keyPath": "", "caPath": "", "passphrase": ""},
	}, "", "  ")
}

// mockoonArgs writes the data file and runs `mockoon-cli start` on it,
// logging to stdout only, its admin API off.
func mockoonArgs(script, dir string, port int, a cannedAnswer) ([]string, error) {
	b, err := mockoonEnvironment(port, a)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "environment.json")
	if err := os.WriteFile(data, b, 0o600); err != nil {
		return nil, err
	}
	return []string{script, "start", "--data", data, "--port", strconv.Itoa(port), "--hostname", "127.0.0.1",
		"--disable-log-to-file", "--disable-admin-api"}, nil
}

// prismDocument is an OpenAPI 3.0 document whose POST on the lookup path
// answers 200 with the canned body as its JSON example and the canned
// headers (but Content-Type, which Prism takes from the media type) as
// header examples; GET on the readiness path answers 200.
func prismDocument(a cannedAnswer) ([]byte, error) {
	if !json.Valid(a.Body) {
		return nil, errors.New("prism: the canned answer is not JSON")
	}
	headers := map[string]any{}
	for k, v := range a.Header {
		if http.CanonicalHeaderKey(k) == "Content-Type" || len(v) == 0 {
			continue
		}
		headers[k] = map[string]any{"schema": map[string]string{"type": "string"}, "example": strings.Join(v, ", ")}
	}
	media := mediaType(a.Header.Get("Content-Type"))
	if media == "" {
		media = "application/json"
	}
	return json.MarshalIndent(map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]string{"title": "loadbench canned lookup", "version": "1"},
		"paths": map[string]any{
			lookupPath: map[string]any{"post": map[string]any{
				// Prism refuses a body the operation does not declare.
				"requestBody": map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": map[string]string{"type": "object"}}}},
				"responses": map[string]any{"200": map[string]any{
					"description": "the emulator's frictionless lookup answer, canned",
					"headers":     headers,
					"content":     map[string]any{media: map[string]any{"example": json.RawMessage(a.Body)}},
				}}}},
			peerReadyPath: map[string]any{"get": map[string]any{"responses": map[string]any{"200": map[string]any{"description": "up"}}}},
		},
	}, "", "  ")
}

// prismArgs writes the document and runs `prism mock` on it, CORS off,
// logging errors only.
func prismArgs(script, dir string, port int, a cannedAnswer) ([]string, error) {
	b, err := prismDocument(a)
	if err != nil {
		return nil, err
	}
	doc := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(doc, b, 0o600); err != nil {
		return nil, err
	}
	return []string{script, "mock", doc, "--port", strconv.Itoa(port), "--host", "127.0.0.1", "--cors", "false", "-v", "error"}, nil
}

// warmPeers loads each peer for d with measure before the rounds, so a
// JIT has compiled its hot path (the other servers are compiled ahead).
func warmPeers(peers []*server, d time.Duration, measure func(*server, time.Duration) (*stats, error), progress func(string, ...any)) error {
	if d <= 0 {
		return nil
	}
	for _, p := range peers {
		progress("warming %s for %s", p.Name, d)
		if _, err := measure(p, d); err != nil {
			return fmt.Errorf("warm %s: %w", p.Name, err)
		}
	}
	return nil
}

// withPeers returns the servers of the lookup rounds: those of servers
// but the floor, the extra servers (bounds and peers, which take part in
// the lookup rounds only), then the floor, last as printRounds wants it.
func withPeers(servers, extra []*server) []*server {
	if len(extra) == 0 {
		return servers
	}
	n := len(servers) - 1
	return slices.Concat(servers[:n], extra, servers[n:])
}

// printPeers prints, for each peer of the lookup rounds rs, its median
// throughput, its ratio to the floor and each emulator's ratio to it
// (medians of the per-round ratios, each round's figures taken in the
// same turn).
func printPeers(w io.Writer, o peerOptions, rs []roundResult, servers []*server) {
	peers := slices.DeleteFunc(slices.Clone(servers), func(s *server) bool { return !s.Peer })
	if len(peers) == 0 {
		return
	}
	var notes []string
	for _, p := range o.found {
		notes = append(notes, fmt.Sprintf("`%s` is %s (%s)", p.name, p.Label(), p.note))
	}
	fmt.Fprintf(w, "## Beside the peers\n\nThe peers took part in the lookup rounds above, in the same turns, each answering the emulator's frictionless answer canned (the floor's body and headers) in a process of its own on loopback, after %s of load to warm it up: %s. Ratios are medians of the rounds' ratios; per round in brackets.\n\n",
		o.Warmup, strings.Join(notes, "; "))
	printBeside(w, "Peer", rs, peers, emulators(servers))
}

// emulators returns the emulators among servers: neither the floor, nor
// a bound, nor a peer.
func emulators(servers []*server) []*server {
	return slices.DeleteFunc(slices.Clone(servers), func(s *server) bool { return s.Peer || s.Bound || s.Without || s.Name == nameFloor })
}

// printBeside prints a table of the servers rows of the lookup rounds rs
// (a column headed label): each one's median throughput, its ratio to
// the floor and each emulator's ratio to it (medians of the per-round
// ratios, each round's figures taken in the same turn; per round in
// brackets).
func printBeside(w io.Writer, label string, rs []roundResult, rows, emus []*server) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "| %s | req/s | %s/floor |", label, strings.ToLower(label))
	for _, e := range emus {
		fmt.Fprintf(&b, " %s/%s |", e.Name, strings.ToLower(label))
	}
	b.WriteString("\n|---|---:|---:|" + strings.Repeat("---:|", len(emus)) + "\n")
	ratio := func(num, den string) string { return ratioCell(rs, num, den, "**%.2f**") }
	for _, p := range rows {
		fmt.Fprintf(&b, "| %s | %.0f | %s |", p.Name, medianStats(rs, p.Name).rps, ratio(p.Name, nameFloor))
		for _, e := range emus {
			fmt.Fprintf(&b, " %s |", ratio(e.Name, p.Name))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	_, _ = w.Write(b.Bytes())
}

// ratioCell is the throughput of the server num over den's: the median
// of the rounds rs in format, then each round's in brackets.
func ratioCell(rs []roundResult, num, den, format string) string {
	rats := make([]float64, len(rs))
	strs := make([]string, len(rs))
	for i, r := range rs {
		rats[i] = r[num].RPS() / r[den].RPS()
		strs[i] = fmt.Sprintf("%.2f", rats[i])
	}
	return fmt.Sprintf(format+" (%s)", median(rats), strings.Join(strs, ", "))
}
