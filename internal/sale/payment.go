package sale

import (
	"context"
	"errors"

	"github.com/oklog/ulid/v2"

	"github.com/seckill/seckill/internal/order"
)

// ErrPaymentPending is a payment for an order MySQL does not hold yet
// while Redis still does: the provider should retry, where it may take
// not-found as final and drop the payment.
var ErrPaymentPending = errors.New("sale: the paid order is still being saved")

// SettlePayment applies what the payment provider reports of a payment
// (order.Store.SettlePayment): a payment that pays its order is told to
// the pages following it, as a shopper's Pay is. An order MySQL does not
// hold is ErrPaymentPending while Redis holds it, however long persistence
// lags; when Redis does not either, MySQL is asked again (a persister
// writes MySQL before it drops the entry), and order.ErrNotFound means it
// was never taken. Its other errors are order.Store.SettlePayment's and
// Redis's.
func (s *Service) SettlePayment(ctx context.Context, p order.Payment) (order.Settlement, error) {
	st, err := s.settle(ctx, p)
	if errors.Is(err, order.ErrNotFound) {
		if err = s.stillQueued(ctx, p.OrderID); err == nil {
			st, err = s.settle(ctx, p)
		}
	}
	return st, err
}

func (s *Service) settle(ctx context.Context, p order.Payment) (order.Settlement, error) {
	st, err := s.orders.SettlePayment(ctx, p)
	if err == nil && st.Outcome == order.OutcomePaid {
		s.orderChanged(ctx, st.Order.ID)
	}
	return st, err
}

// stillQueued is ErrPaymentPending while Redis holds the order id, Redis's
// error when it cannot say, nil when it does not hold it. Order ids are
// ULIDs: their time bounds the search.
func (s *Service) stillQueued(ctx context.Context, id string) error {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return nil
	}
	held, err := s.stock.Queued(ctx, id, ulid.Time(u.Time()))
	switch {
	case err != nil:
		return err
	case held:
		return ErrPaymentPending
	}
	return nil
}
