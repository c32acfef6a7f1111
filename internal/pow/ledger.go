package pow

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Ledger remembers spent challenges in Redis, so one solution buys one
// action, on any server. A mark lives until its challenge would have
// expired: after that the challenge is refused as expired anyway.
type Ledger struct {
	rdb  redis.UniversalClient
	keys keyspace.Space
	now  func() time.Time
}

// NewLedger returns a ledger on rdb under keys.
func NewLedger(rdb redis.UniversalClient, keys keyspace.Space, now func() time.Time) *Ledger {
	return &Ledger{rdb: rdb, keys: keys, now: now}
}

// Spend marks c used; ErrSpent if it already was.
func (l *Ledger) Spend(ctx context.Context, c Challenge) error {
	ttl := max(c.Expires.Sub(l.now()), time.Second)
	ok, err := l.rdb.SetNX(ctx, l.keys.Item(c.ItemID).SpentChallenge(c.ID), 1, ttl).Result()
	if err != nil {
		return fmt.Errorf("spend challenge: %w", err)
	}
	if !ok {
		return ErrSpent
	}
	return nil
}
