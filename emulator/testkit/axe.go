package testkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axe-core's browser build is vendored from its npm package in
// templates/testdata/axe (its README gives the version, the licence and
// how to update it); axeSHA256 is its checksum, so that a damaged copy
// fails loudly.
const (
	axeFile   = "templates/testdata/axe/axe.min.js"
	axeSHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
)

// AxeSource reads the vendored axe-core and checks its checksum. It
// finds the file from the test's working directory (its package's),
// walking up to the module's root: a path compiled into the binary
// would not be one with -trimpath, as CI builds.
func AxeSource(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("axe-core: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatalf("axe-core: no go.mod above the test's directory")
		}
		dir = up
	}
	src, err := os.ReadFile(filepath.Join(dir, axeFile))
	if err != nil {
		tb.Fatalf("read axe-core (%s, vendored from the npm package axe-core): %v", axeFile, err)
	}
	if sum := sha256.Sum256(src); hex.EncodeToString(sum[:]) != axeSHA256 {
		tb.Fatalf("%s: sha256 %x, want %s (see templates/testdata/axe/README.md)", axeFile, sum, axeSHA256)
	}
	return string(src)
}

// InjectAxe makes the tab of ctx load axe-core (src, from AxeSource)
// into every document it opens from now on, whatever the page's
// Content-Security-Policy says.
func InjectAxe(ctx context.Context, src string) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return err
	}))
}

// AxeViolation is one rule axe-core found broken, with the elements that
// break it.
type AxeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// String names the rule, its impact and where it is broken.
func (v AxeViolation) String() string {
	where := make([]string, 0, len(v.Nodes))
	for _, n := range v.Nodes {
		where = append(where, fmt.Sprint(n.Target))
	}
	return fmt.Sprintf("%s violation %s (%s) at %s", v.Impact, v.ID, v.Help, strings.Join(where, ", "))
}

// RunAxe runs axe-core, injected with InjectAxe, on the document of the
// tab of ctx and returns its violations of every impact.
func RunAxe(ctx context.Context) ([]AxeViolation, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[[]AxeViolation](
		`axe.run(document, {resultTypes: ["violations"]}).then(function(r){return r.violations;})`, chromedp.EvalAwaitPromise))
}
