package redisconn

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// Listen passes each message published on channel to heard until ctx ends.
// go-redis subscribes again after a dropped connection; what was published
// meanwhile is lost, so listeners must tolerate a missed message.
func Listen(ctx context.Context, rdb redis.UniversalClient, channel string, heard func(payload string)) error {
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
			heard(msg.Payload)
		}
	}
}
