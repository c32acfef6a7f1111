package bench

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of the times in /proc/<pid>/stat. The kernel reports
// them in USER_HZ, which is 100 on every Linux architecture Go supports
// (CONFIG_HZ changes the tick, not this unit).
const userHZ = 100

// ErrProcFormat is returned for a /proc file that does not parse.
var ErrProcFormat = errors.New("bench: unexpected /proc format")

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
	return float64(ut+st) / userHZ, nil
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

// cpuSeconds is a live process's user+system time so far.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read cpu time of %d: %w", pid, err)
	}
	return ParseStatCPU(string(b))
}

// peakRSS is a live process's peak resident set (VmHWM) in bytes.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("read peak rss of %d: %w", pid, err)
	}
	return ParseVmHWM(string(b))
}
