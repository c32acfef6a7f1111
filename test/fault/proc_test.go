package fault

import (
	"bufio"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ErrNotRunning is returned when a signal is sent to a process that has exited.
var ErrNotRunning = errors.New("fault: process not running")

// Proc is a child process started from a fixed command line, possibly many
// times. Every run appends its output to one log file, which is printed
// when the test fails.
type Proc struct {
	name    string
	argv    []string
	env     []string
	logPath string

	mu     sync.Mutex
	cur    *run
	starts int
}

// run is one start of the command.
type run struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once Wait returned; then cmd.ProcessState is set
}

// NewProc describes a process; Start runs it. Cleanup kills it if it is
// still running and prints the tail of its log if the test failed.
func NewProc(tb testing.TB, name, logPath string, env []string, argv ...string) *Proc {
	tb.Helper()
	p := &Proc{name: name, argv: argv, env: env, logPath: logPath}
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

// Name is the name the process was given.
func (p *Proc) Name() string { return p.name }

// LogPath is where the process's output goes.
func (p *Proc) LogPath() string { return p.logPath }

// Start runs the command again. It returns an error if it is still running
// or cannot be started.
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != nil && !p.cur.done() {
		return fmt.Errorf("start %s: still running as pid %d", p.name, p.cur.cmd.Process.Pid)
	}
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	defer f.Close() // the child holds its own copy of the descriptor
	p.starts++
	fmt.Fprintf(f, "=== fault: %s start #%d at %s: %s\n", p.name, p.starts,
		time.Now().Format(time.RFC3339Nano), strings.Join(p.argv, " "))
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env, f, f
	// If the test binary dies (a timeout panic, kill -9), the kernel kills
	// the children too, so no stray server keeps a port or a datadir.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := spawn(cmd); err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	r := &run{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(r.exited) }()
	p.cur = r
	return nil
}

func (r *run) done() bool {
	select {
	case <-r.exited:
		return true
	default:
		return false
	}
}

func (p *Proc) current() *run {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// Pid is the process id of the latest start (0 if never started).
func (p *Proc) Pid() int {
	if r := p.current(); r != nil {
		return r.cmd.Process.Pid
	}
	return 0
}

// Running tells whether the latest start is still alive.
func (p *Proc) Running() bool {
	r := p.current()
	return r != nil && !r.done()
}

// Signal sends sig to the running process; ErrNotRunning if there is none.
func (p *Proc) Signal(sig syscall.Signal) error {
	r := p.current()
	if r == nil || r.done() {
		return ErrNotRunning
	}
	return r.cmd.Process.Signal(sig)
}

// Wait waits up to timeout for the process to exit and returns its state;
// ok is false if it is still running after timeout.
func (p *Proc) Wait(timeout time.Duration) (state *os.ProcessState, ok bool) {
	r := p.current()
	if r == nil {
		return nil, true
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-r.exited:
		return r.cmd.ProcessState, true
	case <-t.C:
		return nil, false
	}
}

// Kill9 sends SIGKILL and waits for the process to be gone.
func (p *Proc) Kill9(tb testing.TB) {
	tb.Helper()
	if err := p.Signal(syscall.SIGKILL); err != nil {
		tb.Fatalf("kill -9 %s: %v", p.name, err)
	}
	if _, ok := p.Wait(10 * time.Second); !ok {
		tb.Fatalf("%s (pid %d) still alive 10s after SIGKILL", p.name, p.Pid())
	}
}

// Term sends SIGTERM and waits up to timeout. It returns the exit code (-1
// for a death by signal) and how long the exit took; it fails the test if
// the process is still running after timeout.
func (p *Proc) Term(tb testing.TB, timeout time.Duration) (code int, took time.Duration) {
	tb.Helper()
	began := time.Now()
	if err := p.Signal(syscall.SIGTERM); err != nil {
		tb.Fatalf("SIGTERM %s: %v", p.name, err)
	}
	st, ok := p.Wait(timeout)
	took = time.Since(began)
	if !ok {
		tb.Fatalf("%s (pid %d) still running %v after SIGTERM", p.name, p.Pid(), timeout)
	}
	return st.ExitCode(), took
}

// DumpLog logs the last n lines of the process's output.
func (p *Proc) DumpLog(tb testing.TB, n int) {
	tb.Helper()
	f, err := os.Open(p.logPath)
	if err != nil {
		tb.Logf("%s log: %v", p.name, err)
		return
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	tb.Logf("last %d lines of %s (%s):\n%s", len(lines), p.name, p.logPath, strings.Join(lines, "\n"))
}

var (
	spawnOnce sync.Once
	spawnReq  chan func()
)

// spawn starts cmd from one OS thread that lives as long as the test binary.
// Pdeathsig fires when the thread that forked the child ends, not the
// process; a thread of its own that never ends makes it mean "when the test
// binary dies".
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReq = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must not exit or be reused
			for f := range spawnReq {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	spawnReq <- func() { errc <- cmd.Start() }
	return <-errc
}

// FreePort returns a loopback TCP port that was free a moment ago. It is
// drawn from below the kernel's ephemeral range: a process restarted on the
// same port must not find it taken by some outgoing connection meanwhile.
func FreePort(tb testing.TB) int {
	tb.Helper()
	low := ephemeralLow()
	for range 200 {
		port := 10000 + mrand.IntN(max(low-10000, 1))
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			ln.Close()
			return port
		}
	}
	tb.Fatalf("no free loopback port found in [10000, %d)", low)
	return 0
}

// ephemeralLow is the lowest port the kernel picks for outgoing connections.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 11000 {
				return n
			}
		}
	}
	return 32768
}

// waitFor polls ok every interval until it returns nil or timeout passes,
// returning the last error.
func waitFor(timeout, interval time.Duration, ok func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := ok()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(interval)
	}
}
