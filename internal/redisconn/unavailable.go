package redisconn

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Unavailable tells a Redis that cannot be reached or cannot serve for
// now (a caller should retry) from a bug. The network's failures are
// counted too, as the Redis client meets them first; a MySQL connection's
// own are database.Unavailable's.
func Unavailable(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || // a Redis connection dropped mid-answer (a failover endpoint moving)
		errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, redis.ErrPoolTimeout) ||
		busy(err)
}

// busy reports the answers of a Redis that is there but cannot serve for
// now: a cluster without a master for some slot (CLUSTERDOWN, until a
// failover or a restart), a slot being moved (TRYAGAIN), a node loading its
// data (LOADING), a replica cut off from its master (MASTERDOWN), or a
// node that no longer serves the key: MOVED or ASK (a slot moved), READONLY
// (a primary demoted by a failover before the slot map caught up).
func busy(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	for _, p := range []string{"CLUSTERDOWN", "TRYAGAIN", "LOADING", "MASTERDOWN", "MOVED ", "ASK ", "READONLY "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
