package testkit

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Fence is one fenced block of a Markdown page: its language ("sh",
// "json", "text", or "") and its text.
type Fence struct {
	Lang, Text string
}

// Fences returns the fenced blocks of the section of the Markdown file at
// path whose heading line is heading, e.g. "## Quick start": up to the
// next heading of the same or a higher level.
func Fences(tb testing.TB, path, heading string) []Fence {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	level := strings.IndexByte(heading, ' ')
	var (
		out      []Fence
		in, open bool // in the section; in a fenced block
		cur      Fence
	)
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case open && line == "```":
			open = false
			if in {
				out = append(out, cur)
			}
		case open:
			cur.Text += line + "\n"
		case strings.HasPrefix(line, "```"):
			open, cur = true, Fence{Lang: strings.TrimPrefix(line, "```")}
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "#"):
			if n := strings.IndexByte(line, ' '); n > 0 && n <= level && strings.Trim(line[:n], "#") == "" {
				return out
			}
		}
	}
	if !in {
		tb.Fatalf("%s has no section %q", path, heading)
	}
	return out
}

// ShellStep is one shell block a page shows, as RunShell ran it: the
// block, what it printed, and the example output the page shows right
// after it (Lang "" when the next block is another command).
type ShellStep struct {
	Block, Example Fence
	Output         string
}

// RunShell runs the "sh" blocks of blocks in order, in one bash (set -euo
// pipefail) started in dir with env, as a reader pasting them into one
// terminal would, and returns each block's output. A failing block fails
// tb with the whole output.
func RunShell(tb testing.TB, blocks []Fence, dir string, env []string) []ShellStep {
	tb.Helper()
	// A marker line before each block splits the output.
	const marker = "@@shell block %d@@"
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	var steps []ShellStep
	for i, b := range blocks {
		if b.Lang != "sh" {
			continue
		}
		st := ShellStep{Block: b}
		if i+1 < len(blocks) && blocks[i+1].Lang != "sh" {
			st.Example = blocks[i+1]
		}
		fmt.Fprintf(&script, "printf '\\n%s\\n'\n%s", fmt.Sprintf(marker, len(steps)), b.Text)
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return nil
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("the blocks failed: %v\n%s", err, out)
	}
	_, rest, ok := strings.Cut(string(out), "\n"+fmt.Sprintf(marker, 0)+"\n")
	if !ok {
		tb.Fatalf("no output of the first block:\n%s", out)
	}
	for i := range steps {
		got := rest
		if i+1 < len(steps) {
			got, rest, ok = strings.Cut(rest, "\n"+fmt.Sprintf(marker, i+1)+"\n")
			if !ok {
				tb.Fatalf("no output of block %d:\n%s", i+1, out)
			}
		}
		steps[i].Output = got
	}
	return steps
}

// StableAnswerKeys are the fields of the sandbox's answers whose values do
// not change from one transaction to the next: an example of the docs
// must show what the sandbox answers for them.
var StableAnswerKeys = []string{"status", "transactionStatus", "transStatus", "final", "version", "eci",
	"cardScheme", "cardBin", "externalReferenceId", "notificationUrl", "threeDSSessionData"}

// CheckOutput compares a block's output with the example the page shows
// after it, if any: a JSON example must have every field of the output,
// with the same value for the keys given (StableAnswerKeys for the
// sandbox's answers); any other example must be the output, but for
// surrounding space.
func (s ShellStep) CheckOutput(tb testing.TB, stable []string) {
	tb.Helper()
	want, got := s.Example, s.Output
	switch want.Lang {
	case "":
		return
	case "json":
	default:
		if strings.TrimSpace(got) != strings.TrimSpace(want.Text) {
			tb.Errorf("output %q, the page shows %q", got, want.Text)
		}
		return
	}
	var w, g map[string]any
	if err := json.Unmarshal([]byte(want.Text), &w); err != nil {
		tb.Fatalf("the page's example is not JSON: %v\n%s", err, want.Text)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		tb.Fatalf("the output is not JSON: %v\n%s", err, got)
	}
	for k := range w {
		if _, ok := g[k]; !ok {
			tb.Errorf("the output lacks %q, which the page shows\n%s", k, got)
		}
	}
	for _, k := range stable {
		if wv, ok := w[k]; ok && fmt.Sprint(wv) != fmt.Sprint(g[k]) {
			tb.Errorf("%s = %v, the page shows %v", k, g[k], wv)
		}
	}
}
