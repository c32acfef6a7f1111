// Package catalog keeps the sales (items) in MySQL, the authority for stock.
package catalog

import (
	"errors"
	"time"
)

// ErrNotFound: no sale of that id.
var ErrNotFound = errors.New("catalog: item not found")

// Errors of changing a sale's stock_total. Those of variants are in
// variant.go, ErrRetired in retire.go and ErrDrawUnsealed in store.go.
var (
	ErrStockConflict = errors.New("catalog: stock_total below what is already sold")
	// ErrSaleStockOfVariants: a sale of several variants has the sum of
	// their stock; its stock_total changes through a variant.
	ErrSaleStockOfVariants = errors.New("catalog: stock_total of a sale with variants is the sum of theirs")
	// ErrDrawnUnits: a drawn sale's units are offered down its rankings,
	// so its stock may grow but not be cut: a cut could take a unit an
	// open offer holds.
	ErrDrawnUnits = errors.New("catalog: a drawn sale's stock can be added to, not cut")
)

// Item is one sale as stored in MySQL. Stock is the authoritative available
// stock: StockTotal minus every order persisted and still active. Both are
// the sums of the variants', kept so in the same transactions.
type Item struct {
	ID           int64
	Name         string
	Description  string
	ImageURL     string
	PriceCents   int64
	StockTotal   int
	Stock        int
	PerUserLimit int
	RoomRate     int // shoppers the waiting room admits per second; 0: no waiting room
	// Paused: an admin stopped the sale for now; it takes no purchases and
	// its waiting room admits no one until it resumes.
	Paused    bool
	StartsAt  time.Time
	EndsAt    time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
	// RetiredAt is when the sale was retired: it had ended and settled, and
	// its Redis keys were removed. nil while it may still live in Redis.
	RetiredAt *time.Time
	// Mode is ModeFirstCome or ModeDraw; the fields below it are a draw's
	// (see package draw) and nil for a first-come sale.
	Mode                  string
	EntriesOpenAt         *time.Time
	EntriesCloseAt        *time.Time
	PurchaseWindowSeconds *int
	// DrawSeed is NULL until the draw's transaction writes it: the draw
	// derives it from DrawNonce under the key DrawKeyID names, which MySQL
	// never holds (package drawkey). DrawCommitment is SHA-256 of it,
	// public from EntriesOpenAt. A draw made before SECKILL_DRAW_KEY has a
	// DrawSeed from its creation and no DrawNonce.
	DrawSeed       []byte
	DrawNonce      []byte
	DrawKeyID      *string
	DrawCommitment []byte
	DrawSalt       []byte
	DrawnAt        *time.Time
	// Variants are what a shopper picks from, in the shop's order; every
	// sale has at least one.
	Variants []Variant `gorm:"-"`
}

// Sale modes: who may buy. A first-come sale sells to whoever asks first
// (through its waiting room, if it has one); a draw sells to the entries
// drawn at the close of its entries.
const (
	ModeFirstCome = "first_come"
	ModeDraw      = "draw"
)

// IsDraw says whether it is a draw sale.
func (it Item) IsDraw() bool { return it.Mode == ModeDraw }

// Variant returns the sale's variant with id.
func (it Item) Variant(id int64) (Variant, bool) {
	for _, v := range it.Variants {
		if v.ID == id {
			return v, true
		}
	}
	return Variant{}, false
}

// Status values of a sale as shoppers see it.
const (
	StatusUpcoming = "upcoming"
	StatusLive     = "live"
	StatusSoldOut  = "sold_out"
	StatusEnded    = "ended"
	StatusPaused   = "paused"
)

// Status says where the sale stands at now given stockLeft, the live stock
// (Redis when warm). An ended sale is ended even if stock is left; a paused
// one shows as paused until it ends, whatever else holds.
func (it Item) Status(now time.Time, stockLeft int) string {
	switch {
	case !now.Before(it.EndsAt):
		return StatusEnded
	case it.Paused:
		return StatusPaused
	case now.Before(it.StartsAt):
		return StatusUpcoming
	case stockLeft <= 0:
		return StatusSoldOut
	default:
		return StatusLive
	}
}

// Patch lists the fields an admin changes; nil means unchanged.
type Patch struct {
	Name         *string
	Description  *string
	ImageURL     *string
	PriceCents   *int64
	StockTotal   *int
	PerUserLimit *int
	RoomRate     *int
	StartsAt     *time.Time
	EndsAt       *time.Time
	Paused       *bool
}

// Apply returns it with the patch's fields set.
func (p Patch) Apply(it Item) Item {
	set(&it.Name, p.Name)
	set(&it.Description, p.Description)
	set(&it.ImageURL, p.ImageURL)
	set(&it.PriceCents, p.PriceCents)
	set(&it.StockTotal, p.StockTotal)
	set(&it.PerUserLimit, p.PerUserLimit)
	set(&it.RoomRate, p.RoomRate)
	set(&it.StartsAt, p.StartsAt)
	set(&it.EndsAt, p.EndsAt)
	set(&it.Paused, p.Paused)
	return it
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
