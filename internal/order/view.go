package order

import "time"

// View is an order as the API shows it: the shopper's order endpoints and
// the events sent to the shop both answer with it.
type View struct {
	OrderID      string    `json:"order_id"`
	ItemID       int64     `json:"item_id"`
	VariantID    int64     `json:"variant_id"`
	VariantLabel string    `json:"variant_label"`
	UserID       string    `json:"user_id"`
	Quantity     int       `json:"quantity"`
	Status       string    `json:"status"`
	CreatedAt    time.Time `json:"created_at"`
}

// View returns o as the API shows it.
func (o Order) View() View {
	return View{OrderID: o.ID, ItemID: o.ItemID, VariantID: o.VariantID, VariantLabel: o.VariantLabel,
		UserID: o.UserID, Quantity: o.Quantity, Status: o.Status, CreatedAt: o.CreatedAt.UTC()}
}
