package harness

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseEphemeralLow(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		"32768\t60999\n": 32768,
		"15000 60999":    15000,
		"10999 60999":    defaultEphemeral, // fewer than minSpan ports above 10000
		"1024 65535":     defaultEphemeral,
		"garbage":        defaultEphemeral,
	} {
		if got := parseEphemeralLow(in); got != want {
			t.Errorf("parseEphemeralLow(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if port < lowestPort || port >= ephemeralLow() {
		t.Errorf("FreePort() = %d, want in [%d, %d)", port, lowestPort, ephemeralLow())
	}
}

func TestChildEnvDropsSeckillSettings(t *testing.T) {
	t.Parallel()
	got := ChildEnv([]string{"PATH=/bin", "SECKILL_ADMIN_TOKEN=dev", "HOME=/root", "SECKILL_RATE_IP=off"}, "SECKILL_HTTP_ADDR=:1")
	want := []string{"PATH=/bin", "HOME=/root", "SECKILL_HTTP_ADDR=:1"}
	if !slices.Equal(got, want) {
		t.Errorf("ChildEnv = %q, want %q", got, want)
	}
}

func TestPoll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := 0
	if err := Poll(ctx, time.Second, time.Millisecond, func() error {
		if n++; n < 3 {
			return errors.New("not yet")
		}
		return nil
	}); err != nil || n != 3 {
		t.Errorf("Poll = %v after %d checks, want nil after 3", err, n)
	}
	errGone := errors.New("gone")
	if err := Poll(ctx, time.Minute, time.Millisecond, func() error { return Abort(errGone) }); !errors.Is(err, errGone) {
		t.Errorf("Poll with Abort = %v, want %v at once", err, errGone)
	}
	errLate := errors.New("late")
	if err := Poll(ctx, 10*time.Millisecond, time.Millisecond, func() error { return errLate }); !errors.Is(err, errLate) {
		t.Errorf("Poll past its deadline = %v, want the last error", err)
	}
}

// A Proc restarts on the same command line and appends to one log; Stop
// ends it with SIGTERM, or SIGKILL after grace.
func TestProcRestartAndStop(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "p.log")
	p := NewProc("sleeper", log, nil, "/bin/sh", "-c", `trap "" TERM; echo "tr""apped"; exec sleep 600`)
	for i := range 2 {
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		if err := p.Start(); err == nil {
			t.Error("Start while running: want an error")
		}
		// "trapped" comes after the trap is set (sleep inherits the ignored
		// SIGTERM): a SIGTERM before it would end the shell.
		if err := Poll(context.Background(), 10*time.Second, time.Millisecond, func() error {
			if strings.Count(p.Tail(10), "\ntrapped") <= i {
				return errors.New("no trap yet")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		p.Stop(100 * time.Millisecond) // SIGTERM is ignored: it takes the SIGKILL
		if p.Running() || time.Since(began) < 100*time.Millisecond {
			t.Errorf("start %d: running %v after Stop, which took %v", i, p.Running(), time.Since(began))
		}
	}
	if tail := p.Tail(10); strings.Count(tail, "start #") != 2 || strings.Count(tail, "\ntrapped") != 2 {
		t.Errorf("log of two starts:\n%s", tail)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Signal after exit = %v, want ErrNotRunning", err)
	}
}

func TestWaitReadyGivesUpWhenTheProcessExits(t *testing.T) {
	t.Parallel()
	p := NewProc("quitter", filepath.Join(t.TempDir(), "q.log"), nil, "/bin/sh", "-c", "echo bye; exit 3")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err := p.WaitReady(context.Background(), time.Minute, Listening("127.0.0.1:1"))
	if err == nil || !strings.Contains(err.Error(), "exited during start-up") || !strings.Contains(err.Error(), "bye") {
		t.Errorf("WaitReady = %v, want an exit with the log", err)
	}
	if time.Since(began) > 10*time.Second {
		t.Errorf("WaitReady took %v: it should not wait out its timeout", time.Since(began))
	}
}
