package bench

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

// WrkResult is what one wrk run reported, plus what wrk itself cost.
type WrkResult struct {
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
func (r WrkResult) SocketErrors() int64 { return r.Connect + r.Read + r.Write + r.Timeout }

// GenCores is how many cores wrk kept busy on average.
func (r WrkResult) GenCores() float64 {
	if r.GenWallSecs == 0 {
		return 0
	}
	return r.GenCPUSeconds / r.GenWallSecs
}

// ErrWrkOutput is returned when wrk's report lacks the totals.
var ErrWrkOutput = errors.New("bench: unrecognised wrk output")

var (
	reTotals  = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),`)
	reRPS     = regexp.MustCompile(`(?m)^Requests/sec:\s+([\d.]+)`)
	reSocket  = regexp.MustCompile(`(?m)Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	reNon2xx  = regexp.MustCompile(`(?m)Non-2xx or 3xx responses: (\d+)`)
	rePercent = regexp.MustCompile(`(?m)^\s*(50|99)%\s+([\d.]+)(us|ms|s|m|h)\s*$`)
)

var unitSeconds = map[string]float64{"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}

// ParseWrk reads wrk's report. Lines wrk leaves out when they would be zero
// (socket errors, non-2xx) count as zero.
func ParseWrk(out string) (WrkResult, error) {
	var r WrkResult
	t := reTotals.FindStringSubmatch(out)
	rps := reRPS.FindStringSubmatch(out)
	if t == nil || rps == nil {
		return r, fmt.Errorf("%w: %q", ErrWrkOutput, firstLines(out, 3))
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

// wrkRun is one wrk invocation.
type wrkRun struct {
	bin         string
	threads     int
	connections int
	duration    time.Duration
	timeout     time.Duration // per request; 0 = wrk's 2s
	latency     bool
	script      string   // "" = plain GET
	args        []string // after "--", for the script
	url         string
}

// run starts wrk through bash so the open-files limit can be raised first:
// wrk needs a descriptor per connection, and Go restores a child's limit to
// the one the bench itself was started with. bash execs wrk, so the process
// time read afterwards is wrk's own.
func (w wrkRun) run(ctx context.Context) (WrkResult, string, error) {
	argv := []string{"-c", `ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`, w.bin,
		"-t" + strconv.Itoa(w.threads), "-c" + strconv.Itoa(w.connections), "-d" + secs(w.duration)}
	if w.timeout > 0 {
		argv = append(argv, "--timeout", secs(w.timeout))
	}
	if w.latency {
		argv = append(argv, "--latency")
	}
	if w.script != "" {
		argv = append(argv, "-s", w.script)
	}
	argv = append(argv, w.url)
	if len(w.args) > 0 {
		argv = append(append(argv, "--"), w.args...)
	}
	cmd := exec.CommandContext(ctx, "bash", argv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	began := time.Now()
	err := cmd.Run()
	wall := time.Since(began)
	text := out.String() + errOut.String()
	if err != nil {
		return WrkResult{}, text, fmt.Errorf("wrk %s: %w: %s", w.url, err, firstLines(text, 5))
	}
	r, err := ParseWrk(out.String())
	if err != nil {
		return WrkResult{}, text, err
	}
	r.GenCPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	r.GenWallSecs = wall.Seconds()
	return r, text, nil
}

func secs(d time.Duration) string { return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + "s" }
