package soldout

import (
	"context"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Listen applies the returns other servers announce on channel (see
// keyspace.Space.ReturnsChannel) until ctx ends. go-redis re-subscribes
// after a dropped connection; what was announced meanwhile is lost, which
// the marks' TTL bounds.
func (m *Marks) Listen(ctx context.Context, rdb redis.UniversalClient, channel string, log *slog.Logger) error {
	if m == nil || m.ttl <= 0 {
		<-ctx.Done()
		return nil
	}
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
			if item, returns, ok := keyspace.ParseReturn(msg.Payload); ok {
				m.Returned(item, returns)
			} else {
				log.Warn("ignored a malformed stock-returned message", "payload", msg.Payload)
			}
		}
	}
}
