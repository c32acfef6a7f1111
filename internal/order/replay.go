package order

import (
	"context"
	"time"
)

// replayLookupTimeout bounds the MySQL read of a replayed order's status.
const replayLookupTimeout = 200 * time.Millisecond

// ReplayedStatus is the status of the order an Idempotency-Key reserved for
// userID: Redis keeps the key after the order is paid or cancelled, and
// only MySQL knows which. An order not in MySQL yet is pending; so is one
// MySQL cannot be asked about now, since a replay must still answer while
// MySQL is down (purchases go on from Redis then).
func ReplayedStatus(ctx context.Context, p Persisted, orderID, userID string) string {
	// A storm of retries must not queue on a slow MySQL: past this, the
	// replay answers as it did before the order could be looked up.
	ctx, cancel := context.WithTimeout(ctx, replayLookupTimeout)
	defer cancel()
	o, err := p.Get(ctx, orderID)
	if err != nil || o.UserID != userID {
		return StatusPending
	}
	return o.Status
}
