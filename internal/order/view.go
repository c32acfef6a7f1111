package order

import "time"

// View is an order as the API shows it: the shopper's order endpoints and
// the events sent to the shop both answer with it. UnitPriceCents is the
// price of one unit when the order was taken and AmountCents what the order
// costs (unit × quantity), what a payment must be; both are omitted where
// the price is not known (see Order).
type View struct {
	OrderID      string    `json:"order_id"`
	ItemID       int64     `json:"item_id"`
	VariantID    int64     `json:"variant_id"`
	VariantLabel string    `json:"variant_label"`
	UserID       string    `json:"user_id"`
	Quantity     int       `json:"quantity"`
	Status       string    `json:"status"`
	CreatedAt    time.Time `json:"created_at"`
	UnitPrice    *int64    `json:"unit_price_cents,omitempty"`
	Amount       *int64    `json:"amount_cents,omitempty"`
}

// View returns o as the API shows it.
func (o Order) View() View {
	v := View{OrderID: o.ID, ItemID: o.ItemID, VariantID: o.VariantID, VariantLabel: o.VariantLabel,
		UserID: o.UserID, Quantity: o.Quantity, Status: o.Status, CreatedAt: o.CreatedAt.UTC()}
	v.UnitPrice, v.Amount = Amount(o.UnitPriceCents, o.Quantity)
	return v
}

// Amount is a unit price and what quantity units cost at it, as a View
// shows them: both nil when the unit price is unknown.
func Amount(unit *int64, quantity int) (unitCents, amountCents *int64) {
	if unit == nil {
		return nil, nil
	}
	u, a := *unit, *unit*int64(quantity)
	return &u, &a
}
