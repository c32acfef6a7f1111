package front

import (
	"context"
	"errors"

	"github.com/seckill/seckill/internal/stock"
)

// admit asks the marks and the gate whether r may reach Redis: nil,
// ErrBusy, stock.ErrPaused or a sold-out answer. The gate sheds a stampede
// on a variant's last units; a waiting room's admitted shoppers are no
// stampede (the room lets through no more of them than the stock left can
// serve), and turning one away would leave their unit held until their
// window passed. A request with an Idempotency-Key that would be told "sold
// out" may be the retry of the purchase that took the last unit, which must
// get that order back: if Redis holds the key, it goes on and is replayed.
// So may one for a sale this server saw paused a moment ago.
func (f *Front) admit(ctx context.Context, r stock.Request) error {
	if r.Admitted {
		return nil
	}
	verdict := stock.ErrPaused
	if !f.paused.marked(r.ItemID) {
		verdict = f.verdict(r)
	}
	// A replay is answered by Redis whatever the sale's state: the shopper
	// holds that order.
	if !(errors.Is(verdict, stock.ErrSoldOut) || errors.Is(verdict, stock.ErrPaused)) || r.IdempotencyKey == "" {
		return verdict
	}
	used, err := f.keys.IdempotencyKeyUsed(ctx, r.ItemID, r.UserID, r.IdempotencyKey)
	if err != nil || used {
		return nil // Redis decides: a replay, or its own answer
	}
	return verdict
}

// verdict is what the marks and the gate say of r, before any key.
func (f *Front) verdict(r stock.Request) error {
	if available, marked := f.marks.VariantSoldOut(r.ItemID, r.VariantID); marked {
		return &stock.SoldOutError{Available: available}
	}
	ok, soldOut := f.gate.Admit(r.ItemID, r.VariantID, r.UserID)
	switch {
	case ok:
		return nil
	case soldOut && (r.VariantID == 0 || f.marks.SoldOut(r.ItemID)):
		// A sale of one variant, or all of it: nothing else to offer.
		return stock.ErrSoldOut
	case soldOut:
		// One variant of several is gone, but only Redis can say which
		// others are left, and the contract is a sold-out answer naming
		// them. Its answer marks the variant, and the mark (checked above)
		// answers the storm that follows without Redis.
		return nil
	}
	return ErrBusy
}

// observe tells the gate and the sold-out marks how much stock the script
// reported left, and the gate who got a unit: buyers are bounded by the
// stock, so only the shoppers who did not get one count against its cap.
func (f *Front) observe(r stock.Request, res stock.Reservation, err error) {
	var so *stock.SoldOutError
	switch {
	case err == nil && !res.Replayed:
		f.gate.Bought(r.ItemID, r.VariantID, r.UserID, res.StockLeft)
		f.marks.Saw(r.ItemID, res.SaleLeft, res.Returns)
		if res.StockLeft == 0 {
			f.marks.Emptied(r.ItemID, res.VariantID)
		}
	case errors.Is(err, stock.ErrPaused):
		f.paused.mark(r.ItemID)
	case errors.As(err, &so):
		f.gate.Observe(r.ItemID, r.VariantID, so.Left)
		f.marks.Saw(r.ItemID, so.SaleLeft, so.Returns)
		f.marks.SawVariant(r.ItemID, r.VariantID, so.Left, so.Returns, so.Available)
	}
}
