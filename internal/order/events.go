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

// EventData is an order as events show it: as the API does, with what it
// costs and, once cancelled, why.
type EventData struct {
	View
	AmountCents int64  `json:"amount_cents"`
	Reason      string `json:"reason,omitempty"`
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

// priceRows gives each new order row its unit price as it stands in tx,
// whose stock updates hold the sales' row locks (which a price change
// takes too), and returns the prices read.
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
		unit := prices[rows[i].VariantID].Unit
		rows[i].UnitPriceCents = &unit
	}
	return prices, nil
}

// amount is what order o costs: its quantity at the unit price it was
// persisted with, or, for an order persisted before prices were kept, at
// its variant's price now (pr).
func amount(o Order, pr pricing) int64 {
	unit := pr.Unit
	if o.UnitPriceCents != nil {
		unit = *o.UnitPriceCents
	}
	return unit * int64(o.Quantity)
}

// eventData is o as an event shows it, priced and labelled in tx.
func eventData(tx *gorm.DB, o Order) (EventData, error) {
	p, err := pricesTx(tx, []int64{o.VariantID})
	if err != nil {
		return EventData{}, err
	}
	pr := p[o.VariantID]
	o.VariantLabel = pr.Label
	d := EventData{View: o.View(), AmountCents: amount(o, pr)}
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
		o := Order{ID: e.OrderID, ItemID: e.ItemID, VariantID: e.VariantID, VariantLabel: p.Label, UserID: e.UserID,
			Quantity: e.Quantity, Status: StatusConfirmed, CreatedAt: e.CreatedAt}
		v := o.View()
		evs = append(evs, webhook.Event{Type: webhook.OrderConfirmed, Subject: webhook.OrderSubject(e.OrderID),
			Data: EventData{View: v, AmountCents: p.Unit * int64(e.Quantity)}})
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
