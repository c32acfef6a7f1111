// Package wrk drives the wrk load generator for the benchmark: one run as
// a command (Cmd), its report parsed into figures (Result), and the split of
// one run's threads and connections between several wrk processes (Split)
// for the scale-out measure. wrk is the throughput generator because it
// spends about a third of the CPU per request a Go or JavaScript generator
// does, and on a 2-core machine the generator shares the cores with the
// system it measures.
package wrk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Result is what one wrk run reported, plus what wrk itself cost.
type Result struct {
	Requests      int64   `json:"requests"`
	Seconds       float64 `json:"seconds"` // wrk's own measured run time
	RPS           float64 `json:"rps"`
	Connect       int64   `json:"socket_connect_errors"`
	Read          int64   `json:"socket_read_errors"`
	Write         int64   `json:"socket_write_errors"`
	Timeout       int64   `json:"socket_timeouts"`
	Non2xx        int64   `json:"non_2xx_3xx"`
	P50ms         float64 `json:"p50_ms,omitempty"` // only with --latency
	P99ms         float64 `json:"p99_ms,omitempty"`
	GenCPUSeconds float64 `json:"generator_cpu_seconds"` // wrk's user+system time
	GenWallSecs   float64 `json:"generator_wall_seconds"`
	BusyBefore    float64 `json:"machine_busy_before"` // share of all cores busy just before the run
}

// SocketErrors is every connect, read, write and timeout error.
func (r Result) SocketErrors() int64 { return r.Connect + r.Read + r.Write + r.Timeout }

// GenCores is how many cores wrk kept busy on average.
func (r Result) GenCores() float64 {
	if r.GenWallSecs == 0 {
		return 0
	}
	return r.GenCPUSeconds / r.GenWallSecs
}

// ErrOutput is returned when wrk's report lacks the totals.
var ErrOutput = errors.New("wrk: unrecognised output")

var (
	reTotals  = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),`)
	reRPS     = regexp.MustCompile(`(?m)^Requests/sec:\s+([\d.]+)`)
	reSocket  = regexp.MustCompile(`(?m)Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	reNon2xx  = regexp.MustCompile(`(?m)Non-2xx or 3xx responses: (\d+)`)
	rePercent = regexp.MustCompile(`(?m)^\s*(50|99)%\s+([\d.]+)(us|ms|s|m|h)\s*$`)
)

var unitSeconds = map[string]float64{"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}

// Parse reads wrk's report. Lines wrk leaves out when they would be zero
// (socket errors, non-2xx) count as zero.
func Parse(out string) (Result, error) {
	var r Result
	t := reTotals.FindStringSubmatch(out)
	rps := reRPS.FindStringSubmatch(out)
	if t == nil || rps == nil {
		return r, fmt.Errorf("%w: %q", ErrOutput, firstLines(out, 3))
	}
	r.Requests, _ = strconv.ParseInt(t[1], 10, 64)
	secs, _ := strconv.ParseFloat(t[2], 64)
	r.Seconds = secs * unitSeconds[t[3]]
	r.RPS, _ = strconv.ParseFloat(rps[1], 64)
	if s := reSocket.FindStringSubmatch(out); s != nil {
		r.Connect, r.Read, r.Write, r.Timeout = atoi64(s[1]), atoi64(s[2]), atoi64(s[3]), atoi64(s[4])
	}
	if n := reNon2xx.FindStringSubmatch(out); n != nil {
		r.Non2xx = atoi64(n[1])
	}
	for _, p := range rePercent.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(p[2], 64)
		ms := v * unitSeconds[p[3]] * 1000
		if p[1] == "50" {
			r.P50ms = ms
		} else {
			r.P99ms = ms
		}
	}
	return r, nil
}

func atoi64(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// Cmd is one wrk invocation.
type Cmd struct {
	Bin         string
	Threads     int
	Connections int
	Duration    time.Duration
	Timeout     time.Duration // per request; 0 = wrk's 2s
	Latency     bool          // --latency: report the p50 and p99
	Headers     []string      // -H, each "Name: value"
	Script      string        // "" = plain GET
	Args        []string      // after "--", for the script
	URL         string
}

// Run runs wrk and returns its figures and its whole output. It starts wrk
// through bash so the open-files limit can be raised first: wrk needs a
// descriptor per connection, and Go restores a child's limit to the one the
// bench itself was started with. bash execs wrk, so the process time read
// afterwards is wrk's own.
func (w Cmd) Run(ctx context.Context) (Result, string, error) {
	argv := []string{"-c", `ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`, w.Bin,
		"-t" + strconv.Itoa(w.Threads), "-c" + strconv.Itoa(w.Connections), "-d" + secs(w.Duration)}
	if w.Timeout > 0 {
		argv = append(argv, "--timeout", secs(w.Timeout))
	}
	if w.Latency {
		argv = append(argv, "--latency")
	}
	for _, h := range w.Headers {
		argv = append(argv, "-H", h)
	}
	if w.Script != "" {
		argv = append(argv, "-s", w.Script)
	}
	argv = append(argv, w.URL)
	if len(w.Args) > 0 {
		argv = append(append(argv, "--"), w.Args...)
	}
	cmd := exec.CommandContext(ctx, "bash", argv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	began := time.Now()
	err := cmd.Run()
	wall := time.Since(began)
	text := out.String() + errOut.String()
	if err != nil {
		return Result{}, text, fmt.Errorf("wrk %s: %w: %s", w.URL, err, firstLines(text, 5))
	}
	r, err := Parse(out.String())
	if err != nil {
		return Result{}, text, err
	}
	r.GenCPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	r.GenWallSecs = wall.Seconds()
	return r, text, nil
}

func secs(d time.Duration) string { return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + "s" }
