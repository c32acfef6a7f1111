package fault

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
)

// Proc is a child process of a test: harness.Proc with what must fail the
// test (a process that will not die) and a log shown when the test fails.
type Proc struct {
	*harness.Proc
}

// NewProc describes a process; Start runs it. Cleanup kills it if it is
// still running and prints the tail of its log if the test failed.
func NewProc(tb testing.TB, name, logPath string, env []string, argv ...string) *Proc {
	tb.Helper()
	p := &Proc{harness.NewProc(name, logPath, env, argv...)}
	tb.Cleanup(func() {
		if p.Running() {
			p.Signal(syscall.SIGKILL)
			p.Wait(10 * time.Second)
		}
		if tb.Failed() {
			p.DumpLog(tb, 60)
		}
	})
	return p
}

// Kill9 sends SIGKILL and waits for the process to be gone.
func (p *Proc) Kill9(tb testing.TB) {
	tb.Helper()
	if err := p.Signal(syscall.SIGKILL); err != nil {
		tb.Fatalf("kill -9 %s: %v", p.Name(), err)
	}
	if _, ok := p.Wait(10 * time.Second); !ok {
		tb.Fatalf("%s (pid %d) still alive 10s after SIGKILL", p.Name(), p.Pid())
	}
}

// Term sends SIGTERM and waits up to timeout. It returns the exit code (-1
// for a death by signal) and how long the exit took; it fails the test if
// the process is still running after timeout.
func (p *Proc) Term(tb testing.TB, timeout time.Duration) (code int, took time.Duration) {
	tb.Helper()
	began := time.Now()
	if err := p.Signal(syscall.SIGTERM); err != nil {
		tb.Fatalf("SIGTERM %s: %v", p.Name(), err)
	}
	st, ok := p.Wait(timeout)
	took = time.Since(began)
	if !ok {
		tb.Fatalf("%s (pid %d) still running %v after SIGTERM", p.Name(), p.Pid(), timeout)
	}
	return st.ExitCode(), took
}

// DumpLog logs the last n lines of the process's output.
func (p *Proc) DumpLog(tb testing.TB, n int) {
	tb.Helper()
	tb.Logf("last %d lines of %s (%s):\n%s", n, p.Name(), p.LogPath(), p.Tail(n))
}

// Up starts the process (again) and polls ready until it answers, up to
// timeout; it returns how long that took and fails the test, with the
// process's log, if the process exits or never answers.
func (p *Proc) Up(tb testing.TB, timeout time.Duration, ready func(context.Context) error) time.Duration {
	tb.Helper()
	began := time.Now()
	if err := p.Start(); err != nil {
		tb.Fatal(err)
	}
	if err := p.WaitReady(context.Background(), timeout, ready); err != nil {
		tb.Fatal(err)
	}
	return time.Since(began)
}

// FreePort returns a loopback TCP port below the kernel's ephemeral range
// that was free a moment ago (harness.FreePort), failing the test if none is.
func FreePort(tb testing.TB) int {
	tb.Helper()
	port, err := harness.FreePort()
	if err != nil {
		tb.Fatal(err)
	}
	return port
}

// poll waits for check to return nil, at most timeout (harness.Poll).
func poll(timeout, interval time.Duration, check func() error) error {
	return harness.Poll(context.Background(), timeout, interval, check)
}
