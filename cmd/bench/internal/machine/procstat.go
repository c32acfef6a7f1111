package machine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// UserHZ is the unit of the times in /proc/<pid>/stat. The kernel reports
// them in USER_HZ, which is 100 on every Linux architecture Go supports
// (CONFIG_HZ changes the tick, not this unit).
const UserHZ = 100

// ErrProcFormat is returned for a /proc file that does not parse.
var ErrProcFormat = errors.New("machine: unexpected /proc format")

// ParseStatCPU returns utime+stime in seconds from a /proc/<pid>/stat line.
// The command name (field 2) may hold spaces and parentheses, so fields are
// counted from the last ')'.
func ParseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("%w: stat %q", ErrProcFormat, stat)
	}
	f := strings.Fields(stat[i+1:])
	// After ")": state is field 3, so utime (14) and stime (15) are f[11], f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("%w: stat %q", ErrProcFormat, stat)
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%w: stat %q", ErrProcFormat, stat)
	}
	return float64(ut+st) / UserHZ, nil
}

// ParseVmHWM returns the peak resident set in bytes from /proc/<pid>/status.
func ParseVmHWM(status string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			break
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			break
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("%w: no VmHWM in status", ErrProcFormat)
}

// CPUSeconds is a live process's user+system time so far.
func CPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read cpu time of %d: %w", pid, err)
	}
	return ParseStatCPU(string(b))
}

// PeakRSS is a live process's peak resident set (VmHWM) in bytes.
func PeakRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("read peak rss of %d: %w", pid, err)
	}
	return ParseVmHWM(string(b))
}

// ParseCPUTotals returns the busy and total jiffies of all cores from the
// "cpu" line of /proc/stat; idle and iowait count as not busy.
func ParseCPUTotals(stat string) (busy, total uint64, err error) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("%w: /proc/stat starts %q", ErrProcFormat, line)
	}
	for i, s := range f[1:] {
		if i >= 8 { // guest times are already inside user and nice
			break
		}
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%w: /proc/stat %q", ErrProcFormat, line)
		}
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total, nil
}

// CPU is the busy and total jiffies of all cores so far (ParseCPUTotals of
// /proc/stat).
func CPU() (busy, total uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	return ParseCPUTotals(string(b))
}

// Settling: before each measured run the machine should be quiet, or the
// run pays for the last one's leftovers (MySQL flushing the orders it just
// took, a collector finishing).
const (
	SettleQuiet = 0.10 // busy share of all cores that counts as quiet
	settleStep  = 250 * time.Millisecond
	// SettleLimit bounds the wait for a quiet machine before a run; on a
	// machine that never gets quiet the run goes ahead and the report says
	// how busy it was.
	SettleLimit = 5 * time.Second
)

// Settle waits until one step was quiet, at most SettleLimit, and returns
// the busy share of all cores in the last step.
func Settle(ctx context.Context) float64 {
	deadline := time.Now().Add(SettleLimit)
	b0, t0, err := CPU()
	if err != nil {
		return 0
	}
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(settleStep):
		}
		b1, t1, err := CPU()
		if err != nil || t1 == t0 {
			return 0
		}
		share := float64(b1-b0) / float64(t1-t0)
		if share < SettleQuiet || time.Now().After(deadline) {
			return share
		}
		b0, t0 = b1, t1
	}
}
