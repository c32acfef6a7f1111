package testenv

import (
	"testing"
	"time"
)

// pollEvery is how often Eventually asks again: fine enough that a test
// waits little past the moment its condition holds.
const pollEvery = 10 * time.Millisecond

// Eventually asks cond until it holds, and fails the test with the message
// if it still does not after timeout. It is how tests wait for work done in
// the background (persisting, repairs, messages between servers): a
// condition with a deadline, never a fixed sleep.
func Eventually(tb testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("after %v: "+format, append([]any{timeout}, args...)...)
		}
		time.Sleep(pollEvery)
	}
}
