package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// Browser tests drive a real headless Chromium against the real server.
// Chromium is found at SECKILL_CHROMIUM, else on the PATH; `make test`
// installs Debian's chromium when it is missing.
//
// They stay serial (no t.Parallel): Chromium alone keeps a 2-core machine
// busy, and the tests check what a page shows against real time (a
// countdown, a sale opening in seconds, the dashboard within 2s of a
// purchase), which other tests' load would skew.

var (
	browserOnce  sync.Once
	browserAlloc context.Context
	browserErr   error
)

func chromiumPath() (string, error) {
	if p := os.Getenv("SECKILL_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// allocator starts one Chromium per test binary; each test gets its own
// browser context (its own cookies) in it.
func allocator(tb testing.TB) context.Context {
	tb.Helper()
	browserOnce.Do(func() {
		path, err := chromiumPath()
		if err != nil {
			browserErr = err
			return
		}
		dir, err := os.MkdirTemp("", "seckill-chromium-")
		if err != nil {
			browserErr = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
			chromedp.DisableGPU, chromedp.UserDataDir(dir), chromedp.WindowSize(1280, 900),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true))
		alloc, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		browserAlloc, _ = chromedp.NewContext(alloc)
		// Start the browser now: browser contexts are made inside it.
		browserErr = chromedp.Do(browserAlloc)
	})
	if browserErr != nil {
		tb.Fatalf("no Chromium for browser tests (%v): apt-get install -y chromium, or set SECKILL_CHROMIUM", browserErr)
	}
	return browserAlloc
}

// tab is one page in its own browser context.
type tab struct {
	ctx  context.Context
	tb   testing.TB
	base string
}

func newTab(tb testing.TB, s *e2etest.Server) *tab {
	tb.Helper()
	e2etest.HoldBrowser(tb)
	ctx, cancel := chromedp.NewContext(allocator(tb), chromedp.WithNewBrowserContext())
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	tb.Cleanup(func() { cancelT(); cancel() })
	return &tab{ctx: ctx, tb: tb, base: "http://" + s.Addr}
}

func (b *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	b.tb.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.shot("failed")
		b.tb.Fatalf("browser: %v", err)
	}
}

func (b *tab) open(path string) { b.tb.Helper(); b.do(chromedp.Navigate(b.base + path)) }

func (b *tab) text(sel string) string {
	b.tb.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		b.shot("failed")
		b.tb.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func (b *tab) eval(expr string) bool {
	b.tb.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr))
	if err != nil {
		b.tb.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// until waits for a JavaScript condition to hold. A poll does not survive a
// navigation (a page reloading itself after sign-in), and one armed while a
// page is being replaced can hang, so each attempt is bounded and re-armed
// until the deadline.
func (b *tab) until(expr string, timeout time.Duration) {
	b.tb.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	if !testenv.Eventually(timeout, func() bool {
		left := max(time.Until(deadline), time.Millisecond)
		attempt, cancel := context.WithTimeout(b.ctx, min(left, 2*time.Second))
		defer cancel()
		_, err = chromedp.Run(attempt, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(min(left, 2*time.Second)),
			chromedp.WithPollingInterval(50*time.Millisecond)))
		return err == nil || b.ctx.Err() != nil // a failed attempt: navigated, poll the new page
	}) || b.ctx.Err() != nil {
		b.shot("failed")
		b.tb.Fatalf("waited %v for %s: %v", timeout, expr, err)
	}
}

// shot saves a full-page screenshot under test-output/screenshots (not
// committed) so a person can look at what the test saw.
func (b *tab) shot(name string) {
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.tb.Logf("screenshot %s: %v", name, err)
		return
	}
	dir := filepath.Join("..", "..", "..", "test-output", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.tb.Logf("screenshot dir: %v", err)
		return
	}
	file := filepath.Join(dir, b.tb.Name()+"-"+name+".png")
	if err := os.WriteFile(filepath.Clean(file), png, 0o644); err != nil {
		b.tb.Logf("screenshot %s: %v", name, err)
	}
}
