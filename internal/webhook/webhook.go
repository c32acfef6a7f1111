// Package webhook tells the shop's systems what happened, and checks what
// its payment provider tells seckill. Events go through a transactional
// outbox: Writer adds an event's rows in the transaction of the change it
// announces, and Dispatcher delivers them, signed (Sign), at least once, in
// order per subject, retrying with backoff for up to a day. Verify checks a
// signature on the way in.
package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"gorm.io/gorm"
)

// Event types.
const (
	OrderConfirmed = "order.confirmed"
	OrderPaid      = "order.paid"
	OrderCancelled = "order.cancelled"
	RefundRequired = "payment.refund_required"
	SaleSoldOut    = "sale.sold_out"
	SalePaused     = "sale.paused"
	SaleResumed    = "sale.resumed"
	SaleEnded      = "sale.ended"
	SaleDrawn      = "sale.drawn"   // a draw's winners are drawn
	DrawOffered    = "draw.offered" // a unit of a draw is a shopper's to buy: at the draw, or passed down
)

const (
	maxInsertRows   = 500 // rows per INSERT of the outbox
	subjectOrderPfx = "order:"
	subjectSalePfx  = "sale:"
	subjectOfferPfx = "offer:"
)

// Delivery states.
const (
	StatePending   = "pending"
	StateDelivered = "delivered"
	StateFailed    = "failed"
)

// Event is one thing that happened, about one subject.
type Event struct {
	Type    string
	Subject string // OrderSubject, SaleSubject or OfferSubject: its events arrive in order
	Data    any    // the order or sale as the API shows it
}

// OrderSubject and SaleSubject name what an event is about.
func OrderSubject(id string) string { return subjectOrderPfx + id }

// SaleSubject is OrderSubject's counterpart for sales.
func SaleSubject(id int64) string { return fmt.Sprintf("%s%d", subjectSalePfx, id) }

// OfferSubject names a draw's offer to one entry: each is made once, so
// offers need no order among themselves and are delivered side by side. An
// entry id is already unique to its sale (it is hashed with the sale's
// salt), so its first 58 hex digits (232 bits) name it within the column.
func OfferSubject(entryID string) string {
	return fmt.Sprintf("%s%.58s", subjectOfferPfx, entryID)
}

// Body is an event as receivers get it.
type Body struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	Data      any       `json:"data"`
}

// Writer adds events to the outbox. A nil Writer, or one without
// endpoints, adds nothing: events start with the first endpoint
// configured, as a payment provider's do.
type Writer struct {
	endpoints []string
	now       func() time.Time // dates the event: the clock of the sale's window
	giveUp    time.Duration
}

// NewWriter returns a writer for endpoints whose events are dated by now
// and given up on after giveUp (DefaultGiveUp when 0).
func NewWriter(endpoints []string, now func() time.Time, giveUp time.Duration) *Writer {
	if giveUp <= 0 {
		giveUp = DefaultGiveUp
	}
	return &Writer{endpoints: endpoints, now: now, giveUp: giveUp}
}

// DefaultGiveUp is how long deliveries of an event are retried.
const DefaultGiveUp = 24 * time.Hour

// On says whether events are written at all; callers skip building them
// when not.
func (w *Writer) On() bool { return w != nil && len(w.endpoints) > 0 }

// Add writes evs in tx, one row per event and endpoint; it must run in
// the transaction of the change the events announce.
func (w *Writer) Add(tx *gorm.DB, evs ...Event) error {
	if !w.On() || len(evs) == 0 {
		return nil
	}
	at := w.now().UTC()
	wall := time.Now().UTC()
	args := make([]any, 0, 8*len(evs)*len(w.endpoints))
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		q := "INSERT INTO outbox (event_id, endpoint, type, subject, body, created_at, next_attempt_at, give_up_at) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?),", n), ",")
		err := tx.Exec(q, args...).Error
		if err != nil {
			return fmt.Errorf("write %d outbox rows: %w", n, err)
		}
		args, n = args[:0], 0
		return nil
	}
	for _, ev := range evs {
		id := "evt_" + ulid.Make().String()
		body, err := json.Marshal(Body{ID: id, Type: ev.Type, CreatedAt: at, Data: ev.Data})
		if err != nil {
			return fmt.Errorf("encode %s event: %w", ev.Type, err)
		}
		for _, ep := range w.endpoints {
			args = append(args, id, ep, ev.Type, ev.Subject, body, wall, wall, wall.Add(w.giveUp))
			if n++; n == maxInsertRows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}
