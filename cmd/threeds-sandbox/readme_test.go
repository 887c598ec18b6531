package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fence is one fenced block of a Markdown page: its language and its text.
type fence struct {
	lang, text string
}

// fences returns the fenced blocks of the section of the Markdown file
// (a path from the repository root) whose heading line is heading, e.g.
// "## Quick start": up to the next heading of the same or a higher level.
func fences(t *testing.T, file, heading string) []fence {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	level := strings.IndexByte(heading, ' ')
	var (
		out      []fence
		in, open bool // in the section; in a fenced block
		cur      fence
	)
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case open && line == "```":
			open = false
			if in {
				out = append(out, cur)
			}
		case open:
			cur.text += line + "\n"
		case strings.HasPrefix(line, "```"):
			open, cur = true, fence{lang: strings.TrimPrefix(line, "```")}
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "#"):
			if n := strings.IndexByte(line, ' '); n > 0 && n <= level && strings.Trim(line[:n], "#") == "" {
				return out
			}
		}
	}
	if !in {
		t.Fatalf("%s has no section %q", file, heading)
	}
	return out
}

// needTools skips the test without the tools, or fails it under CI.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; .ci/run installs it", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// stableKeys are the answer fields whose values do not change from one
// transaction to the next: the examples of the docs must show what the
// sandbox answers for them.
var stableKeys = []string{"status", "transactionStatus", "transStatus", "final", "version", "eci",
	"cardScheme", "cardBin", "externalReferenceId", "notificationUrl", "threeDSSessionData"}

// quickStartCommand is the first block of the README's Quick start: the
// command that starts the sandbox without a checkout. The tests of package
// e2e run it as written.
const quickStartCommand = "go run github.com/threeds-sandbox/threeds-sandbox/cmd/threeds-sandbox@latest\n"

// TestReadmeQuickStart runs the README's Quick start as a new user would:
// its first block is the command that starts the sandbox (here started in
// process), and the other shell blocks run in order, in one bash from the
// repository root, with BASE pointing at the sandbox. Each block's output
// must match the example that follows it: every field the example shows,
// with the same value where values do not vary.
func TestReadmeQuickStart(t *testing.T) {
	needTools(t, "bash", "curl", "jq")
	blocks := fences(t, "README.md", "## Quick start")
	if len(blocks) == 0 || blocks[0].lang != "sh" || blocks[0].text != quickStartCommand {
		t.Fatalf("the Quick start must open with exactly `%s`, got %q", strings.TrimSpace(quickStartCommand), blocks[0])
	}
	if mod := modulePath(t); !strings.HasPrefix(quickStartCommand, "go run "+mod+"/cmd/threeds-sandbox@") {
		t.Fatalf("the Quick start runs %q, but the module is %s", quickStartCommand, mod)
	}
	p := startDefault(t)

	// One script, one shell, as in a terminal: a marker line before each
	// block splits the output.
	const marker = "@@quick-start block %d@@"
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	type step struct {
		cmd, want fence
		hasWant   bool
	}
	var steps []step
	for i := 1; i < len(blocks); i++ {
		b := blocks[i]
		if b.lang != "sh" {
			continue
		}
		st := step{cmd: b}
		if i+1 < len(blocks) && blocks[i+1].lang != "sh" {
			st.want, st.hasWant = blocks[i+1], true
		}
		fmt.Fprintf(&script, "printf '\\n%s\\n'\n%s", fmt.Sprintf(marker, len(steps)), b.text)
		steps = append(steps, st)
	}
	if len(steps) < 3 {
		t.Fatalf("the Quick start has %d command blocks after the start, want the lookup, the enquiry and the challenge", len(steps))
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "BASE="+p.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Quick start failed: %v\n%s", err, out)
	}
	parts := strings.Split(string(out), "\n"+fmt.Sprintf(marker, 0)+"\n")
	if len(parts) != 2 {
		t.Fatalf("no output of the first block:\n%s", out)
	}
	rest := parts[1]
	for i, st := range steps {
		got := rest
		if i+1 < len(steps) {
			var ok bool
			got, rest, ok = strings.Cut(rest, "\n"+fmt.Sprintf(marker, i+1)+"\n")
			if !ok {
				t.Fatalf("no output of block %d:\n%s", i+1, out)
			}
		}
		t.Run(fmt.Sprintf("block %d", i+1), func(t *testing.T) {
			if !st.hasWant {
				return
			}
			checkExample(t, st.want, got)
		})
	}
}

// checkExample compares a block's output with the example the page shows
// after it.
func checkExample(t *testing.T, want fence, got string) {
	t.Helper()
	if want.lang != "json" {
		if strings.TrimSpace(got) != strings.TrimSpace(want.text) {
			t.Errorf("output %q, the page shows %q", got, want.text)
		}
		return
	}
	var w, g map[string]any
	if err := json.Unmarshal([]byte(want.text), &w); err != nil {
		t.Fatalf("the page's example is not JSON: %v\n%s", err, want.text)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("the output is not JSON: %v\n%s", err, got)
	}
	for k := range w {
		if _, ok := g[k]; !ok {
			t.Errorf("the output lacks %q, which the page shows\n%s", k, got)
		}
	}
	for _, k := range stableKeys {
		if wv, ok := w[k]; ok && fmt.Sprint(wv) != fmt.Sprint(g[k]) {
			t.Errorf("%s = %v, the page shows %v", k, g[k], wv)
		}
	}
}

// modulePath is the module path go.mod declares.
func modulePath(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	path := modfileRe.FindSubmatch(raw)
	if path == nil {
		t.Fatal("go.mod declares no module")
	}
	return string(path[1])
}

// modfileRe finds the module line of a go.mod file.
var modfileRe = regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`)
