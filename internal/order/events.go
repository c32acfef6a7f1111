package order

import (
	"fmt"
	"slices"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/webhook"
)

// ReasonAdmin is the cancel reason of an order an admin cancelled.
const ReasonAdmin = "admin"

// eventReasons are the cancel reasons as events name them.
var eventReasons = map[string]string{ReasonShopper: "shopper", ReasonTimeout: "payment_timeout", ReasonAdmin: "admin"}

// EventReason is a cancel reason as events and the API name it.
func EventReason(reason string) string {
	if r, ok := eventReasons[reason]; ok {
		return r
	}
	return reason
}

// EventData is an order as events show it: as the API does (with what it
// costs) and, once cancelled, why.
type EventData struct {
	View
	Reason string `json:"reason,omitempty"`
}

// UseOutbox has the store write an event for every order it confirms,
// pays or cancels, in the transaction that does it.
func (s *Store) UseOutbox(w *webhook.Writer) { s.out = w }

// pricing is what a variant's orders are labelled and cost per unit.
type pricing struct {
	ID    int64
	Label string
	Unit  int64
}

// pricesTx reads the label and unit price of variants: the variant's own
// price, else its sale's (catalog.Variant.Price, in SQL because it is read
// in the writing transaction).
func pricesTx(tx *gorm.DB, variantIDs []int64) (map[int64]pricing, error) {
	var rows []pricing
	err := tx.Raw("SELECT v.id, v.label, COALESCE(v.price_cents, i.price_cents) AS unit FROM variants v "+
		"JOIN items i ON i.id = v.item_id WHERE v.id IN ?", variantIDs).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read variant prices: %w", err)
	}
	out := make(map[int64]pricing, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

// priceRows reads the labels and current prices of the new order rows'
// variants, and returns them. A row keeps the unit price its stream entry
// carries: the price the reserve script took the order at, which is what
// the shopper was shown and pays. Only a row whose entry carries none (one
// queued by a server from before prices travelled with the reservation,
// during an upgrade) gets the price as it stands in tx, whose stock updates
// hold the sales' row locks (which a price change takes too), as it did
// then.
func priceRows(tx *gorm.DB, rows []row) (map[int64]pricing, error) {
	ids := make([]int64, 0, 2)
	for _, r := range rows {
		ids = append(ids, r.VariantID)
	}
	slices.Sort(ids)
	prices, err := pricesTx(tx, slices.Compact(ids))
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if rows[i].UnitPriceCents == nil {
			unit := prices[rows[i].VariantID].Unit
			rows[i].UnitPriceCents = &unit
		}
	}
	return prices, nil
}

// amount is what order o costs: its quantity at the unit price it was
// taken at, or, for an order persisted before prices were kept, at its
// variant's price now (pr).
func amount(o Order, pr pricing) int64 {
	return *o.priced(pr.Unit).UnitPriceCents * int64(o.Quantity)
}

// priced is o with a unit price: its own, or for an order persisted before
// prices were kept, unit (its variant's price now, what it costs then).
func (o Order) priced(unit int64) Order {
	if o.UnitPriceCents == nil {
		o.UnitPriceCents = &unit
	}
	return o
}

// eventData is o as an event shows it, priced and labelled in tx.
func eventData(tx *gorm.DB, o Order) (EventData, error) {
	p, err := pricesTx(tx, []int64{o.VariantID})
	if err != nil {
		return EventData{}, err
	}
	pr := p[o.VariantID]
	o.VariantLabel = pr.Label
	d := EventData{View: o.priced(pr.Unit).View()}
	if o.Status == StatusCancelled {
		d.Reason = EventReason(o.CancelReason)
	}
	return d, nil
}

// announce writes event typ about order o in tx, if events are on.
func (s *Store) announce(tx *gorm.DB, typ string, o Order) error {
	if !s.out.On() {
		return nil
	}
	d, err := eventData(tx, o)
	if err != nil {
		return err
	}
	return s.out.Add(tx, webhook.Event{Type: typ, Subject: webhook.OrderSubject(o.ID), Data: d})
}

// announceConfirmed writes order.confirmed for each order a batch
// inserted, and sale.sold_out for each sale the batch took the last unit
// of, in the batch's transaction.
func (s *Store) announceConfirmed(tx *gorm.DB, inserted []keyspace.Entry, prices map[int64]pricing) error {
	if !s.out.On() || len(inserted) == 0 {
		return nil
	}
	items := make([]int64, 0, 2)
	for _, e := range inserted {
		items = append(items, e.ItemID)
	}
	slices.Sort(items)
	evs := make([]webhook.Event, 0, len(inserted)+1)
	for _, e := range inserted {
		p := prices[e.VariantID]
		// Priced as its row: at the entry's price, else at p's.
		o := Order{ID: e.OrderID, ItemID: e.ItemID, VariantID: e.VariantID, VariantLabel: p.Label, UserID: e.UserID,
			Quantity: e.Quantity, UnitPriceCents: e.UnitPriceCents, Status: StatusConfirmed, CreatedAt: e.CreatedAt}
		evs = append(evs, webhook.Event{Type: webhook.OrderConfirmed, Subject: webhook.OrderSubject(e.OrderID),
			Data: EventData{View: o.priced(p.Unit).View()}})
	}
	var soldOut []int64
	if err := tx.Raw("SELECT id FROM items WHERE id IN ? AND stock = 0", slices.Compact(items)).Scan(&soldOut).Error; err != nil {
		return fmt.Errorf("find sold-out sales: %w", err)
	}
	for _, id := range soldOut {
		it, err := catalog.NewStore(tx).Get(tx.Statement.Context, id)
		if err != nil {
			return err
		}
		evs = append(evs, webhook.Event{Type: webhook.SaleSoldOut, Subject: webhook.SaleSubject(id), Data: it.StoredView(s.now())})
	}
	return s.out.Add(tx, evs...)
}
