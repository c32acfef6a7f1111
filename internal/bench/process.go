package bench

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a server process the benchmark started; its output goes to a
// log file that is shown when it fails.
type child struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process has exited
}

// startChild starts argv with env as its whole environment.
func startChild(name, logPath string, env []string, argv ...string) (*child, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		f.Close()
		close(c.done)
	}()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop asks the process to end (SIGTERM) and kills it if it has not within
// grace.
func (c *child) stop(grace time.Duration) {
	if c.exited() {
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(grace):
		c.cmd.Process.Kill()
		<-c.done
	}
}

// tail is the end of the process's log, for error messages.
func (c *child) tail(n int) string {
	b, _ := os.ReadFile(c.log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitHealthy polls url until it answers 200, the process exits, or
// timeout passes.
func (c *child) waitHealthy(ctx context.Context, url string, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		if c.exited() {
			return fmt.Errorf("%s exited during start-up:\n%s", c.name, c.tail(20))
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer %s within %s (last: %v):\n%s", c.name, url, timeout, err, c.tail(20))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitListening polls addr until it accepts a connection (the baselines
// answer no GET route).
func (c *child) waitListening(ctx context.Context, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if c.exited() {
			return fmt.Errorf("%s exited during start-up:\n%s", c.name, c.tail(20))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not listening on %s within %s: %w", c.name, addr, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freeAddr is a loopback address with a free port below the kernel's
// ephemeral range: 10,000 client connections take ports from that range,
// and a listener inside it could be handed out from under them.
func freeAddr() (string, error) {
	low := ephemeralLow()
	for range 200 {
		addr := "127.0.0.1:" + strconv.Itoa(10000+mrand.IntN(max(low-10000, 1)))
		if ln, err := net.Listen("tcp", addr); err == nil {
			ln.Close()
			return addr, nil
		}
	}
	return "", errors.New("bench: no free loopback port below the ephemeral range")
}

func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if f := strings.Fields(string(b)); err == nil && len(f) == 2 {
		if n, err := strconv.Atoi(f[0]); err == nil && n > 10001 {
			return n
		}
	}
	return 32768
}
