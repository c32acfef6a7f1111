package sale

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/sync/lock"
)

// ErrNotRetirable is matched (errors.Is) by every NotRetirableError.
var ErrNotRetirable = errors.New("sale: not retirable yet")

// Why a sale cannot be retired yet.
const (
	NotEnded        = "the sale has not ended"
	JustEnded       = "the sale ended less than a minute ago: purchases already on their way may still land"
	StillPersisting = "orders are still being persisted"
	AwaitingPayment = "orders are awaiting payment"
	DeadLetters     = "orders MySQL refused wait in the sale's dead letters for a person (docs/crashes.md)"
)

// RetireGrace is how long after its end a sale is left alone: a purchase
// stamped before the end may still reach the script (a coalesced batch, a
// server whose clock lags), and its order must be queued and persisted
// before the stream is removed.
const RetireGrace = time.Minute

// NotRetirableError says why a sale cannot be retired yet (one of
// NotEnded, JustEnded, StillPersisting, AwaitingPayment, DeadLetters).
type NotRetirableError struct{ Reason string }

func (e *NotRetirableError) Error() string { return ErrNotRetirable.Error() + ": " + e.Reason }

// Is makes errors.Is(err, ErrNotRetirable) true.
func (e *NotRetirableError) Is(target error) bool { return target == ErrNotRetirable }

// Retire retires a sale that is done: it has ended in MySQL (and is then
// closed in Redis, whose window the purchase script checks), every order queued in
// its stream is in MySQL and no persister holds one unacknowledged, and no
// order of it awaits payment (the payment timeout cancels those). Its Redis
// keys are removed and it leaves the registry, so the persisters stop
// reading its stream; MySQL keeps everything and records retired_at. A
// retired sale is never warmed or changed again. Retiring a retired sale
// answers it again. It runs under the sale's sync lock, which every warm
// takes too, so no warm can bring a key back in between. A sale whose dead
// letters (entries MySQL refused, never orders there) wait for a person is
// not retired. It returns the sale as retired, catalog.ErrNotFound,
// a *NotRetirableError, or the stores' errors. It is the one call site of
// a retirement: the automatic retirer and the admin API both come here.
func (s *Service) Retire(ctx context.Context, id int64) (catalog.Item, error) {
	// Half a retirement must not be abandoned because a client hung up.
	ctx = context.WithoutCancel(ctx)
	var it catalog.Item
	removed := -1 // Redis keys this call removed; -1: it retired nothing
	err := s.sync.Exclusive(ctx, id, func(ctx context.Context) error {
		var err error
		it, removed, err = s.retireLocked(ctx, id)
		return err
	})
	if err != nil {
		return catalog.Item{}, fmt.Errorf("retire item %d: %w", id, err)
	}
	if removed >= 0 {
		s.record(ctx, audit.ActionRetire, id, fields{"retired_at": nil},
			fields{"retired_at": it.RetiredAt, "redis_keys_removed": removed})
	}
	return it, nil
}

func (s *Service) retireLocked(ctx context.Context, id int64) (catalog.Item, int, error) {
	it, err := s.items.Get(ctx, id)
	if err != nil || it.RetiredAt != nil {
		return it, -1, err
	}
	if err := s.retirable(ctx, it); err != nil {
		return catalog.Item{}, -1, err
	}
	// MySQL first: from then on no warm brings a key back, even one that
	// comes after a purge long enough to outlive the sale's lock. A crash
	// before the purge leaves keys of a retired sale in the registry, which
	// the retirer's next run removes (purgeLeftovers).
	at := s.now().UTC().Truncate(time.Millisecond) // DATETIME(3)
	if err := s.items.Retire(ctx, id, at); err != nil {
		return catalog.Item{}, -1, err
	}
	n, err := s.stock.Purge(ctx, id)
	if err != nil {
		return catalog.Item{}, -1, err
	}
	s.log.Info("sale retired", "item_id", id, "redis_keys_removed", n)
	it.RetiredAt = &at
	return it, int(n), nil
}

// retirable returns nil if the sale can be retired now, else why not.
func (s *Service) retirable(ctx context.Context, it catalog.Item) error {
	switch now := s.now(); {
	case now.Before(it.EndsAt):
		return &NotRetirableError{Reason: NotEnded}
	case now.Before(it.EndsAt.Add(RetireGrace)):
		return &NotRetirableError{Reason: JustEnded}
	}
	// The purchase script checks Redis's end against the clock of the
	// server that calls it, which may lag ours by more than the grace, and
	// an "End now" may not have reached Redis: either way Redis could still
	// take an order after the queue is read, and the purge would lose it.
	// Closed first, Redis takes none, so the queue read next is complete.
	if err := s.stock.Close(ctx, it.ID); err != nil {
		return err
	}
	q, err := s.stock.Queue(ctx, it.ID)
	if err != nil {
		return err
	}
	if q.Pending > 0 {
		return &NotRetirableError{Reason: StillPersisting}
	}
	stored, err := s.inMySQL(ctx, q.Entries)
	if err != nil {
		return err
	}
	if !stored {
		return &NotRetirableError{Reason: StillPersisting}
	}
	counts, _, err := s.orders.Count(ctx, it.ID)
	if err != nil {
		return err
	}
	if counts.Confirmed > 0 {
		return &NotRetirableError{Reason: AwaitingPayment}
	}
	// A dead letter is the only record of an order the shopper was told
	// was taken and MySQL refused; removing it with the sale's keys would
	// lose it.
	if len(q.DeadLetters) > 0 {
		return &NotRetirableError{Reason: DeadLetters}
	}
	return nil
}

// inMySQL says whether every entry has its order in MySQL. An entry a
// persister stored but could not delete from the stream is done too.
func (s *Service) inMySQL(ctx context.Context, entries []keyspace.Entry) (bool, error) {
	if len(entries) == 0 {
		return true, nil
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.OrderID
	}
	found, err := s.orders.Existing(ctx, ids)
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		if !found[id] {
			return false, nil
		}
	}
	return true, nil
}

// retirePage is how many ended sales the retirer reads per query.
const retirePage = 100

// RetireDue retires every sale that ended and can be retired, and returns
// how many it retired. Sales not retirable yet are left for a later run.
func (s *Service) RetireDue(ctx context.Context) (int, error) {
	if err := s.purgeLeftovers(ctx); err != nil {
		s.log.Warn("retirer: could not look for retired sales left in redis", "err", err)
	}
	n, after := 0, int64(0)
	for {
		ended, err := s.items.ListEnded(ctx, s.now(), after, retirePage)
		if err != nil {
			return n, err
		}
		for _, it := range ended {
			after = it.ID
			_, err := s.Retire(ctx, it.ID)
			switch {
			case err == nil:
				n++
			case errors.Is(err, ErrNotRetirable):
			default:
				// One sale that cannot be retired must not hold up the rest.
				s.log.Warn("retirer: could not retire a sale", "item_id", it.ID, "err", err)
			}
		}
		if len(ended) < retirePage || ctx.Err() != nil {
			return n, ctx.Err()
		}
	}
}

// purgeLeftovers purges the keys of sales MySQL says are retired but the
// registry still lists: a retirement cut off between its two steps.
func (s *Service) purgeLeftovers(ctx context.Context) error {
	ids, err := s.stock.WarmItems(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		it, err := s.items.Get(ctx, id)
		if err != nil || it.RetiredAt == nil {
			continue // gone from MySQL, or not retired: not this function's to judge
		}
		if _, err := s.stock.Purge(ctx, id); err != nil {
			return err
		}
		s.log.Info("retirer: purged a retired sale's leftover keys", "item_id", id)
	}
	return nil
}

// RetireJob is RetireDue as a periodic job of the fleet.
func (s *Service) RetireJob(every time.Duration) lock.Job {
	return lock.Job{Name: "retirer", Every: every, Run: func(ctx context.Context) error {
		_, err := s.RetireDue(ctx)
		return err
	}}
}
