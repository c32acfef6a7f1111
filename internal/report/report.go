// Package report tells what happened in a sale, from MySQL alone: its
// orders, and the counters servers flushed there (internal/tally). It reads
// nothing from Redis, so a sale's report stays the same once its Redis keys
// are gone. Its orders export (OrdersCSV) writes cells a spreadsheet
// cannot take for formulas.
package report

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/tally"
)

// MaxPoints bounds the sell-through curve, whatever the sale's length.
const MaxPoints = 200

// Report is a sale's figures.
type Report struct {
	ItemID         int64          `json:"item_id"`
	Name           string         `json:"name"`
	Status         string         `json:"status"`
	StartsAt       time.Time      `json:"starts_at"`
	EndsAt         time.Time      `json:"ends_at"`
	StockTotal     int            `json:"stock_total"`
	Sold           int            `json:"sold"` // units held by confirmed and paid orders
	OrdersByStatus map[string]int `json:"orders_by_status"`
	// Cancellations counts cancelled orders by reason (order.ReasonShopper,
	// order.ReasonTimeout, and any other reason the orders hold).
	Cancellations   map[string]int `json:"cancellations"`
	SellThrough     []Point        `json:"sell_through"`
	SoldOutAt       *time.Time     `json:"sold_out_at"`
	TimeToSellOutMs *int64         `json:"time_to_sell_out_ms"`
	Room            *Room          `json:"room"`
	Shed            int64          `json:"shed"`
	RateLimited     int64          `json:"rate_limited"`
}

// Point is the units held by the sale's orders at T.
type Point struct {
	T    time.Time `json:"t"`
	Sold int       `json:"sold"`
}

// Room is a waiting room's figures: Purchases are the shoppers who took an
// order; Abandoned the admitted ones who never did.
type Room struct {
	Joins      int64 `json:"joins"`
	Admissions int64 `json:"admissions"`
	Purchases  int64 `json:"purchases"`
	Abandoned  int64 `json:"abandoned"`
}

// Builder builds reports.
type Builder struct {
	db     *gorm.DB
	items  *catalog.Store
	orders *order.Store
	now    func() time.Time
}

// New returns a builder reading db; now decides the sale's status.
func New(db *gorm.DB, now func() time.Time) *Builder {
	return &Builder{db: db, items: catalog.NewStore(db), orders: order.NewStore(db), now: now}
}

// Build returns the sale's report, or catalog.ErrNotFound.
func (b *Builder) Build(ctx context.Context, itemID int64) (Report, error) {
	it, err := b.items.Get(ctx, itemID)
	if err != nil {
		return Report{}, err
	}
	all, _, err := b.orders.Count(ctx, itemID)
	if err != nil {
		return Report{}, err
	}
	r := Report{ItemID: it.ID, Name: it.Name, Status: it.Status(b.now(), it.Stock), StartsAt: it.StartsAt.UTC(),
		EndsAt: it.EndsAt.UTC(), StockTotal: it.StockTotal, Sold: all.ActiveQuantity,
		OrdersByStatus: map[string]int{order.StatusConfirmed: all.Confirmed, order.StatusPaid: all.Paid, order.StatusCancelled: all.Cancelled}}
	if r.Cancellations, err = b.cancellations(ctx, itemID); err != nil {
		return Report{}, err
	}
	if r.SellThrough, err = b.curve(ctx, it); err != nil {
		return Report{}, err
	}
	if err := b.soldOut(ctx, it, &r); err != nil {
		return Report{}, err
	}
	return r, b.counted(ctx, it, &r)
}

func (b *Builder) cancellations(ctx context.Context, itemID int64) (map[string]int, error) {
	by, err := b.orders.CancelsByReason(ctx, itemID)
	if err != nil {
		return nil, err
	}
	out := map[string]int{order.ReasonShopper: 0, order.ReasonTimeout: 0}
	for reason, n := range by {
		out[reason] += n
	}
	return out, nil
}

// curve is the sell-through from the opening to the last order or
// cancellation, in at most MaxPoints buckets, each point at its bucket's
// end; the first point is the opening, at zero.
func (b *Builder) curve(ctx context.Context, it catalog.Item) ([]Point, error) {
	last, ok, err := b.orders.LastMove(ctx, it.ID)
	if err != nil || !ok {
		return []Point{}, err
	}
	span := max(last.Sub(it.StartsAt), time.Millisecond)
	width := max((span+MaxPoints-1)/MaxPoints, time.Microsecond)
	width = (width + time.Microsecond - 1).Truncate(time.Microsecond)
	moves, err := b.orders.Moves(ctx, it.ID, it.StartsAt, width)
	if err != nil {
		return nil, err
	}
	pts := make([]Point, 0, len(moves)+1)
	pts = append(pts, Point{T: it.StartsAt.UTC()})
	held := 0
	for _, m := range moves {
		held += m.Units
		pts = append(pts, Point{T: it.StartsAt.Add(time.Duration(m.Bucket+1) * width).UTC(), Sold: held})
	}
	return pts, nil
}

func (b *Builder) soldOut(ctx context.Context, it catalog.Item, r *Report) error {
	at, ok, err := b.orders.ReachedAt(ctx, it.ID, it.StockTotal)
	if err != nil || !ok {
		return err
	}
	at = at.UTC()
	ms := at.Sub(it.StartsAt).Milliseconds()
	r.SoldOutAt, r.TimeToSellOutMs = &at, &ms
	return nil
}

// counted adds what the servers counted: shed and rate-limited purchases,
// and the waiting room's figures for a sale that has one.
func (b *Builder) counted(ctx context.Context, it catalog.Item, r *Report) error {
	c, err := tally.Read(ctx, b.db, it.ID)
	if err != nil {
		return err
	}
	r.Shed, r.RateLimited = c.Of(tally.Shed), c.Of(tally.RateLimited)
	if it.RoomRate <= 0 {
		return nil
	}
	buyers, err := b.orders.Buyers(ctx, it.ID)
	if err != nil {
		return err
	}
	room := Room{Joins: c.Of(tally.RoomJoins), Admissions: c.Of(tally.RoomAdmits), Purchases: int64(buyers)}
	room.Abandoned = max(room.Admissions-room.Purchases, 0)
	r.Room = &room
	return nil
}
