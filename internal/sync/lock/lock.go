// Package lock is the one Redis lock of the project. A lock is a Redis hash
// {owner, count} with a PEXPIRE, so a holder that dies loses it after its
// ttl; obtaining, refreshing and releasing are each one Lua script
// (lua/lock_*.lua), so ownership is checked and changed in one step. The
// same owner may obtain a lock again (reentrancy); it is freed when every
// hold has been released.
//
// It has two kinds of holder. Singleton jobs (the unpaid-order sweeper, the
// reconciliation) must run on one server at a time however many are up:
// Jobs runs them once per period in the fleet, each through Locker.Run,
// which keeps the lock alive while the job runs and cancels the job's
// context if the lock is lost. And each sale has a sync lock
// (stocksync.Syncer.Exclusive, through ObtainWait and Release) under which a
// warm, a repair or a stock change runs, so that none of them measures the
// stores while another changes them.
//
// It lives under internal/sync (the folder the project layout names) but is
// not called "sync", so it never shadows the standard library's package.
package lock

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/ctxtime"
	"github.com/seckill/seckill/lua"
)

// codeNotOurs is what every lock script returns when the lock is not the
// caller's (see the scripts' headers); other replies are hold counts >= 0.
const codeNotOurs = -1

// What codeNotOurs means to each operation: Obtain, Refresh and Release
// end with these, wrapped with the operation and the lock's name, so
// compare them with errors.Is.
var (
	ErrNotObtained = errors.New("lock: not obtained, held by another owner")
	ErrLockLost    = errors.New("lock: lost, expired or taken by another owner")
	ErrNotHeld     = errors.New("lock: not held by this owner")
)

// Locker obtains locks whose keys start with a prefix.
type Locker struct {
	rdb                      redis.UniversalClient
	prefix                   string
	obtain, refresh, release *redis.Script
}

// New returns a Locker whose keys are prefix + ":lock:{" + name + "}".
func New(rdb redis.UniversalClient, prefix string) *Locker {
	return &Locker{
		rdb:     rdb,
		prefix:  prefix,
		obtain:  redis.NewScript(lua.LockObtain),
		refresh: redis.NewScript(lua.LockRefresh),
		release: redis.NewScript(lua.LockRelease),
	}
}

// Key is the Redis key of the lock called name. The name is the hash tag, so
// the key is valid on Redis Cluster.
func (l *Locker) Key(name string) string { return l.prefix + ":lock:{" + name + "}" }

// NewOwner returns a token unique to one holder: host, process and random
// part, so a lock's owner can be traced to a server in redis-cli.
func NewOwner() string { return ownerPrefix + rand.Text() }

// ownerPrefix names this process in owner tokens; computed once, since every
// warm, repair and cancel takes a lock with an owner of its own.
var ownerPrefix = func() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	return host + "-" + strconv.Itoa(os.Getpid()) + "-"
}()

// Lock is one hold of an obtained lock.
type Lock struct {
	l        *Locker
	name     string
	key      string
	owner    string
	released atomic.Bool
}

// Obtain takes the lock called name for owner for ttl (at least 1ms), or
// takes it again if owner already holds it, adding one hold and renewing the
// ttl. It does not wait: it returns ErrNotObtained if another owner holds the
// lock, or a Redis error.
func (l *Locker) Obtain(ctx context.Context, name, owner string, ttl time.Duration) (*Lock, error) {
	if ttl < time.Millisecond {
		return nil, fmt.Errorf("obtain lock %q: ttl %v is below 1ms", name, ttl)
	}
	key := l.Key(name)
	res, err := l.obtain.Run(ctx, l.rdb, []string{key}, owner, ttl.Milliseconds()).Result()
	if _, err := result(res, err, ErrNotObtained); err != nil {
		return nil, fmt.Errorf("obtain lock %q: %w", name, err)
	}
	return &Lock{l: l, name: name, key: key, owner: owner}, nil
}

// ObtainWait is Obtain retried with a short, jittered backoff until it
// succeeds or wait has passed. It returns ErrNotObtained if the lock stayed
// held elsewhere, ctx's error if ctx ended first, or a Redis error.
func (l *Locker) ObtainWait(ctx context.Context, name, owner string, ttl, wait time.Duration) (*Lock, error) {
	deadline := time.Now().Add(wait)
	backoff := 4 * time.Millisecond
	for {
		lk, err := l.Obtain(ctx, name, owner, ttl)
		left := time.Until(deadline)
		if !errors.Is(err, ErrNotObtained) || left <= 0 {
			return lk, err
		}
		if err := ctxtime.Sleep(ctx, min(jitter(backoff), left)); err != nil {
			return nil, fmt.Errorf("obtain lock %q: %w", name, err)
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// Name is the lock's name.
func (lk *Lock) Name() string { return lk.name }

// Owner is the owner token the lock was obtained for.
func (lk *Lock) Owner() string { return lk.owner }

// Refresh renews the lock's ttl (at least 1ms) for all its holds. It returns
// ErrLockLost if the lock expired or another owner holds it, or a Redis error.
func (lk *Lock) Refresh(ctx context.Context, ttl time.Duration) error {
	if ttl < time.Millisecond {
		return fmt.Errorf("refresh lock %q: ttl %v is below 1ms", lk.name, ttl)
	}
	res, err := lk.l.refresh.Run(ctx, lk.l.rdb, []string{lk.key}, lk.owner, ttl.Milliseconds()).Result()
	if _, err := result(res, err, ErrLockLost); err != nil {
		return fmt.Errorf("refresh lock %q: %w", lk.name, err)
	}
	return nil
}

// Release gives back this hold; the lock is deleted when its owner has
// released every hold. It returns ErrNotHeld if the lock expired, another
// owner holds it, or this hold was already released, or a Redis error.
func (lk *Lock) Release(ctx context.Context) error {
	// Once per hold: a second Release must not give back the owner's other
	// holds of a reentrant lock.
	if lk.released.Swap(true) {
		return fmt.Errorf("release lock %q: %w", lk.name, ErrNotHeld)
	}
	res, err := lk.l.release.Run(ctx, lk.l.rdb, []string{lk.key}, lk.owner).Result()
	if _, err = result(res, err, ErrNotHeld); err != nil {
		if !errors.Is(err, ErrNotHeld) {
			lk.released.Store(false) // Redis failed: the hold may still be ours
		}
		return fmt.Errorf("release lock %q: %w", lk.name, err)
	}
	return nil
}

// TTL is the time the lock has left, or 0 if it is no longer ours. It
// returns only Redis errors.
func (lk *Lock) TTL(ctx context.Context) (time.Duration, error) {
	var owner *redis.StringCmd
	var pttl *redis.DurationCmd
	// MULTI, so the owner and the ttl are read from the same state.
	_, err := lk.l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		owner = p.HGet(ctx, lk.key, "owner")
		pttl = p.PTTL(ctx, lk.key)
		return nil
	})
	if errors.Is(err, redis.Nil) || (err == nil && owner.Val() != lk.owner) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ttl of lock %q: %w", lk.name, err)
	}
	return max(pttl.Val(), 0), nil
}

// result maps a lock script's reply to a hold count, in one place for all
// three scripts: codeNotOurs becomes notOurs, the operation's sentinel.
func result(res any, err error, notOurs error) (int64, error) {
	if err != nil {
		return 0, err
	}
	n, ok := res.(int64)
	switch {
	case !ok:
		return 0, fmt.Errorf("lock: unexpected script reply %T %v", res, res)
	case n == codeNotOurs:
		return 0, notOurs
	case n < 0:
		return 0, fmt.Errorf("lock: unknown script code %d", n)
	}
	return n, nil
}
