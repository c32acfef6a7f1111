package draw

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/webhook"
)

// DefaultPurchaseWindow is how long a drawn shopper has to buy, unless the
// sale says otherwise; the catalog fills it in when a draw sale is created.
const DefaultPurchaseWindow = catalog.DefaultPurchaseWindow

// Service enters shoppers, draws, and passes units down the rankings.
type Service struct {
	db     *gorm.DB // draw_entries, and the transactions the catalog joins
	stores Stores
	now    func() time.Time // the sale's clock: windows, the close
	wall   func() time.Time // how old a cached reading is
	log    *slog.Logger
	out    *webhook.Writer // events for the shop's systems; nil: none
	// drawKeys derive the seeds of sales at their draw (UseKeys).
	drawKeys drawkey.Ring
	// legacy are the draws made before draw keys that may be drawn from
	// their stored seed (UseLegacySales).
	legacy map[int64]bool

	mu        sync.Mutex
	proofs    map[int64]builtProof        // drawn sales' published draws
	standings map[variantKey]standingRead // what the waitlists of drawn sales see, read at most once a second

	// replicated vouches for a purchase Redis holds (WaitReplicated).
	replicated func(ctx context.Context, itemIDs []int64) error
}

// New returns the draw service: its entries in db, the sales, offers and
// orders in stores.
func New(db *gorm.DB, stores Stores, now func() time.Time, log *slog.Logger) *Service {
	return &Service{db: db, stores: stores, now: now, wall: time.Now, log: log,
		proofs: map[int64]builtProof{}, standings: map[variantKey]standingRead{}}
}

// UseOutbox has the draw announce, in the transaction of each change, the
// sale drawn and every unit offered (see events.go).
func (s *Service) UseOutbox(w *webhook.Writer) { s.out = w }

// Phase is where a draw stands.
type Phase string

// Phases of a draw, in order.
const (
	PhaseUpcoming    Phase = "upcoming"     // entries not open yet
	PhaseEntriesOpen Phase = "entries_open" // shoppers enter
	PhaseDrawing     Phase = "drawing"      // entries closed, not drawn yet
	PhaseDrawn       Phase = "drawn"
	PhaseEnded       Phase = "ended" // the sale ended before it was drawn: nobody won
)

// PhaseOf says where draw sale it stands at now.
func PhaseOf(it catalog.Item, now time.Time) Phase {
	switch {
	case it.DrawnAt != nil:
		return PhaseDrawn
	case !now.Before(it.EndsAt):
		return PhaseEnded
	case now.Before(*it.EntriesOpenAt):
		return PhaseUpcoming
	case now.Before(*it.EntriesCloseAt):
		return PhaseEntriesOpen
	default:
		return PhaseDrawing
	}
}

// Window is how long a shopper offered a unit of it has to buy it.
func Window(it catalog.Item) time.Duration {
	if it.PurchaseWindowSeconds == nil {
		return DefaultPurchaseWindow
	}
	return time.Duration(*it.PurchaseWindowSeconds) * time.Second
}

// deadline is when an offer of sale it made at now lapses: a window from
// the later of now and the opening of purchases, never past the sale's end.
func deadline(it catalog.Item, now time.Time) time.Time {
	d := later(now, it.StartsAt).Add(Window(it))
	if d.After(it.EndsAt) {
		d = it.EndsAt
	}
	return d.UTC().Truncate(time.Millisecond)
}

// ErrNotADraw: a draw call named a sale that is not a draw.
var ErrNotADraw = errors.New("draw: the sale is not a draw")

func (s *Service) item(ctx context.Context, id int64) (catalog.Item, error) {
	it, err := s.stores.Catalog.Get(ctx, id)
	if err != nil {
		return catalog.Item{}, err
	}
	if !it.IsDraw() {
		return catalog.Item{}, ErrNotADraw
	}
	return it, nil
}
