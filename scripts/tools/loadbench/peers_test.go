package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
)

// testCanned is a lookup answer as the emulator gives it.
func testCanned() cannedAnswer {
	return cannedFrom(http.Header{
		"Cache-Control":          {"no-store"},
		"Content-Type":           {"application/json"},
		"X-Content-Type-Options": {"nosniff"},
		"X-Request-Id":           {"93ac6fd00bf6c206"},
		"X-Scenario-Id":          {"visa-frictionless-y"},
		"Date":                   {"Thu, 26 Nov 2026 01:13:03 GMT"},
		"Content-Length":         {"93"},
	}, []byte(`{"status":"Y","version":"2.2.0","eci":"05","cardBin":"400000","externalReferenceId":"ORD-20240611-000123"}`))
}

func TestCannedFromDropsServerHeaders(t *testing.T) {
	a := testCanned()
	for _, k := range []string{"Date", "Content-Length"} {
		if a.Header.Get(k) != "" {
			t.Errorf("header %s kept; each server sets its own", k)
		}
	}
	if got := len(headerValues(a)); got != 5 {
		t.Errorf("headerValues: got %d entries, want 5", got)
	}
}

func TestWireMockMapping(t *testing.T) {
	a := testCanned()
	b, err := wiremockMapping(http.MethodPost, lookupPath, http.StatusOK, a)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Request struct {
			Method, URL string
		}
		Response struct {
			Status  int
			Body    string
			Headers map[string][]string
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("the mapping is not JSON: %v\n%s", err, b)
	}
	if m.Request.Method != "POST" || m.Request.URL != lookupPath {
		t.Errorf("request: got %s %s, want POST %s", m.Request.Method, m.Request.URL, lookupPath)
	}
	if m.Response.Status != 200 || m.Response.Body != string(a.Body) {
		t.Errorf("response: got %d %q, want 200 %q", m.Response.Status, m.Response.Body, a.Body)
	}
	if err := checkCanned(m.Response.Status, http.Header(m.Response.Headers), []byte(m.Response.Body), a); err != nil {
		t.Errorf("the mapping does not answer the canned answer: %v", err)
	}

	dir := t.TempDir()
	args, err := wiremockArgs("/x/wiremock-standalone-3.13.2.jar", dir, 4321, a)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--port 4321", "--bind-address 127.0.0.1", "--root-dir " + dir, "--no-request-journal"} {
		if !strings.Contains(strings.Join(args, " "), want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	for _, f := range []string{"lookup.json", "ready.json"} {
		if _, err := os.Stat(filepath.Join(dir, "mappings", f)); err != nil {
			t.Errorf("mapping %s: %v", f, err)
		}
	}
}

func TestMockoonEnvironment(t *testing.T) {
	a := testCanned()
	b, err := mockoonEnvironment(4321, a)
	if err != nil {
		t.Fatal(err)
	}
	type header struct{ Key, Value string }
	var env struct {
		LastMigration int
		Port          int
		Cors          bool
		Routes        []struct {
			UUID, Method, Endpoint string
			Responses              []struct {
				Body              string
				StatusCode        int
				Headers           []header
				DisableTemplating bool
				Default           bool
			}
		}
		RootChildren []struct{ Type, UUID string }
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("the environment is not JSON: %v\n%s", err, b)
	}
	if env.LastMigration != mockoonSchemaVersion || env.Port != 4321 || env.Cors {
		t.Errorf("environment: lastMigration %d, port %d, cors %v; want %d, 4321, false", env.LastMigration, env.Port, env.Cors, mockoonSchemaVersion)
	}
	if len(env.Routes) != 2 || len(env.RootChildren) != 2 {
		t.Fatalf("got %d routes and %d root children, want 2 and 2", len(env.Routes), len(env.RootChildren))
	}
	for i, r := range env.Routes {
		if env.RootChildren[i].UUID != r.UUID || env.RootChildren[i].Type != "route" {
			t.Errorf("root child %d: got %+v, want route %s", i, env.RootChildren[i], r.UUID)
		}
	}
	lookup := env.Routes[0]
	if lookup.Method != "post" || "/"+lookup.Endpoint != lookupPath || len(lookup.Responses) != 1 {
		t.Fatalf("lookup route: got %s %s with %d responses", lookup.Method, lookup.Endpoint, len(lookup.Responses))
	}
	resp := lookup.Responses[0]
	if !resp.DisableTemplating || !resp.Default {
		t.Errorf("lookup response: templating off %v, default %v; want both", resp.DisableTemplating, resp.Default)
	}
	h := http.Header{}
	for _, kv := range resp.Headers {
		h.Add(kv.Key, kv.Value)
	}
	if err := checkCanned(resp.StatusCode, h, []byte(resp.Body), a); err != nil {
		t.Errorf("the route does not answer the canned answer: %v", err)
	}
	if ready := env.Routes[1]; ready.Method != "get" || "/"+ready.Endpoint != peerReadyPath {
		t.Errorf("ready route: got %s %s, want get %s", ready.Method, ready.Endpoint, peerReadyPath)
	}
}

func TestPrismDocument(t *testing.T) {
	a := testCanned()
	b, err := prismDocument(a)
	if err != nil {
		t.Fatal(err)
	}
	type response struct {
		Headers map[string]struct {
			Example string
		}
		Content map[string]struct {
			Example json.RawMessage
		}
	}
	var doc struct {
		OpenAPI string
		Paths   map[string]map[string]struct {
			Responses map[string]response
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the document is not JSON: %v\n%s", err, b)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi: got %q, want 3.x", doc.OpenAPI)
	}
	resp, ok := doc.Paths[lookupPath]["post"].Responses["200"]
	if !ok {
		t.Fatalf("no POST %s answering 200:\n%s", lookupPath, b)
	}
	media, ok := resp.Content["application/json"]
	if !ok {
		t.Fatalf("no application/json content:\n%s", b)
	}
	// Prism sets Content-Type from the media type and the other headers
	// from their examples.
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range resp.Headers {
		h.Set(k, v.Example)
	}
	if _, ok := resp.Headers["Content-Type"]; ok {
		t.Error("Content-Type listed as a header; Prism takes it from the media type")
	}
	if err := checkCanned(200, h, media.Example, a); err != nil {
		t.Errorf("the example is not the canned answer: %v", err)
	}
	if _, ok := doc.Paths[peerReadyPath]["get"].Responses["200"]; !ok {
		t.Errorf("no GET %s answering 200", peerReadyPath)
	}
	if _, err := prismDocument(cannedAnswer{Body: []byte("not json")}); err == nil {
		t.Error("prismDocument of a body that is not JSON: got no error, want one")
	}
}

// withHeader is h with k set to v.
func withHeader(h http.Header, k, v string) http.Header {
	h = h.Clone()
	h.Set(k, v)
	return h
}

func TestCheckCanned(t *testing.T) {
	a := testCanned()
	ok := a.Header.Clone()
	ok.Set("Date", "now") // a server's own headers are fine
	tests := []struct {
		name   string
		code   int
		header http.Header
		body   string
		err    string
	}{
		{"same", 200, ok, string(a.Body), ""},
		{"re-encoded", 200, ok, "{\n  \"status\": \"Y\", \"version\": \"2.2.0\", \"eci\": \"05\", \"cardBin\": \"400000\", \"externalReferenceId\": \"ORD-20240611-000123\"}", ""},
		{"status", 404, ok, string(a.Body), "HTTP 404"},
		{"body", 200, ok, `{"status":"N"}`, "got"},
		{"not JSON", 200, ok, `<html>`, "not JSON"},
		{"charset", 200, withHeader(ok, "Content-Type", "application/json; charset=utf-8"), string(a.Body), ""},
		{"media type", 200, withHeader(ok, "Content-Type", "text/plain"), string(a.Body), "Content-Type"},
		{"header", 200, http.Header{"Content-Type": {"application/json"}}, string(a.Body), "header"},
	}
	for _, tt := range tests {
		err := checkCanned(tt.code, tt.header, []byte(tt.body), a)
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: got %v, want an error with %q", tt.name, err, tt.err)
		}
	}
}

func TestPeerFlags(t *testing.T) {
	o, err := parseOptions(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Peer.On() {
		t.Errorf("peer mode on by default (-peers %q)", o.Peer.Dir)
	}
	if !slices.Equal(o.Peer.Names, []string{"wiremock", "mockoon", "prism"}) {
		t.Errorf("default -peer-names: got %q", o.Peer.Names)
	}
	o, err = parseOptions([]string{"-peers", "/opt/peers", "-peer-names", "prism, wiremock,prism", "-peer-warmup", "3s"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Peer.On() || o.Peer.Dir != "/opt/peers" || !slices.Equal(o.Peer.Names, []string{"prism", "wiremock"}) || o.Peer.Warmup != 3*time.Second {
		t.Errorf("got %+v", o.Peer)
	}
	for _, args := range [][]string{
		{"-peers", ""},
		{"-peers", "/opt/peers", "-peer-names", "mountebank"},
		{"-peers", "/opt/peers", "-peer-names", ","},
		{"-peer-warmup", "-1s"},
	} {
		if _, err := parseOptions(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseOptions(%q): got no error, want one", args)
		}
	}
}

// fakePeers lays out the files of the three npm packages under dir.
func fakePeers(t *testing.T, dir string) {
	t.Helper()
	for pkg, entry := range map[string]string{
		"wiremock": "build/wiremock-standalone-3.13.2.jar", "@mockoon/cli": "bin/run.js", "@stoplight/prism-cli": "dist/index.js",
	} {
		p := filepath.Join(dir, "node_modules", pkg)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(p, entry)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, entry), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "package.json"), []byte(`{"name":"`+pkg+`","version":"1.2.3"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindPeers(t *testing.T) {
	all := []string{"wiremock", "mockoon", "prism"}
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	missing := func(name string) (string, error) { return "", errors.New("not found") }

	dir := t.TempDir()
	fakePeers(t, dir)
	peers, err := findPeers(dir, all, found)
	if err != nil {
		t.Fatal(err)
	}
	if len(peers) != 3 {
		t.Fatalf("got %d peers, want 3", len(peers))
	}
	for _, p := range peers {
		if p.version != "1.2.3" || !strings.HasPrefix(p.entryPath, dir) || p.runtimePath != "/usr/bin/"+p.runtime {
			t.Errorf("%s: got %+v", p.name, p)
		}
	}
	if got := peers[0].Label(); got != "WireMock 1.2.3" {
		t.Errorf("label: got %q, want WireMock 1.2.3", got)
	}
	if peers, err := findPeers(dir, []string{"prism"}, found); err != nil || len(peers) != 1 || peers[0].name != "prism" {
		t.Errorf("only prism: got %v, %v", peers, err)
	}

	// Nothing installed: one clear message naming all that is missing
	// and the command that installs it.
	empty := t.TempDir()
	_, err = findPeers(empty, all, missing)
	if err == nil {
		t.Fatal("findPeers in an empty directory: got no error, want one")
	}
	for _, want := range []string{peersInstall, "cd " + empty, "wiremock needs java", "mockoon needs node", "prism: no dist/index.js", "-peer-names"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}
	// Installed, but no java.
	_, err = findPeers(dir, all, func(name string) (string, error) {
		if name == "java" {
			return "", errors.New("not found")
		}
		return "/usr/bin/" + name, nil
	})
	if err == nil || !strings.Contains(err.Error(), "wiremock needs java") || strings.Contains(err.Error(), "needs node") {
		t.Errorf("without java: got %v, want only java named", err)
	}
}

func TestRunRefusesMissingPeers(t *testing.T) {
	var out, progress bytes.Buffer
	err := run(context.Background(), []string{"-peers", t.TempDir(), "-peer-names", "prism"}, &out, &progress)
	if err == nil || !strings.Contains(err.Error(), peersInstall) {
		t.Fatalf("run with no peers installed: got %v, want the npm command", err)
	}
	if progress.Len() > 0 {
		t.Errorf("run went on before refusing:\n%s", progress.String())
	}
}

func TestWithPeersAndPrintPeers(t *testing.T) {
	emu, floor := &server{Name: nameEmulator}, &server{Name: nameFloor}
	wm, pr := &server{Name: "wiremock", Peer: true}, &server{Name: "prism", Peer: true}
	servers := withPeers([]*server{emu, floor}, []*server{wm, pr})
	if names := []string{servers[0].Name, servers[1].Name, servers[2].Name, servers[3].Name}; !slices.Equal(names, []string{nameEmulator, "wiremock", "prism", nameFloor}) {
		t.Fatalf("withPeers: got %q, want the floor last", names)
	}
	if got := withPeers([]*server{emu, floor}, nil); len(got) != 2 {
		t.Errorf("withPeers without peers: got %d servers", len(got))
	}
	round := func(e, w, p, f int) roundResult {
		s := func(n int) *stats { return &stats{Requests: n, Elapsed: time.Second} }
		return roundResult{nameEmulator: s(e), "wiremock": s(w), "prism": s(p), nameFloor: s(f)}
	}
	rs := []roundResult{round(600, 400, 30, 1000), round(700, 350, 40, 1000), round(650, 500, 35, 1000)}
	var w bytes.Buffer
	printPeers(&w, peerOptions{Warmup: time.Second}, rs, servers)
	reportHas(t, w.String(),
		"## Beside the peers", "| Peer | req/s | peer/floor | emulator/peer |",
		"| wiremock | 400 | **0.40** (0.40, 0.35, 0.50) | **1.50** (1.50, 2.00, 1.30) |",
		"| prism | 35 | **0.04** (0.03, 0.04, 0.04) | **18.57** (20.00, 17.50, 18.57) |",
	)
	var rounds bytes.Buffer
	printRounds(&rounds, rs, servers)
	if strings.Contains(rounds.String(), "Wiremock/floor") {
		t.Errorf("printRounds gives a peer a target:\n%s", rounds.String())
	}
	if !strings.Contains(rounds.String(), "| 1 | wiremock | 400 |") {
		t.Errorf("printRounds lacks the peer's rounds:\n%s", rounds.String())
	}
}

// TestPrintBounds checks the bounds' table: each bound against the floor,
// each emulator against each bound, and no target line for a bound.
func TestPrintBounds(t *testing.T) {
	emu, floor := &server{Name: nameEmulator}, &server{Name: nameFloor}
	valid, decode := &server{Name: workJSON.Name(), Bound: true}, &server{Name: workWire.Name(), Bound: true}
	wm := &server{Name: "wiremock", Peer: true}
	servers := withPeers([]*server{emu, floor}, []*server{valid, decode, wm})
	round := func(e, v, d, f int) roundResult {
		s := func(n int) *stats { return &stats{Requests: n, Elapsed: time.Second} }
		return roundResult{nameEmulator: s(e), valid.Name: s(v), decode.Name: s(d), "wiremock": s(1), nameFloor: s(f)}
	}
	rs := []roundResult{round(500, 800, 600, 1000), round(450, 900, 650, 1000), round(480, 850, 700, 1000)}
	var w bytes.Buffer
	printBounds(&w, rs, servers)
	report := w.String()
	reportHas(t, report,
		"## Bounds", "| Bound | req/s | bound/floor | emulator/bound |\n",
		"| floor+valid | 850 | **0.85** (0.80, 0.90, 0.85) | **0.56** (0.62, 0.50, 0.56) |",
		"| floor+decode | 650 | **0.65** (0.60, 0.65, 0.70) | **0.69** (0.83, 0.69, 0.69) |",
	)
	if strings.Contains(report, "wiremock") {
		t.Errorf("a peer in the bounds' table:\n%s", report)
	}
	var rounds bytes.Buffer
	printRounds(&rounds, rs, servers)
	if strings.Contains(rounds.String(), "Floor+decode/floor") {
		t.Errorf("printRounds gives a bound a target:\n%s", rounds.String())
	}
	var none bytes.Buffer
	printBounds(&none, rs, []*server{emu, floor})
	if none.Len() > 0 {
		t.Errorf("a bounds section without bounds:\n%s", none.String())
	}
}

// installedPeers returns the directory of LOADBENCH_PEERS, where the peers
// are installed, or skips: peer mode is not part of CI.
func installedPeers(t *testing.T, names ...string) []peer {
	t.Helper()
	dir := os.Getenv("LOADBENCH_PEERS")
	if dir == "" {
		t.Skip("peers not installed: set LOADBENCH_PEERS to the directory where `" + peersInstall + "` ran")
	}
	peers, err := findPeers(dir, names, exec.LookPath)
	if err != nil {
		t.Skipf("peers not installed: %v", err)
	}
	return peers
}

// TestPeersAnswerCanned starts each installed peer with a canned answer,
// checks (in startPeer) that it answers it, and that stopping it ends its
// process group.
func TestPeersAnswerCanned(t *testing.T) {
	peers := installedPeers(t, "wiremock", "mockoon", "prism")
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			s, err := startPeer(context.Background(), p, t.TempDir(), examples.Lookup(), testCanned())
			if err != nil {
				t.Fatal(err)
			}
			if !s.Peer {
				t.Error("not marked as a peer")
			}
			s.Close()
			addr := strings.TrimPrefix(s.URL, "http://")
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
				t.Errorf("%s still listens on %s after Close", p.name, addr)
			}
		})
	}
}

// TestRunWithPeers runs a tiny lookup benchmark with every installed peer
// beside the emulator and the floor, and checks the report's shape.
func TestRunWithPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, starts five servers and drives them")
	}
	peers := installedPeers(t, "wiremock", "mockoon", "prism")
	var out, progress bytes.Buffer
	args := []string{"-duration", "2s", "-rounds", "1", "-concurrency", "4", "-mix=false", "-rates", "", "-memory", "0", "-coldstart", "0",
		"-redis", "off", "-peers", os.Getenv("LOADBENCH_PEERS"), "-peer-warmup", "500ms"}
	if err := run(context.Background(), args, &out, &progress); err != nil {
		t.Fatalf("run: %v\n%s", err, progress.String())
	}
	report := out.String()
	want := []string{"## Lookup: emulator vs floor", "Emulator/floor throughput ratio", "## Beside the peers", "| Peer | req/s | peer/floor | emulator/peer |"}
	for _, p := range peers {
		want = append(want, "| 1 | "+p.name+" | ", "| "+p.name+" | ", p.Label())
	}
	reportHas(t, report, want...)
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "| 1 |") && (!strings.HasSuffix(line, "| 0 |") || strings.Contains(line, "| 0 | ")) {
			t.Errorf("errors or no answers in round: %s", line)
		}
	}
}
