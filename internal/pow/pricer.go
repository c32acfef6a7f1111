package pow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Pricer keeps the counts a Policy reads in Redis, so every server asks the
// same of a network: per network level a counter of requests per minute
// (the rate is the larger of this minute's and the last one's, so a new
// minute forgives nothing) and a HyperLogLog of the shoppers with paid
// failures, and per shopper a counter of refused proofs. A HyperLogLog
// stays within 12 kB however many accounts a farm brings, and counts a
// shopper once however often they fail; its count is exact for a few
// dozen shoppers (a hundred here, tried) and within about 1% beyond, which
// moves a doubling's threshold by as much.
type Pricer struct {
	rdb    redis.UniversalClient
	keys   keyspace.Space
	policy Policy
	now    func() time.Time
}

// NewPricer returns a pricer on rdb under keys; now is the server's clock,
// whose minutes the rates are counted in.
func NewPricer(rdb redis.UniversalClient, keys keyspace.Space, p Policy, now func() time.Time) *Pricer {
	return &Pricer{rdb: rdb, keys: keys, policy: p, now: now}
}

// Ask counts what o says of a request of user from net (OutcomeOf) and
// returns the difficulty user on net must solve now. It costs one round
// trip (a pipeline: its keys may live on several cluster nodes).
func (p *Pricer) Ask(ctx context.Context, user string, net Network, o Outcome) (int, error) {
	minute := p.now().Unix() / 60
	pipe := p.rdb.Pipeline()
	narrow := p.level(ctx, pipe, net.Narrow, user, minute, o)
	wide := p.level(ctx, pipe, net.Wide, user, minute, o)
	sf := p.keys.PowShopperFailures(user)
	if o != Asked {
		pipe.Incr(ctx, sf)
		pipe.Expire(ctx, sf, p.policy.FailureMemory)
	}
	shopper := pipe.Get(ctx, sf)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return p.policy.Base, fmt.Errorf("price proof of work: %w", err)
	}
	return p.policy.Difficulty(narrow.load(), wide.load(), count(shopper)), nil
}

// Seen counts one request from net: a proof that passed.
func (p *Pricer) Seen(ctx context.Context, net Network) error {
	minute := p.now().Unix() / 60
	pipe := p.rdb.Pipeline()
	for _, n := range []string{net.Narrow, net.Wide} {
		if n != "" {
			p.countRate(ctx, pipe, n, minute, 1)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("count proof of work: %w", err)
	}
	return nil
}

// levelCmds are the replies that make a network level's Load.
type levelCmds struct {
	rate    *redis.IntCmd
	last    *redis.StringCmd
	failing *redis.IntCmd
}

// level queues on pipe what o adds to network (nothing when network is
// empty) and the reads of its load.
func (p *Pricer) level(ctx context.Context, pipe redis.Pipeliner, network, user string, minute int64, o Outcome) levelCmds {
	if network == "" {
		return levelCmds{}
	}
	var n int64 // a refusal is read, not counted
	if o == Asked {
		n = 1
	}
	l := levelCmds{rate: p.countRate(ctx, pipe, network, minute, n), last: pipe.Get(ctx, p.keys.PowRate(network, minute-1))}
	failing := p.keys.PowFailingShoppers(network)
	if o == Paid {
		pipe.PFAdd(ctx, failing, user)
		pipe.Expire(ctx, failing, p.policy.FailureMemory)
	}
	l.failing = pipe.PFCount(ctx, failing)
	return l
}

// countRate queues adding n to network's count of this minute, which is
// read until the next minute ends.
func (p *Pricer) countRate(ctx context.Context, pipe redis.Pipeliner, network string, minute, n int64) *redis.IntCmd {
	cur := p.keys.PowRate(network, minute)
	rate := pipe.IncrBy(ctx, cur, n)
	pipe.Expire(ctx, cur, 2*time.Minute)
	return rate
}

// load is the level's Load once the pipeline ran; zero for no level.
func (l levelCmds) load() Load {
	if l.rate == nil {
		return Load{}
	}
	return Load{Rate: max(l.rate.Val(), count(l.last)), Failing: l.failing.Val()}
}

// count is a counter's value, 0 when it does not exist.
func count(c *redis.StringCmd) int64 {
	n, err := c.Int64()
	if err != nil {
		return 0
	}
	return n
}
