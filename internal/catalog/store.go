package catalog

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/seckill/seckill/internal/drawkey"
)

// Store reads and writes items in MySQL.
type Store struct{ db *gorm.DB }

// NewStore returns a store over db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// TableName maps Item onto the items table; its fields need no tags.
func (Item) TableName() string { return "items" }

// Sealer seals the draw of sale itemID, inserted but not yet committed
// (drawkey.Ring.Seal): the seed derives from the sale's id, known only once
// its row is inserted.
type Sealer func(itemID int64) (drawkey.Sealed, error)

// Create inserts it and its variants with all of their stock available and
// returns it with ids and timestamps. A sale given no variants gets one,
// DefaultLabel, holding its StockTotal; otherwise its StockTotal is the sum
// of theirs. It returns ErrLabelTaken for two variants of one label, and
// ErrDrawUnsealed for a draw sale (made with CreateDraw).
func (s *Store) Create(ctx context.Context, it Item) (Item, error) {
	return s.CreateDraw(ctx, it, nil)
}

// ErrDrawUnsealed: a new draw sale came without a sealer to give it its
// nonce, key id and commitment, or with a seed, which must never be stored
// before it is drawn.
var ErrDrawUnsealed = errors.New("catalog: a draw sale must be created sealed, without its seed")

// CreateDraw is Create for a sale of either mode; a draw sale is sealed by
// seal in the insert's transaction, so no draw sale is ever stored unsealed.
// It returns seal's errors, and ErrDrawUnsealed for a draw sale without a
// sealer or with a seed.
func (s *Store) CreateDraw(ctx context.Context, it Item, seal Sealer) (Item, error) {
	if len(it.Variants) == 0 {
		it.Variants = []Variant{{Label: DefaultLabel, StockTotal: it.StockTotal}}
	}
	it.StockTotal = 0
	for i := range it.Variants {
		v := &it.Variants[i]
		v.ID, v.Position, v.Stock = 0, i, v.StockTotal
		it.StockTotal += v.StockTotal
	}
	it.Stock = it.StockTotal
	if it.Mode == "" {
		it.Mode = ModeFirstCome
	}
	if it.IsDraw() {
		// The seed is fixed before the first entry and never stored
		// before the draw; what the caller brought is not trusted.
		if seal == nil || it.DrawSeed != nil {
			return Item{}, fmt.Errorf("create item: %w", ErrDrawUnsealed)
		}
		it.DrawNonce, it.DrawKeyID, it.DrawCommitment = nil, nil, nil
		it.DrawSalt = make([]byte, 16)
		rand.Read(it.DrawSalt)
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		variants := it.Variants
		if err := tx.Create(&it).Error; err != nil {
			return err
		}
		if it.IsDraw() {
			if err := sealDraw(tx, it.ID, seal); err != nil {
				return err
			}
		}
		for i := range variants {
			variants[i].ItemID = it.ID
		}
		return translate(tx.Create(&variants).Error)
	})
	if err != nil {
		return Item{}, fmt.Errorf("create item: %w", err)
	}
	return s.Get(ctx, it.ID)
}

// sealDraw writes the seal of the draw sale id, just inserted in tx.
func sealDraw(tx *gorm.DB, id int64, seal Sealer) error {
	sealed, err := seal(id)
	if err != nil {
		return err
	}
	return tx.Model(&Item{}).Where("id = ?", id).Updates(map[string]any{
		"draw_nonce": sealed.Nonce, "draw_key_id": sealed.KeyID, "draw_commitment": sealed.Commitment,
	}).Error
}

// translate names the one constraint a caller can break by its input.
func translate(err error) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrLabelTaken
	}
	return err
}

// Get returns the item with its variants, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (Item, error) {
	var it Item
	err := s.db.WithContext(ctx).Take(&it, id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Item{}, fmt.Errorf("get item %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Item{}, fmt.Errorf("get item %d: %w", id, err)
	}
	items := []Item{it}
	if err := withVariants(s.db.WithContext(ctx), items); err != nil {
		return Item{}, err
	}
	return items[0], nil
}

// withVariants fills in the variants of items with one query.
func withVariants(q *gorm.DB, items []Item) error {
	if len(items) == 0 {
		return nil
	}
	ids := make([]int64, len(items))
	at := make(map[int64]int, len(items))
	for i, it := range items {
		ids[i], at[it.ID] = it.ID, i
	}
	var vs []Variant
	if err := q.Where("item_id IN ?", ids).Order("item_id, position, id").Find(&vs).Error; err != nil {
		return fmt.Errorf("list variants: %w", err)
	}
	for _, v := range vs {
		it := &items[at[v.ItemID]]
		it.Variants = append(it.Variants, v)
	}
	return nil
}

// List returns every item, soonest sale first.
func (s *Store) List(ctx context.Context) ([]Item, error) {
	return s.find(ctx, s.db.WithContext(ctx))
}

// ListOpen returns the items whose sale has not ended at now: the ones that
// must be warm in Redis.
func (s *Store) ListOpen(ctx context.Context, now time.Time) ([]Item, error) {
	return s.ListRecent(ctx, now)
}

// ListRecent returns the items whose sale ends after endedAfter: the open
// ones and those that ended since.
func (s *Store) ListRecent(ctx context.Context, endedAfter time.Time) ([]Item, error) {
	return s.find(ctx, s.db.WithContext(ctx).Where("ends_at > ?", endedAfter))
}

func (s *Store) find(ctx context.Context, q *gorm.DB) ([]Item, error) {
	var items []Item
	if err := q.Order("starts_at, id").Find(&items).Error; err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	return items, withVariants(s.db.WithContext(ctx), items)
}

// Update writes the patched fields of the sale. A stock_total change moves
// the available stock by the same delta, refusing to take it below zero
// (ErrStockConflict); on a sale of one variant it changes that variant's,
// and on a sale of several it is refused (ErrSaleStockOfVariants): change a
// variant instead. locked, if not nil, runs while the row is locked, after
// every statement and before the commit, in the update's transaction, with
// the sale as it is and as it will be, variants included; an error from it
// rolls the update back. Callers use it to change Redis in step: nothing
// else can change the sale meanwhile. It returns the sale as written,
// without reading it back, so a failure after the commit can never be
// mistaken for a failed update.
func (s *Store) Update(ctx context.Context, id int64, p Patch, locked func(tx *gorm.DB, cur, next Item) error) (Item, error) {
	var next Item
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		cur, err := lockItem(tx, id)
		if err != nil {
			return err
		}
		next = p.Apply(cur)
		next.Variants = slices.Clone(cur.Variants)
		delta := next.StockTotal - cur.StockTotal
		if delta != 0 && len(cur.Variants) != 1 {
			return ErrSaleStockOfVariants
		}
		next.Stock = cur.Stock + delta
		if next.Stock < 0 {
			return ErrStockConflict // the row is locked, so this check is exact
		}
		if delta < 0 && cur.DrawnAt != nil {
			return ErrDrawnUnits
		}
		if delta != 0 {
			v := &next.Variants[0]
			v.StockTotal, v.Stock = v.StockTotal+delta, v.Stock+delta
		}
		if err := moveVariantStock(tx, next.Variants, delta); err != nil {
			return err
		}
		err = tx.Model(&Item{}).Where("id = ?", id).Updates(map[string]any{
			"name": next.Name, "description": next.Description, "image_url": next.ImageURL, "price_cents": next.PriceCents,
			"per_user_limit": next.PerUserLimit, "room_rate": next.RoomRate, "starts_at": next.StartsAt, "ends_at": next.EndsAt,
			"paused": next.Paused, "stock_total": next.StockTotal, "stock": gorm.Expr("stock + ?", delta),
		}).Error
		if err != nil || locked == nil {
			return err
		}
		// Last, so nothing MySQL may still refuse follows a change Redis
		// has made and shoppers may already have bought from.
		return locked(tx, cur, next)
	})
	if err != nil {
		return Item{}, fmt.Errorf("update item %d: %w", id, err)
	}
	return next, nil
}

// moveVariantStock adds delta to the stock of a sale's only variant.
func moveVariantStock(tx *gorm.DB, vs []Variant, delta int) error {
	if delta == 0 {
		return nil
	}
	return tx.Model(&Variant{}).Where("id = ?", vs[0].ID).Updates(map[string]any{
		"stock_total": gorm.Expr("stock_total + ?", delta), "stock": gorm.Expr("stock + ?", delta),
	}).Error
}

// GetForUpdate is lockItem for a caller's transaction: the draw takes the
// lock every writer of the sale takes.
func (s *Store) GetForUpdate(ctx context.Context, id int64) (Item, error) {
	return lockItem(s.db.WithContext(ctx), id)
}

// lockItem reads the sale and its variants with the sale's row locked for
// update: every writer of a sale's stock, the variants' included, takes that
// lock first. A retired sale is not changed again (ErrRetired): a change
// would have to reach Redis, which no longer holds it.
func lockItem(tx *gorm.DB, id int64) (Item, error) {
	var cur Item
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Take(&cur, id).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return Item{}, ErrNotFound
		}
		return Item{}, err
	}
	if cur.RetiredAt != nil {
		return Item{}, ErrRetired
	}
	items := []Item{cur}
	if err := withVariants(tx, items); err != nil {
		return Item{}, err
	}
	return items[0], nil
}

// GetShared reads the item with a shared row lock, inside a transaction: it
// waits for an update in progress to commit, and holds back persistence
// batches of the item until the transaction ends.
func (s *Store) GetShared(ctx context.Context, id int64) (Item, error) {
	var it Item
	res := s.db.WithContext(ctx).Raw("SELECT * FROM items WHERE id = ? LOCK IN SHARE MODE", id).Scan(&it)
	if res.Error != nil {
		return Item{}, fmt.Errorf("get item %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return Item{}, fmt.Errorf("get item %d: %w", id, ErrNotFound)
	}
	items := []Item{it}
	if err := withVariants(s.db.WithContext(ctx), items); err != nil {
		return Item{}, err
	}
	return items[0], nil
}
