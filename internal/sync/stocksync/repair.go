package stocksync

import (
	"context"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
)

// Repair brings a sale's Redis state back in line with MySQL after the
// persister rejected some of its orders, without stopping the sale (a full
// warm would be aborted by every purchase). It forgets the rejected buyers,
// then measures how far Redis stock is from what MySQL says it should be and
// corrects it by that much. The drift does not change as purchases go on,
// so correcting it a moment later is still exact; the sale's sync lock makes
// sure two workers never apply the same correction twice.
func (s *Syncer) Repair(ctx context.Context, itemID int64, rejected []keyspace.Entry) error {
	return s.Exclusive(ctx, itemID, func(ctx context.Context) error {
		for _, e := range rejected {
			if _, err := s.stock.Forget(ctx, itemID, e.UserID, e.OrderID); err != nil {
				return err
			}
		}
		moves, err := s.correct(ctx, itemID)
		for _, m := range moves {
			s.log.Warn("repaired redis stock after rejected orders", "item_id", itemID, "variant_id", m.variant, "delta", m.delta)
		}
		return err
	})
}

// correct measures the drift of each variant's Redis stock and removes it;
// the caller holds the sale's sync lock. It returns the changes it made. A
// sale whose Redis total no longer matches its variants is warmed again. Owed releases of
// the item are settled first: one whose Redis step was done but not recorded
// (a crash in between) would otherwise look like drift.
func (s *Syncer) correct(ctx context.Context, itemID int64) ([]move, error) {
	owed, err := order.NewStore(s.db).Unreleased(ctx, itemID, 1000)
	if err != nil {
		return nil, err
	}
	for _, o := range owed {
		if err := s.releaseLocked(ctx, o); err != nil {
			return nil, err
		}
	}
	st, err := s.Stats(ctx, itemID)
	if err != nil || st.StockRedis == nil {
		return nil, err
	}
	if st.split {
		return nil, s.warmLocked(ctx, itemID)
	}
	var moves []move
	for _, v := range st.Variants {
		if v.RedisDrift == 0 {
			continue
		}
		// Never below zero: if MySQL cannot even hold the orders still
		// queued, those will be rejected too, and repaired then.
		delta := -min(v.RedisDrift, *v.StockRedis)
		if _, err := s.stock.Adjust(ctx, itemID, v.VariantID, delta); err != nil {
			return moves, err
		}
		moves = append(moves, move{variant: v.VariantID, label: v.Label, delta: delta})
	}
	return moves, nil
}

// move is one correction of a variant's stock in Redis.
type move struct {
	variant int64
	label   string
	delta   int64
}
