package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Poll calls check every interval until it returns nil, and returns nil.
// It gives up when timeout passes, returning check's last error, or when
// ctx ends, returning ctx's error; an error made with Abort ends it at once.
// This is how the benchmark and the fault tests wait: for a condition, to a
// deadline, never for a guessed time.
func Poll(ctx context.Context, timeout, interval time.Duration, check func() error) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		err := check()
		var abort abortError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &abort):
			return abort.err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("not within %v: %w", timeout, err)
		case <-tick.C:
		}
	}
}

// Abort wraps err so that Poll returns it at once instead of polling on:
// for a condition that can no longer come true, such as a server that exited.
func Abort(err error) error { return abortError{err} }

type abortError struct{ err error }

func (e abortError) Error() string { return e.err.Error() }
func (e abortError) Unwrap() error { return e.err }

// WaitReady polls ready until it returns nil. It gives up at once, with the
// tail of the log, if the process exits meanwhile, and after timeout with
// ready's last error and the tail.
func (p *Proc) WaitReady(ctx context.Context, timeout time.Duration, ready func(context.Context) error) error {
	err := Poll(ctx, timeout, 20*time.Millisecond, func() error {
		if !p.Running() {
			st, _ := p.Wait(0)
			return Abort(fmt.Errorf("exited during start-up: %v", st))
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return ready(cctx)
	})
	if err != nil {
		return fmt.Errorf("%s not ready: %w\n%s", p.name, err, p.Tail(20))
	}
	return nil
}

var probe = &http.Client{Timeout: 2 * time.Second}

// HTTPOK is a readiness check: GET url answers 200.
func HTTPOK(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return err
		}
		resp, err := probe.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %d", url, resp.StatusCode)
		}
		return nil
	}
}

// Listening is a readiness check for a server with no route to GET: addr
// accepts a TCP connection.
func Listening(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return conn.Close()
	}
}
