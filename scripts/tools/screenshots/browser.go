package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// browser is one headless Chromium with one tab.
type browser struct {
	ctx         context.Context
	cancel      context.CancelFunc
	cancelAlloc context.CancelFunc
	dir         string
}

// newBrowser starts headless Chromium with the options of the browser
// tests.
func newBrowser(ctx context.Context, path string) (*browser, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	dir, err := os.MkdirTemp("", "screenshots-chromium-")
	if err != nil {
		return nil, err
	}
	opts := testkit.ChromiumOptions(path, dir,
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.WindowSize(1280, 860),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tabCtx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{ctx: tabCtx, cancel: cancel, cancelAlloc: cancelAlloc, dir: dir}
	if err := chromedp.Do(tabCtx, chromedp.Navigate("about:blank")); err != nil {
		b.Close()
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	return b, nil
}

// Close stops the browser and removes its profile.
func (b *browser) Close() {
	b.cancel()
	b.cancelAlloc()
	_ = os.RemoveAll(b.dir)
}

// do runs actions in the tab.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) error {
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// waitTrue waits until a JavaScript expression is true.
func (b *browser) waitTrue(expr string) error {
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		return fmt.Errorf("wait for %s: %w", expr, err)
	}
	return nil
}

// clickInFrame clicks sel inside the document of iframe#challenge, which
// changes with every form post: each try looks the frame up again.
func (b *browser) clickInFrame(sel string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		nodes, err := chromedp.Run(b.ctx, chromedp.Nodes(chromedp.CSS("iframe#challenge")))
		if err == nil && len(nodes) > 0 {
			ctx, cancel := context.WithTimeout(b.ctx, 500*time.Millisecond)
			err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel), chromedp.FromNode(nodes[0])))
			cancel()
			if err == nil {
				return b.do("click "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.FromNode(nodes[0])))
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("click %s in the challenge iframe: %v", sel, err)
		}
	}
}

// shoot writes a PNG of the viewport, sized width x height, to dir/name.
func (b *browser) shoot(dir, name string, width, height int64) error {
	if err := b.do("size the viewport", chromedp.EmulateViewport(width, height)); err != nil {
		return err
	}
	// Let layout and fonts settle after the resize.
	_ = b.do("settle", chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return fmt.Errorf("screenshot %s: %w", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
