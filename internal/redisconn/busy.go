package redisconn

import (
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ScriptBusy reports Redis's answer while a script runs past its busy
// limit (busy-reply-threshold, lua-time-limit before 7.0): every command but
// SCRIPT KILL is refused until the script ends or is killed. The HTTP layer
// answers it 503 and the metrics count it, both from here.
func ScriptBusy(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "BUSY ")
}
