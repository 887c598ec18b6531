// Package chromium holds how the project starts Debian's headless
// Chromium: the browser tests and the screenshot tool use the same flags,
// which this machine's closed network and root user need.
package chromium

import "github.com/chromedp/chromedp"

// Path is where Debian's chromium package installs the browser.
const Path = "/usr/bin/chromium"

// Options are the exec-allocator options of a headless Chromium at path
// with a profile in userDataDir, plus extra ones.
func Options(path, userDataDir string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
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
