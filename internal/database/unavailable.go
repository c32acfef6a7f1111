package database

import (
	"database/sql/driver"
	"errors"

	"github.com/go-sql-driver/mysql"
)

// Unavailable tells a MySQL connection that broke (a caller should retry)
// from a bug. The network's own failures are redisconn.Unavailable's.
func Unavailable(err error) bool {
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn)
}
