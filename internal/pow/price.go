package pow

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Policy is how the difficulty adapts. Everyone pays Base; a client network
// (an IPv4 /24, an IPv6 /64) pays one bit more, twice the work, for each
// doubling of its requests a minute beyond NetworkFree, since that is what
// a farm of bots looks like from the server; a shopper pays one bit more per
// proof of theirs refused lately (up to ShopperFailuresMax), and a network
// one per doubling of its refused proofs beyond NetworkFailuresFree. "Lately"
// is until FailureMemory has passed without a refusal.
type Policy struct {
	Base                int
	NetworkFree         int64 // requests a minute
	ShopperFailuresMax  int64
	NetworkFailuresFree int64
	FailureMemory       time.Duration
}

// DefaultPolicy is Policy at base difficulty base. Sixty requests a
// minute is thirty shoppers of one office or carrier NAT each asking for a
// challenge and joining; ten refused proofs from a network in ten minutes
// is more than honest clients with a slow clock or a double click send.
func DefaultPolicy(base int) Policy {
	return Policy{Base: base, NetworkFree: 60, ShopperFailuresMax: 8, NetworkFailuresFree: 10, FailureMemory: 10 * time.Minute}
}

// Difficulty is what the policy asks of a shopper whose network made rate
// requests this minute and who, with their network, had shopperFails and
// networkFails proofs refused lately; at most MaxDifficulty.
func (p Policy) Difficulty(rate, shopperFails, networkFails int64) int {
	d := p.Base + Steps(rate, p.NetworkFree) + int(min(max(shopperFails, 0), p.ShopperFailuresMax)) +
		Steps(networkFails, p.NetworkFailuresFree)
	return min(max(d, 0), MaxDifficulty)
}

// Steps is how many times n has doubled beyond free: 0 up to free, 1 up to
// twice free, 2 up to four times, and so on.
func Steps(n, free int64) int {
	if free < 1 || n <= free {
		return 0
	}
	return bits.Len64(uint64((n - 1) / free))
}

// Pricer keeps the counts a Policy reads in Redis, so every server asks the
// same of a network: a per-network counter per minute (the rate is the
// larger of this minute's and the last one's, so a new minute forgives
// nothing), and counters of refused proofs per shopper and per network.
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

// Ask counts one request from network (a challenge asked for, or a proof
// refused), and one refused proof of user and network when failed, and
// returns the difficulty user on network must solve now. It costs one
// round trip (a pipeline: its keys may live on several cluster nodes).
func (p *Pricer) Ask(ctx context.Context, user, network string, failed bool) (int, error) {
	minute := p.now().Unix() / 60
	cur, prev := p.keys.PowRate(network, minute), p.keys.PowRate(network, minute-1)
	sf, nf := p.keys.PowShopperFailures(user), p.keys.PowNetworkFailures(network)
	pipe := p.rdb.Pipeline()
	rate := pipe.Incr(ctx, cur)
	pipe.Expire(ctx, cur, 2*time.Minute)
	if failed {
		pipe.Incr(ctx, sf)
		pipe.Expire(ctx, sf, p.policy.FailureMemory)
		pipe.Incr(ctx, nf)
		pipe.Expire(ctx, nf, p.policy.FailureMemory)
	}
	last, shopper, net := pipe.Get(ctx, prev), pipe.Get(ctx, sf), pipe.Get(ctx, nf)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return p.policy.Base, fmt.Errorf("price proof of work: %w", err)
	}
	return p.policy.Difficulty(max(rate.Val(), count(last)), count(shopper), count(net)), nil
}

// Seen counts one request from network: a proof that passed.
func (p *Pricer) Seen(ctx context.Context, network string) error {
	cur := p.keys.PowRate(network, p.now().Unix()/60)
	pipe := p.rdb.Pipeline()
	pipe.Incr(ctx, cur)
	pipe.Expire(ctx, cur, 2*time.Minute)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("count proof of work: %w", err)
	}
	return nil
}

// count is a counter's value, 0 when it does not exist.
func count(c *redis.StringCmd) int64 {
	n, err := c.Int64()
	if err != nil {
		return 0
	}
	return n
}
