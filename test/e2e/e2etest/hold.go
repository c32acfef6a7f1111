package e2etest

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// held counts this binary's holders of the browser lock: a test opening two
// tabs holds it twice, and a second flock on a new descriptor in the same
// process would wait for the first forever.
var held struct {
	sync.Mutex
	n    int
	file *os.File
}

// HoldBrowser blocks until no other test binary drives Chromium, and holds
// that until tb ends. `go test ./test/e2e/...` runs the areas' binaries in
// parallel, and two Chromiums on a small machine skew the tests that check
// a page against real time (a countdown, the dashboard within 2 s). A file
// lock, not a mutex: the holders are separate processes, and the kernel
// drops it if a binary dies.
func HoldBrowser(tb testing.TB) {
	tb.Helper()
	held.Lock()
	defer held.Unlock()
	if held.n == 0 {
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "seckill-e2e-browser.lock"), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			tb.Fatalf("browser lock: %v", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			tb.Fatalf("browser lock: %v", err)
		}
		held.file = f
	}
	held.n++
	tb.Cleanup(release)
}

func release() {
	held.Lock()
	defer held.Unlock()
	if held.n--; held.n == 0 {
		held.file.Close() // closing the last descriptor drops the flock
		held.file = nil
	}
}
