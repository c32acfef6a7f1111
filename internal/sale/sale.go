// Package sale owns the life of a sale across MySQL and Redis: creating and
// changing it, buying into it when Redis has not seen it yet, paying and
// cancelling its orders, and the payment timeout. The handlers change a sale
// and its orders through Service, which records each admin change in the
// audit log (an admin's reconcile goes straight to package stocksync, which
// keeps the two sides in step); the stores below it (catalog, order, stock)
// each see one side.
package sale

import (
	"context"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/sync/stocksync"
	"github.com/seckill/seckill/internal/webhook"
)

// Service changes sales and their orders in both stores.
type Service struct {
	items  *catalog.Store
	orders *order.Store
	stock  *stock.Store
	sync   *stocksync.Syncer
	now    func() time.Time
	log    *slog.Logger
	// changed, if set, is told the id of every order paid or cancelled.
	changed func(ctx context.Context, orderIDs []string)
	// auditor, if set, records every admin change (SetAuditor).
	auditor audit.Recorder
	db      *gorm.DB
	out     *webhook.Writer // events of sales' changes; nil: none (UseOutbox)
	// drawKeys seal new draw sales (UseDrawKeys); none: no draw sales.
	drawKeys drawkey.Ring
}

// OnOrderChanged has fn told the id of every order paid or cancelled here,
// so pages following it hear of it.
func (s *Service) OnOrderChanged(fn func(ctx context.Context, orderIDs []string)) { s.changed = fn }

func (s *Service) orderChanged(ctx context.Context, id string) {
	if s.changed != nil {
		s.changed(ctx, []string{id})
	}
}

// New returns the sale service; now is the clock that decides the payment
// timeout.
func New(db *gorm.DB, st *stock.Store, sync *stocksync.Syncer, now func() time.Time, log *slog.Logger) *Service {
	orders := order.NewStore(db)
	orders.UseClock(now) // payments and cancellations dated like the sale's window
	return &Service{items: catalog.NewStore(db), orders: orders, stock: st, sync: sync, now: now, log: log, db: db}
}
