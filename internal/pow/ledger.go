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
// expired, after which it is refused as expired anyway, and SpentMargin
// more.
type Ledger struct {
	rdb  redis.UniversalClient
	keys keyspace.Space
	now  func() time.Time
}

// NewLedger returns a ledger on rdb under keys.
func NewLedger(rdb redis.UniversalClient, keys keyspace.Space, now func() time.Time) *Ledger {
	return &Ledger{rdb: rdb, keys: keys, now: now}
}

// SpentMargin is how long a spent mark outlives its challenge. Each server
// judges a challenge's expiry by its own clock, and the mark's life is
// reckoned by the spending server's: when two clocks differ by Δ (the
// spender's ahead, or another server's behind), a server would take the
// proof again for Δ after its mark is gone. Two minutes is far beyond the
// skew of servers kept by NTP and covers a VM resumed with a stale clock
// until it resyncs; the price is one small key per spend kept two minutes
// longer.
const SpentMargin = 2 * time.Minute

// Spend marks c used; ErrSpent if it already was.
func (l *Ledger) Spend(ctx context.Context, c Challenge) error {
	ttl := max(c.Expires.Sub(l.now()), 0) + SpentMargin
	ok, err := l.rdb.SetNX(ctx, l.keys.Item(c.ItemID).SpentChallenge(c.ID), 1, ttl).Result()
	if err != nil {
		return fmt.Errorf("spend challenge: %w", err)
	}
	if !ok {
		return ErrSpent
	}
	return nil
}
