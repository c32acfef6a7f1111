package order

// maxProviderRef is the payments table's provider_ref column.
const maxProviderRef = 128

// PaymentError says which field of a reported payment holds a value no
// payment has. Field is the callback's JSON name; Rule is a sentence a
// caller can show as it stands.
type PaymentError struct {
	Field string
	Rule  string
}

func (e *PaymentError) Error() string { return "order: payment " + e.Field + ": " + e.Rule }

// Check checks what the provider reports before anything is looked up. It
// returns a *PaymentError naming the first field that breaks a rule.
func (p Payment) Check() error {
	switch {
	case p.Status != PaymentPaid && p.Status != PaymentFailed:
		return &PaymentError{"status", `status must be "paid" or "failed"`}
	case p.AmountCents < 0:
		return &PaymentError{"amount_cents", "amount_cents must not be negative"}
	case p.ProviderRef == "" || len(p.ProviderRef) > maxProviderRef:
		return &PaymentError{"provider_ref", "provider_ref must be 1 to 128 bytes"}
	case p.OrderID == "":
		return &PaymentError{"order_id", "order_id must name an order"}
	}
	return nil
}
