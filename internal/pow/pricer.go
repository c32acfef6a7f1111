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
// same of a network. Per network level and minute: a HyperLogLog of the
// members that asked, and on the narrow level a counter of accepted proofs
// (the rates are the larger of this minute's and the last one's, so a new
// minute forgives nothing); per level and window of FailureMemory a
// HyperLogLog of the members with paid failures (read as the larger of this
// window's and the last one's: a member is remembered for one to two
// windows). Per shopper: a counter of challenges asked for a minute and one
// of refused proofs, kept until FailureMemory passes without one. A HyperLogLog stays within 12 kB however many accounts a farm
// brings, and counts a member once however often it comes back; its count
// is exact for a few dozen members (a hundred here, tried) and within
// about 1% beyond, which moves a doubling's threshold by as much.
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
// trip (a pipeline: its keys may live on several cluster nodes). The
// request names its shopper among the narrow network's askers and its
// narrow network among the wide one's: however often a shopper asks, the
// network sees one more member, and the rest of their requests count on
// their own term. If any command fails, Ask returns the base and the error.
func (p *Pricer) Ask(ctx context.Context, user string, net Network, o Outcome) (int, error) {
	now := p.now().Unix()
	at := period{minute: now / 60, window: now / max(int64(p.policy.FailureMemory/time.Second), 1)}
	pipe := p.rdb.Pipeline()
	narrow := p.level(ctx, pipe, net.Narrow, user, at, o, true)
	wide := p.level(ctx, pipe, net.Wide, net.Narrow, at, o, false)
	own := p.shopper(ctx, pipe, user, at.minute, o)
	if err := firstErr(pipe.Exec(ctx)); err != nil {
		return p.policy.Base, fmt.Errorf("price proof of work: %w", err)
	}
	return p.policy.Difficulty(narrow.load(), wide.load(), own.load()), nil
}

// Seen counts a proof that passed from net: toward its narrow network's
// rate only. A wide network's rate would let one narrow network's accounts,
// solving at their own raised price, raise everyone's in the wide one; a
// farm spread over many narrow networks shows in the wide one's askers.
func (p *Pricer) Seen(ctx context.Context, net Network) error {
	pipe := p.rdb.Pipeline()
	p.countRate(ctx, pipe, p.keys.PowRate(net.Narrow, p.now().Unix()/60), 1)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("count proof of work: %w", err)
	}
	return nil
}

// period is when a request is counted: its minute since the epoch, and its
// window of FailureMemory.
type period struct{ minute, window int64 }

// levelCmds are the replies that make a network level's Load.
type levelCmds struct {
	rate, last      *redis.StringCmd
	askers, before  *redis.IntCmd
	failed, failing *redis.IntCmd
}

// level queues on pipe what o of member adds to network (nothing when
// network is empty) and the reads of its load, with its rate if rated.
// Every member (a shopper of a narrow network, a narrow network of a wide
// one) counts once however often it comes, so one member alone cannot
// raise the level.
func (p *Pricer) level(ctx context.Context, pipe redis.Pipeliner, network, member string, at period, o Outcome, rated bool) levelCmds {
	if network == "" {
		return levelCmds{}
	}
	minute := at.minute
	askers := p.keys.PowAskers(network, minute)
	pipe.PFAdd(ctx, askers, member)
	pipe.Expire(ctx, askers, 2*time.Minute)
	l := levelCmds{askers: pipe.PFCount(ctx, askers), before: pipe.PFCount(ctx, p.keys.PowAskers(network, minute-1))}
	if rated {
		l.rate, l.last = pipe.Get(ctx, p.keys.PowRate(network, minute)), pipe.Get(ctx, p.keys.PowRate(network, minute-1))
	}
	p.failing(ctx, pipe, &l, network, member, at.window, o)
	return l
}

// failing queues on pipe adding member to network's failing ones of this
// window if o is Paid, and the reads of this window's and the last one's.
// A window's key expires once, two windows after it was first written
// (EXPIRE NX): were each failure to push its expiry on, a network with a
// failure every few minutes would never forget the others.
func (p *Pricer) failing(ctx context.Context, pipe redis.Pipeliner, l *levelCmds, network, member string, window int64, o Outcome) {
	cur := p.keys.PowFailingShoppers(network, window)
	if o == Paid {
		pipe.PFAdd(ctx, cur, member)
		pipe.ExpireNX(ctx, cur, 2*p.policy.FailureMemory)
	}
	l.failed, l.failing = pipe.PFCount(ctx, p.keys.PowFailingShoppers(network, window-1)), pipe.PFCount(ctx, cur)
}

// shopperCmds are the replies that make a shopper's own term.
type shopperCmds struct{ asks, last, failures *redis.StringCmd }

// shopper queues on pipe what o adds to user's own counts and their reads:
// a challenge handed out for the asking is one more ask this minute, a
// refused proof one more failure.
func (p *Pricer) shopper(ctx context.Context, pipe redis.Pipeliner, user string, minute int64, o Outcome) shopperCmds {
	asks, sf := p.keys.PowShopperAsks(user, minute), p.keys.PowShopperFailures(user)
	if o == Asked {
		p.countRate(ctx, pipe, asks, 1)
	} else {
		pipe.Incr(ctx, sf)
		pipe.Expire(ctx, sf, p.policy.FailureMemory)
	}
	return shopperCmds{asks: pipe.Get(ctx, asks), last: pipe.Get(ctx, p.keys.PowShopperAsks(user, minute-1)), failures: pipe.Get(ctx, sf)}
}

// countRate queues adding n to the count of this minute at key, which is
// read until the next minute ends.
func (p *Pricer) countRate(ctx context.Context, pipe redis.Pipeliner, key string, n int64) {
	pipe.IncrBy(ctx, key, n)
	pipe.Expire(ctx, key, 2*time.Minute)
}

// load is the level's Load once the pipeline ran; zero for no level.
func (l levelCmds) load() Load {
	if l.askers == nil {
		return Load{}
	}
	return Load{Rate: max(count(l.rate), count(l.last)), Askers: max(l.askers.Val(), l.before.Val()),
		Failing: max(l.failed.Val(), l.failing.Val())}
}

// load is the shopper's own counts once the pipeline ran.
func (s shopperCmds) load() Own {
	return Own{Asks: max(count(s.asks), count(s.last)), Failures: count(s.failures)}
}

// firstErr is the first error of a pipeline's commands but redis.Nil, the
// routine answer of a read of a key not written yet. Exec reports only the
// first error, which a redis.Nil would hide a failing node's behind.
func firstErr(cmds []redis.Cmder, err error) error {
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
	}
	return nil
}

// count is a counter's value, 0 when it does not exist or was not read.
func count(c *redis.StringCmd) int64 {
	if c == nil {
		return 0
	}
	n, err := c.Int64()
	if err != nil {
		return 0
	}
	return n
}
