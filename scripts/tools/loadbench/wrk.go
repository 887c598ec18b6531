package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// wrkScript makes wrk POST the lookup body with the API's headers, and
// print the latency percentiles in microseconds at the end.
const wrkScript = `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %s"
local f = assert(io.open(%q, "rb"))
wrk.body = f:read("*a")
f:close()

done = function(summary, latency, requests)
  for _, p in ipairs({50, 90, 99}) do
    io.write(string.format("loadbench-p%%d %%d\n", p, latency:percentile(p)))
  end
end
`

// wrkDriver runs wrk against a server with a Lua script in a temporary
// directory.
type wrkDriver struct {
	path    string // the wrk binary
	script  string // the Lua script
	threads int
}

// newWRK writes the Lua script and body to dir. It fails when wrk is not
// installed (Debian: apt-get install wrk).
func newWRK(dir string, body []byte, threads int) (*wrkDriver, error) {
	path, err := exec.LookPath("wrk")
	if err != nil {
		return nil, fmt.Errorf("-wrk: wrk is not installed (Debian: apt-get install wrk): %w", err)
	}
	bodyFile := filepath.Join(dir, "lookup.json")
	if err := os.WriteFile(bodyFile, body, 0o600); err != nil {
		return nil, fmt.Errorf("-wrk: write body: %w", err)
	}
	script := filepath.Join(dir, "lookup.lua")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(wrkScript, token, bodyFile)), 0o600); err != nil {
		return nil, fmt.Errorf("-wrk: write script: %w", err)
	}
	return &wrkDriver{path: path, script: script, threads: threads}, nil
}

// run drives url with conns connections for d and parses wrk's report.
func (w *wrkDriver) run(ctx context.Context, url string, conns int, d time.Duration) (*stats, error) {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.CommandContext(ctx, w.path,
		"-t", strconv.Itoa(w.threads), "-c", strconv.Itoa(conns), "-d", strconv.Itoa(secs)+"s",
		"--timeout", "10s", "-s", w.script, url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("wrk: %w\n%s", err, out)
	}
	s, err := parseWRK(string(out))
	if err != nil {
		return nil, fmt.Errorf("wrk: %w\n%s", err, out)
	}
	return s, nil
}

var (
	wrkTotal   = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m)`)
	wrkNon2xx  = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses: (\d+)`)
	wrkSocket  = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkPercent = regexp.MustCompile(`(?m)^loadbench-p(\d+) (\d+)$`)
)

// parseWRK reads the figures of a wrk report (with the percentiles our
// script prints).
func parseWRK(out string) (*stats, error) {
	m := wrkTotal.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no request count in the report")
	}
	s := &stats{}
	s.Requests, _ = strconv.Atoi(m[1])
	v, _ := strconv.ParseFloat(m[2], 64)
	unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute}[m[3]]
	s.Elapsed = time.Duration(v * float64(unit))
	if s.Elapsed <= 0 {
		return nil, fmt.Errorf("no duration in the report")
	}
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.Atoi(m[1])
		s.Errors += n
	}
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		for _, f := range m[1:] {
			n, _ := strconv.Atoi(f)
			s.Errors += n
		}
	}
	found := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := wrkPercent.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		us, _ := strconv.Atoi(m[2])
		d := time.Duration(us) * time.Microsecond
		switch m[1] {
		case "50":
			s.P50 = d
		case "90":
			s.P90 = d
		case "99":
			s.P99 = d
		}
		found++
	}
	if found != 3 {
		return nil, fmt.Errorf("got %d latency percentiles, want 3", found)
	}
	return s, nil
}
