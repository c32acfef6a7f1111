package draw

import (
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/webhook"
)

// Offered is a draw.offered event's data: what the shop needs to tell the
// shopper (by e-mail, say) that a unit is theirs to buy, and until when. The
// deadline is the offer's when made; a pause, or an offer Redis lacked
// after a crash, moves it later, never earlier, without a new event (a
// paused sale would send one a second): GET /entry has the live one.
type Offered struct {
	ItemID           int64     `json:"item_id"`
	EntryID          string    `json:"entry_id"`
	UserID           string    `json:"user_id"`
	VariantID        int64     `json:"variant_id"`
	Place            int       `json:"place"`
	OfferedAt        time.Time `json:"offered_at"`
	PurchaseDeadline time.Time `json:"purchase_deadline"`
	// Backfill: passed down from a winner who did not buy, rather than
	// drawn.
	Backfill bool `json:"backfill"`
}

func offered(r entryRow, backfill bool) webhook.Event {
	return webhook.Event{Type: webhook.DrawOffered, Subject: webhook.OfferSubject(r.EntryID), Data: Offered{
		ItemID: r.ItemID, EntryID: r.EntryID, UserID: r.UserID, VariantID: r.VariantID, Place: *r.Place,
		OfferedAt: r.OfferedAt.UTC(), PurchaseDeadline: r.Deadline.UTC(), Backfill: backfill}}
}

// drawnEvents are the events of its draw: sale.drawn, as the sale shows
// once drawn, and an offer per winner.
func drawnEvents(it catalog.Item, now time.Time, rows []entryRow) []webhook.Event {
	evs := []webhook.Event{{Type: webhook.SaleDrawn, Subject: webhook.SaleSubject(it.ID), Data: it.StoredView(now)}}
	for _, r := range rows {
		if r.OfferState != nil {
			evs = append(evs, offered(r, false))
		}
	}
	return evs
}
