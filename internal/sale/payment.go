package sale

import (
	"context"

	"github.com/seckill/seckill/internal/order"
)

// SettlePayment applies what the payment provider reports of a payment
// (order.Store.SettlePayment): a payment that pays its order is told to
// the pages following it, as a shopper's Pay is. It returns the errors of
// order.Store.SettlePayment.
func (s *Service) SettlePayment(ctx context.Context, p order.Payment) (order.Settlement, error) {
	st, err := s.orders.SettlePayment(ctx, p)
	if err == nil && st.Outcome == order.OutcomePaid {
		s.orderChanged(ctx, st.Order.ID)
	}
	return st, err
}
