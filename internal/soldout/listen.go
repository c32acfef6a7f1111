package soldout

import (
	"context"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Listen passes heard the returns servers announce on channel (see
// keyspace.Space.ReturnsChannel) until ctx ends. go-redis re-subscribes
// after a dropped connection; what was announced meanwhile is lost, which
// the marks' TTL bounds.
func Listen(ctx context.Context, rdb redis.UniversalClient, channel string, heard func(keyspace.Return), log *slog.Logger) error {
	ps := rdb.Subscribe(ctx, channel)
	defer ps.Close()
	msgs := ps.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg, ok := <-msgs:
			if !ok {
				return nil
			}
			if r, ok := keyspace.ParseReturn(msg.Payload); ok {
				heard(r)
			} else {
				log.Warn("ignored a malformed stock-returned message", "payload", msg.Payload)
			}
		}
	}
}
