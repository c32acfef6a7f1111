package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotRunning is returned when a signal is sent to a process that has exited.
var ErrNotRunning = errors.New("harness: process not running")

// Proc is a child process started from a fixed command line, possibly many
// times (a fault test restarts a server on the same port). Every start
// appends its output to one log file, shown when something fails.
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

// NewProc describes a process with env as its whole environment; Start runs it.
func NewProc(name, logPath string, env []string, argv ...string) *Proc {
	return &Proc{name: name, argv: argv, env: env, logPath: logPath}
}

// Name is the name the process was given.
func (p *Proc) Name() string { return p.name }

// LogPath is where the process's output goes.
func (p *Proc) LogPath() string { return p.logPath }

// Start runs the command (again). It returns an error if the previous start
// is still running or the command cannot be started.
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
	fmt.Fprintf(f, "=== harness: %s start #%d at %s: %s\n", p.name, p.starts,
		time.Now().Format(time.RFC3339Nano), strings.Join(p.argv, " "))
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env, f, f
	// If the parent dies (a test timeout panic, a benchmark interrupted with
	// kill -9), the kernel kills the children too, so no stray server keeps
	// a port, a datadir or the machine's cores.
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
// ok is false if it is still running after timeout. A process never started
// counts as exited, with no state.
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

// Stop asks the process to end (SIGTERM) and kills it if it has not within
// grace; it returns once the process is gone.
func (p *Proc) Stop(grace time.Duration) {
	if p.Signal(syscall.SIGTERM) != nil {
		return
	}
	if _, ok := p.Wait(grace); !ok {
		p.Signal(syscall.SIGKILL)
		p.Wait(time.Minute)
	}
}

// Tail is the last n lines of the process's log, for error messages.
func (p *Proc) Tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

var (
	spawnOnce sync.Once
	spawnReq  chan func()
)

// spawn starts cmd from one OS thread that lives as long as this process.
// Pdeathsig fires when the thread that forked the child ends, not the
// process; a thread of its own that never ends makes it mean "when this
// process dies".
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
