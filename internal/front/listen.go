package front

import (
	"context"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
)

// Listen passes Returned the returns servers announce on channel (see
// keyspace.Space.ReturnsChannel) until ctx ends. go-redis re-subscribes
// after a dropped connection; what was announced meanwhile is lost, which
// the marks' TTL bounds.
func (f *Front) Listen(ctx context.Context, rdb redis.UniversalClient, channel string, log *slog.Logger) error {
	return redisconn.Listen(ctx, rdb, channel, func(payload string) {
		if r, ok := keyspace.ParseReturn(payload); ok {
			f.Returned(r)
		} else {
			log.Warn("ignored a malformed stock-returned message", "payload", payload)
		}
	})
}
