//go:build full

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path"
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

// quickStartCommand is the first block of the README's Quick start: what
// starts the sandbox from a clone of the repository (the module is not
// published yet), with the listen address shown. The tests of package
// e2e run the rest as written.
const quickStartCommand = "git clone https://github.com/threeds-sandbox/threeds-sandbox.git && cd threeds-sandbox\n" +
	"go run ./cmd/threeds-sandbox --addr :8080    # the address to listen on; THREEDS_ADDR=:8080 does the same\n"

// TestReadmeQuickStart runs the README's Quick start as a new user would:
// its first block starts the sandbox from a clone (here it starts in
// process, on a free port), the sentence after it names the
// command that works once the module is published, and the other shell
// blocks run in order, in one bash from the repository root, with BASE
// pointing at the sandbox. Each block's output must match the example that
// follows it: every field the example shows, with the same value where
// values do not vary. (The tests of package e2e run the same blocks
// against the image and an installed binary, from a directory without a
// checkout.)
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	needTools(t, "bash", "curl", "jq")
	blocks := testkit.Fences(t, "../../../README.md", "## Quick start")
	if len(blocks) == 0 || blocks[0].Lang != "sh" || blocks[0].Text != quickStartCommand {
		t.Fatalf("the Quick start must open with exactly\n%s\ngot %q", quickStartCommand, blocks)
	}
	mod := modulePath(t)
	if !strings.Contains(quickStartCommand, "git clone https://"+mod+".git && cd "+path.Base(mod)+"\n") {
		t.Errorf("the Quick start clones another repository than the module %s", mod)
	}
	if _, err := os.Stat("../../../cmd/threeds-sandbox/main.go"); err != nil {
		t.Errorf("the Quick start runs ./cmd/threeds-sandbox: %v", err)
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if published := "go run " + mod + "/cmd/threeds-sandbox@latest --addr :8080"; !strings.Contains(string(readme), published) {
		t.Errorf("the Quick start does not give %q as what works once the module is published", published)
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
