package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/webhook"
)

// What the payment provider says of a payment.
const (
	PaymentPaid   = "paid"
	PaymentFailed = "failed"
)

// Outcomes of a payment callback: what seckill did about it. The payments
// table keeps each, and the callback answers with it.
const (
	OutcomePaid           = "paid"            // the order is paid
	OutcomeFailed         = "payment_failed"  // nothing moved; the order waits on
	OutcomeAmountMismatch = "amount_mismatch" // refused: not what the order costs
	OutcomeRefundRequired = "refund_required" // money taken for an order that cannot have it
)

// Why a payment must be refunded (payment.refund_required's refund_reason).
const (
	RefundOrderCancelled = "order_cancelled"
	RefundAlreadyPaid    = "already_paid"
	RefundAmountMismatch = "amount_mismatch"
)

// Errors of SettlePayment.
var (
	ErrAmountMismatch = errors.New("order: the payment's amount is not what the order costs")
	ErrRefConflict    = errors.New("order: the provider reference names another order's payment")
)

// Payment is what the payment provider reports of one payment.
type Payment struct {
	OrderID     string
	Status      string // PaymentPaid or PaymentFailed
	AmountCents int64
	ProviderRef string // the provider's id of the payment: a callback's idempotency key
}

// Settlement is what a payment callback decided, with the order as it
// stands after it (its variant labelled).
type Settlement struct {
	Outcome string
	Order   Order
}

// paymentRow maps a payment onto the payments table.
type paymentRow struct {
	ProviderRef   string `gorm:"primaryKey"`
	OrderID       string
	Status        string
	AmountCents   int64
	ExpectedCents int64
	Outcome       string
	ReceivedAt    time.Time
}

func (paymentRow) TableName() string { return "payments" }

// SettlePayment applies a payment the provider reports, under the order's
// row lock, so it and the payment timeout's cancel have one winner: a paid
// payment pays a confirmed order; one for an order already cancelled or
// paid leaves the order as it is and asks the shop to refund it
// (payment.refund_required), so a timed-out order is never revived and its
// unit, maybe sold again since, never sold twice. Every payment is recorded
// with its outcome, and the same provider reference again answers what was
// decided the first time, changing nothing. It returns ErrNotFound,
// ErrRefConflict (the reference was used for another order), and
// ErrAmountMismatch (recorded, nothing else changed) with the settlement.
func (s *Store) SettlePayment(ctx context.Context, p Payment) (Settlement, error) {
	var outcome string
	o, err := s.transition(ctx, "settle payment of", p.OrderID, "", func(tx *gorm.DB, cur *row) error {
		var err error
		outcome, err = s.settleTx(tx, cur, p)
		return err
	})
	if err != nil {
		return Settlement{}, err
	}
	st := Settlement{Outcome: outcome, Order: o}
	if outcome == OutcomeAmountMismatch {
		return st, fmt.Errorf("settle payment %s of order %s: %w", p.ProviderRef, p.OrderID, ErrAmountMismatch)
	}
	return st, nil
}

// settleTx decides a payment of the locked order cur and records it.
func (s *Store) settleTx(tx *gorm.DB, cur *row, p Payment) (string, error) {
	prices, err := pricesTx(tx, []int64{cur.VariantID})
	if err != nil {
		return "", err
	}
	pr := prices[cur.VariantID]
	cur.VariantLabel = pr.Label
	var seen []paymentRow
	if err := tx.Where("provider_ref = ?", p.ProviderRef).Limit(1).Find(&seen).Error; err != nil {
		return "", fmt.Errorf("read payment %s: %w", p.ProviderRef, err)
	}
	retried := false // a payment that failed under this reference and now succeeded
	if len(seen) > 0 {
		was := seen[0]
		switch {
		case was.OrderID != cur.ID:
			return "", ErrRefConflict
		case was.Status == p.Status && was.AmountCents == p.AmountCents:
			return was.Outcome, nil // the same callback again
		case was.Status != PaymentFailed || p.Status != PaymentPaid:
			return "", ErrRefConflict
		}
		retried = true
	}
	expected := amount(cur.order(), pr)
	outcome, refund := decide(p, cur.Status, expected)
	rec := paymentRow{ProviderRef: p.ProviderRef, OrderID: cur.ID, Status: p.Status, AmountCents: p.AmountCents,
		ExpectedCents: expected, Outcome: outcome, ReceivedAt: s.now()}
	if retried {
		err = tx.Save(&rec).Error
	} else {
		err = tx.Create(&rec).Error
	}
	if err != nil {
		// Another order's callback with this reference committed first:
		// its insert held the key until then.
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return "", ErrRefConflict
		}
		return "", fmt.Errorf("record payment %s: %w", p.ProviderRef, err)
	}
	switch {
	case outcome == OutcomePaid:
		return outcome, s.markPaid(tx, cur)
	case refund != "":
		return outcome, s.announceRefund(tx, cur.order(), p, refund)
	}
	return outcome, nil
}

// decide is what a new payment of an order in status, which costs
// expected, comes to, and why it must be refunded if it must. Money taken
// for the wrong amount pays nothing and is given back.
func decide(p Payment, status string, expected int64) (outcome, refund string) {
	switch {
	case p.Status == PaymentFailed:
		return OutcomeFailed, ""
	case p.AmountCents != expected:
		return OutcomeAmountMismatch, RefundAmountMismatch
	case status == StatusCancelled:
		return OutcomeRefundRequired, RefundOrderCancelled
	case status == StatusPaid:
		return OutcomeRefundRequired, RefundAlreadyPaid
	}
	return OutcomePaid, ""
}

// markPaid pays the locked confirmed order cur and announces it.
func (s *Store) markPaid(tx *gorm.DB, cur *row) error {
	at := s.now()
	if err := tx.Model(&row{}).Where("id = ?", cur.ID).Updates(map[string]any{"status": StatusPaid, "paid_at": at}).Error; err != nil {
		return err
	}
	cur.Status, cur.PaidAt = StatusPaid, &at
	return s.announce(tx, webhook.OrderPaid, cur.order())
}

// refundData is payment.refund_required's data: the order as events show
// it, the payment to give back and why.
type refundData struct {
	EventData
	Payment struct {
		ProviderRef string `json:"provider_ref"`
		AmountCents int64  `json:"amount_cents"`
	} `json:"payment"`
	RefundReason string `json:"refund_reason"`
}

// announceRefund writes payment.refund_required for payment p of order o
// in tx, if events are on.
func (s *Store) announceRefund(tx *gorm.DB, o Order, p Payment, reason string) error {
	if !s.out.On() {
		return nil
	}
	d, err := eventData(tx, o)
	if err != nil {
		return err
	}
	data := refundData{EventData: d, RefundReason: reason}
	data.Payment.ProviderRef, data.Payment.AmountCents = p.ProviderRef, p.AmountCents
	return s.out.Add(tx, webhook.Event{Type: webhook.RefundRequired, Subject: webhook.OrderSubject(o.ID), Data: data})
}
