package harness

import (
	"fmt"
	"os/exec"
)

// Chromium is the browser the benchmark drives: SECKILL_CHROMIUM (read
// through getenv) when set, else the first of chromium, chromium-browser
// and google-chrome on the PATH. The browser tests look for it the same
// way; `make chromium` installs Debian's.
func Chromium(getenv func(string) string) (string, error) {
	if p := getenv("SECKILL_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on the PATH (make chromium installs it, or set SECKILL_CHROMIUM): %w", exec.ErrNotFound)
}
