package httpapi

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

// isUnavailable tells a store that cannot be reached (a shopper should retry:
// 503) from a bug (500).
func isUnavailable(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || // a Redis connection dropped mid-answer (a failover endpoint moving)
		errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, redis.ErrPoolTimeout) ||
		redisBusy(err)
}

// redisBusy reports the answers of a Redis that is there but cannot serve
// for now: a cluster without a master for some slot (CLUSTERDOWN, until a
// failover or a restart), a slot being moved (TRYAGAIN), a node loading its
// data (LOADING), a replica cut off from its master (MASTERDOWN), or a
// node that no longer serves the key: MOVED or ASK (a slot moved), READONLY
// (a primary demoted by a failover before the slot map caught up).
func redisBusy(err error) bool {
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
