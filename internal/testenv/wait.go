package testenv

import (
	"fmt"
	"testing"
	"time"
)

// WaitFor polls cond until it holds and fails the test, saying msg, if it
// does not within timeout. Polls start 1 ms apart and back off to 50 ms, so
// a condition that holds at once costs nothing and a slow one costs little.
// Tests wait for what they expect this way rather than sleeping for a time
// that is either too long (slow tests) or too short (flaky ones). msg may
// be a format with args; call it from the test's goroutine only.
func WaitFor(tb testing.TB, timeout time.Duration, cond func() bool, msg string, args ...any) {
	tb.Helper()
	if !Eventually(timeout, cond) {
		tb.Fatalf("after %v: %s", timeout, fmt.Sprintf(msg, args...))
	}
}

// Eventually polls cond as WaitFor does and reports whether it held within
// timeout; for callers that fail in their own words.
func Eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		<-time.After(min(wait, left))
		wait = min(2*wait, 50*time.Millisecond)
	}
}
