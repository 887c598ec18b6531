package testkit

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is where Debian's chromium package installs the browser.
const ChromiumPath = "/usr/bin/chromium"

// ChromiumOptions are the exec-allocator options of a headless Chromium
// at path with a profile in userDataDir, plus extra ones: the flags that
// this machine's closed network and root user need. The browser tests and
// the screenshot tool start Chromium with them.
func ChromiumOptions(path, userDataDir string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(userDataDir),
		// Without these the browser tries to reach Google's services,
		// which a closed network refuses many times over.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
	)
	return append(opts, extra...)
}

// Browser starts one headless Chromium for tb (and its subtests), with
// the extra options, and returns the context of its first tab; the
// browser stops when tb ends. Without Chromium, tb is skipped, or failed
// under CI.
func Browser(tb testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	tb.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if InCI() {
			tb.Fatalf("the browser tests need %s (.ci/run installs it with apt-get install chromium): %v", ChromiumPath, err)
		}
		tb.Skipf("no %s (%v): browser test skipped (it fails instead when CI=true)", ChromiumPath, err)
	}
	opts := ChromiumOptions(ChromiumPath, tb.TempDir(), extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	tb.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// Starting the browser takes a while: do it before any deadline.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		tb.Fatalf("start %s: %v", ChromiumPath, err)
	}
	return ctx
}
