package testkit

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
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

// NeedChromium checks that the browser is installed: without it, tb is
// skipped, or failed under CI.
func NeedChromium(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if InCI() {
			tb.Fatalf("the browser tests need %s (.ci/run installs it with apt-get install chromium): %v", ChromiumPath, err)
		}
		tb.Skipf("no %s (%v): browser test skipped (it fails instead when CI=true)", ChromiumPath, err)
	}
}

// StartBrowser starts a headless Chromium with its profile in
// userDataDir and the extra options, outside any test: a browser that
// the tests of a package share, each in a browser context of its own
// (see BrowserContext). It returns the context of its first tab and the
// function that stops it.
func StartBrowser(userDataDir string, extra ...chromedp.ExecAllocatorOption) (context.Context, context.CancelFunc, error) {
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), ChromiumOptions(ChromiumPath, userDataDir, extra...)...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	stop := func() {
		cancel()
		cancelAlloc()
	}
	// Starting the browser takes a while: do it before any deadline.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start %s: %w", ChromiumPath, err)
	}
	return ctx, stop, nil
}

// Browser starts one headless Chromium for tb (and its subtests), with
// the extra options, and returns the context of its first tab; the
// browser stops when tb ends. Without Chromium, tb is skipped, or failed
// under CI.
func Browser(tb testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	tb.Helper()
	NeedChromium(tb)
	ctx, stop, err := StartBrowser(tb.TempDir(), extra...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	return ctx
}

// BrowserContext opens in browser (see StartBrowser) a browser context
// of tb's own, as an incognito window is: its cookies, storage and cache
// are apart from those of the other tests sharing the browser. It
// returns the context of the window's first tab; chromedp.NewContext of
// it opens more tabs in the same window. The window closes when tb ends.
func BrowserContext(tb testing.TB, browser context.Context) context.Context {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	tb.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		tb.Fatalf("open a browser context: %v", err)
	}
	return ctx
}

// Focused makes the tab it runs in behave as the focused window even
// while other tabs of the browser are in front: focus and key events,
// :focus and :focus-visible then work in tabs that tests drive side by
// side.
func Focused() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return err
	})
}
