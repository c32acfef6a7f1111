package draw

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/sync/lock"
)

// Job is Run as a periodic job of the fleet: one server at a time draws and
// passes units on, so nothing is drawn or offered twice.
func (s *Service) Job(every time.Duration) lock.Job {
	return lock.Job{Name: "draws", Every: every, Run: s.Run}
}

// Run draws every draw sale whose entries have closed, then for every drawn
// sale still on settles the offers that were bought or lapsed and offers the
// units nobody holds to the next entries of the rankings. Each step is
// written so that a crash anywhere leaves a state the next run completes:
// the draw is one transaction, and an offer is written to MySQL before
// Redis, which the next run copies over if it was not.
func (s *Service) Run(ctx context.Context) error {
	now := s.now()
	// A draw whose sale ended before it ran is not due: nobody could buy.
	due, err := s.stores.Catalog.DrawsDue(ctx, now)
	if err != nil {
		return err
	}
	// One sale failing must not hold up the others' draws and offers.
	var errs []error
	for _, id := range due {
		errs = append(errs, s.draw(ctx, id))
	}
	live, err := s.stores.Catalog.DrawsOn(ctx, now)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, id := range live {
		errs = append(errs, s.pass(ctx, id))
	}
	return errors.Join(errs...)
}

// drawBatch is how many entries one statement writes back.
const drawBatch = 1000

// draw ranks the entries of sale id and offers each variant's first units,
// in one transaction under the sale's row lock: entries take a shared lock
// on it, so none lands after the ranking is read; drawn_at makes a second
// draw a no-op.
func (s *Service) draw(ctx context.Context, id int64) error {
	var offers map[string]string // user id -> offer, for Redis once committed
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		sales := s.stores.Catalog.WithTx(tx)
		it, err := sales.GetForUpdate(ctx, id)
		if err != nil || it.DrawnAt != nil {
			return err
		}
		seed, err := s.seedOf(it)
		if err != nil {
			return err
		}
		var rows []entryRow
		if err := tx.Where("item_id = ?", id).Find(&rows).Error; err != nil {
			return err
		}
		tickets := make([]Ticket, len(rows))
		byID := make(map[string]*entryRow, len(rows))
		for i := range rows {
			tickets[i] = Ticket{EntryID: rows[i].EntryID, VariantID: rows[i].VariantID}
			byID[rows[i].EntryID] = &rows[i]
		}
		u := make(map[int64]int, len(it.Variants))
		for _, v := range it.Variants {
			u[v.ID] = v.StockTotal
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		until := deadline(it, now)
		offers = placeAll(Rank(seed, tickets, u), u, byID, now, until)
		if err := writePlaces(tx, rows); err != nil {
			return err
		}
		// The seed is stored, and public, only with the draw it made.
		if err := sales.MarkDrawn(ctx, it, now, seed); err != nil {
			return err
		}
		return s.out.Add(tx, drawnEvents(it, now, rows)...)
	})
	if errors.Is(err, errNoSeed) {
		s.log.ErrorContext(ctx, "sale not drawn: its seed cannot be derived with the draw keys configured (or, made before "+
			"draw keys, it is not in SECKILL_DRAW_LEGACY_SALES); it stays drawing until a server that can derive it draws it",
			"item_id", id, "err", err)
	}
	if err != nil {
		return fmt.Errorf("draw sale %d: %w", id, err)
	}
	s.log.InfoContext(ctx, "sale drawn", "item_id", id, "offers", len(offers))
	// Nothing in Redis is settled before the draw, so one write sets every
	// offer; a crash before it leaves them to the next run (pass).
	return s.stores.Stock.PublishOffers(ctx, id, offers)
}

// placeAll gives every entry its place in its variant's ranking and an
// open offer to each variant's first units[v]; it returns the offers by
// user id, as Redis holds them.
func placeAll(ranking map[int64][]Ticket, units map[int64]int, byID map[string]*entryRow, now, until time.Time) map[string]string {
	offers := map[string]string{}
	for v, r := range ranking {
		for i, t := range r {
			e := byID[t.EntryID]
			place := i + 1
			e.Place = &place
			if place <= units[v] {
				e.OfferState, e.OfferedAt, e.Deadline = ptr(offerOpen), &now, &until
				offers[e.UserID] = offerValue(v, until)
			}
		}
	}
	return offers
}

func writePlaces(tx *gorm.DB, rows []entryRow) error {
	for from := 0; from < len(rows); from += drawBatch {
		batch := rows[from:min(from+drawBatch, len(rows))]
		args := make([]any, 0, 9*len(batch))
		for _, r := range batch {
			args = append(args, r.ItemID, r.EntryID, r.UserID, r.VariantID, r.EnteredAt, r.Place, r.OfferState, r.OfferedAt, r.Deadline)
		}
		sql := "INSERT INTO draw_entries (item_id, entry_id, user_id, variant_id, entered_at, place, offer_state, offered_at, deadline) VALUES " +
			strings.Repeat("(?,?,?,?,?,?,?,?,?),", len(batch)-1) + "(?,?,?,?,?,?,?,?,?)" +
			" ON DUPLICATE KEY UPDATE place = VALUES(place), offer_state = VALUES(offer_state), " +
			"offered_at = VALUES(offered_at), deadline = VALUES(deadline)"
		if err := tx.Exec(sql, args...).Error; err != nil {
			return err
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
