package draw

import "time"

// View is a shopper's entry as the API shows it.
type View struct {
	EntryID   string    `json:"entry_id"`
	VariantID int64     `json:"variant_id"`
	EnteredAt time.Time `json:"entered_at"`
	// What the shopper keeps to check their entry in the published draw:
	// entry_id = hex(SHA-256(salt || entry_secret || user_id)), and the
	// commitment (seed_sha256) as it was before the close. entry_secret
	// is null for an entry made before secrets.
	EntrySecret *string `json:"entry_secret"`
	Commitment  string  `json:"commitment"`
	Salt        string  `json:"salt"`
	// Null before the draw.
	Result   *string `json:"result"`
	Position *int    `json:"position"`
	// A drawn shopper's window to buy: its end, and the purchase token
	// that lasts until then.
	PurchaseDeadline *time.Time `json:"purchase_deadline"`
	PurchaseToken    *string    `json:"purchase_token"`
	OrderID          *string    `json:"order_id"`
}

// View shows e; token is the purchase token that lasts until a drawn
// shopper's deadline, asked for only when there is one.
func (e Entry) View(token func(deadline time.Time) string) View {
	out := View{EntryID: e.EntryID, VariantID: e.VariantID, EnteredAt: e.EnteredAt, Commitment: e.Commitment, Salt: e.Salt,
		Position: e.Position, PurchaseDeadline: e.Deadline, OrderID: e.OrderID}
	if e.EntrySecret != "" {
		out.EntrySecret = &e.EntrySecret
	}
	if e.Result != "" {
		out.Result = &e.Result
	}
	if e.Deadline != nil {
		tok := token(*e.Deadline)
		out.PurchaseToken = &tok
	}
	return out
}
