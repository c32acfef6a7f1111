package lock

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// ClaimPeriod claims the period of length every that holds now for the job
// called name: the first caller in the period gets true, every later one
// false, across all servers. A lock alone keeps two servers from running a
// job at once but lets each of N servers run it once per period, one after
// the other; the claim makes a periodic job run once per period in the whole
// fleet. Servers' clocks are taken to agree to well within a period. It
// returns only Redis errors.
func (l *Locker) ClaimPeriod(ctx context.Context, name string, every time.Duration, now time.Time) (bool, error) {
	if every <= 0 {
		return false, fmt.Errorf("claim period of %q: period %v is not positive", name, every)
	}
	slot := now.UnixNano() / int64(every)
	key := l.prefix + ":period:{" + name + "}:" + strconv.FormatInt(slot, 10)
	// Kept two periods: long enough that no server still in the period can
	// claim it again, short enough that claims never pile up.
	ok, err := l.rdb.SetNX(ctx, key, 1, 2*every).Result()
	if err != nil {
		return false, fmt.Errorf("claim period of %q: %w", name, err)
	}
	return ok, nil
}
