package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
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
	var out []fence
	for _, f := range testkit.Fences(t, filepath.Join("../../..", file), heading) {
		out = append(out, fence{lang: f.Lang, text: f.Text})
	}
	return out
}

// needTools skips the test without the tools, or fails it under CI.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if testkit.InCI() {
				t.Fatalf("%s is not installed; .ci/run installs it", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// stableKeys are the answer fields whose values do not change from one
// transaction to the next: the examples of the docs must show what the
// sandbox answers for them.
var stableKeys = testkit.StableAnswerKeys

// quickStartCommand is the first block of the README's Quick start: the
// command that starts the sandbox without a checkout. The tests of package
// e2e run it as written.
const quickStartCommand = "go run github.com/threeds-sandbox/threeds-sandbox/cmd/threeds-sandbox@latest\n"

// TestReadmeQuickStart runs the README's Quick start as a new user would:
// its first block is the command that starts the sandbox (here started in
// process), and the other shell blocks run in order, in one bash from the
// repository root, with BASE pointing at the sandbox. Each block's output
// must match the example that follows it: every field the example shows,
// with the same value where values do not vary. (The tests of package
// e2e run the same blocks against the image and an installed binary, from
// a directory without a checkout.)
func TestReadmeQuickStart(t *testing.T) {
	needTools(t, "bash", "curl", "jq")
	blocks := testkit.Fences(t, "../../../README.md", "## Quick start")
	if len(blocks) == 0 || blocks[0].Lang != "sh" || blocks[0].Text != quickStartCommand {
		t.Fatalf("the Quick start must open with exactly `%s`, got %q", strings.TrimSpace(quickStartCommand), blocks)
	}
	if mod := modulePath(t); !strings.HasPrefix(quickStartCommand, "go run "+mod+"/cmd/threeds-sandbox@") {
		t.Fatalf("the Quick start runs %q, but the module is %s", quickStartCommand, mod)
	}
	p := startDefault(t)
	steps := testkit.RunShell(t, blocks[1:], "../../..", append(os.Environ(), "BASE="+p.URL))
	if len(steps) < 3 {
		t.Fatalf("the Quick start has %d command blocks after the start, want the lookup, the enquiry and the challenge", len(steps))
	}
	for i, st := range steps {
		t.Run(fmt.Sprintf("block %d", i+1), func(t *testing.T) { st.CheckOutput(t, stableKeys) })
	}
}

// checkExample compares a block's output with the example the page shows
// after it.
func checkExample(t *testing.T, want fence, got string) {
	t.Helper()
	testkit.ShellStep{Example: testkit.Fence{Lang: want.lang, Text: want.text}, Output: got}.CheckOutput(t, stableKeys)
}
