package sale

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/sync/lock"
	"github.com/seckill/seckill/internal/webhook"
)

// UseOutbox has every change of a sale and its orders announce itself
// through w, in the transaction that makes it.
func (s *Service) UseOutbox(w *webhook.Writer) {
	s.out = w
	s.orders.UseOutbox(w)
}

// announceChange writes the events an update of a sale from cur to next
// causes, in its transaction: paused, resumed, and ended when the update
// ends the sale (an admin's End, or an end moved into the past). Whether
// the end was announced is recorded even with no endpoint configured, so
// configuring one later does not announce every past sale's end.
func (s *Service) announceChange(tx *gorm.DB, cur, next catalog.Item) error {
	now := s.now()
	var types []string
	switch {
	case !cur.Paused && next.Paused:
		types = append(types, webhook.SalePaused)
	case cur.Paused && !next.Paused:
		types = append(types, webhook.SaleResumed)
	}
	if now.Before(next.EndsAt) {
		if !next.EndsAt.Equal(cur.EndsAt) { // reopened, or moved: its end is news again
			if err := tx.Exec("UPDATE items SET end_announced = FALSE WHERE id = ?", next.ID).Error; err != nil {
				return err
			}
		}
	} else {
		first, err := markEndAnnounced(tx, next.ID, now)
		if err != nil {
			return err
		}
		if first {
			types = append(types, webhook.SaleEnded)
		}
	}
	return s.announceSale(tx, next, now, types...)
}

// markEndAnnounced records that the sale's end, reached by now, is being
// announced; false if it was already.
func markEndAnnounced(tx *gorm.DB, id int64, now time.Time) (bool, error) {
	res := tx.Exec("UPDATE items SET end_announced = TRUE WHERE id = ? AND end_announced = FALSE AND ends_at <= ?", id, now)
	if res.Error != nil {
		return false, fmt.Errorf("mark end of sale %d announced: %w", id, res.Error)
	}
	return res.RowsAffected == 1, nil
}

func (s *Service) announceSale(tx *gorm.DB, it catalog.Item, now time.Time, types ...string) error {
	if !s.out.On() || len(types) == 0 {
		return nil
	}
	evs := make([]webhook.Event, len(types))
	for i, t := range types {
		evs[i] = webhook.Event{Type: t, Subject: webhook.SaleSubject(it.ID), Data: it.StoredView(now)}
	}
	return s.out.Add(tx, evs...)
}

// announceBatch is how many ended sales one query of AnnounceEnds takes.
const announceBatch = 100

// AnnounceEnds writes sale.ended for every sale that reached its end by
// the clock since the last run, each in a transaction that also records it
// announced, so a crash between the two cannot announce an end twice or
// never.
func (s *Service) AnnounceEnds(ctx context.Context) error {
	for {
		now := s.now()
		var ids []int64
		err := s.db.WithContext(ctx).Raw("SELECT id FROM items WHERE end_announced = FALSE AND ends_at <= ? AND retired_at IS NULL "+
			"ORDER BY ends_at LIMIT ?", now, announceBatch).Scan(&ids).Error
		if err != nil {
			return fmt.Errorf("find ended sales: %w", err)
		}
		for _, id := range ids {
			if err := s.announceEnd(ctx, id, now); err != nil {
				return err
			}
		}
		if len(ids) < announceBatch {
			return nil
		}
	}
}

func (s *Service) announceEnd(ctx context.Context, id int64, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		first, err := markEndAnnounced(tx, id, now)
		if err != nil || !first || !s.out.On() {
			return err
		}
		it, err := catalog.NewStore(tx).Get(ctx, id)
		if err != nil {
			return err
		}
		return s.announceSale(tx, it, now, webhook.SaleEnded)
	})
}

// EndsJob is AnnounceEnds as a periodic job of the fleet.
func (s *Service) EndsJob(every time.Duration) lock.Job {
	return lock.Job{Name: "sale-ends", Every: every, Run: s.AnnounceEnds}
}
