package sale

import (
	"context"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/drawkey"
)

// UseDrawKeys has new draw sales sealed under the ring's current key; with
// none, creating a draw sale is refused (drawkey.ErrNoKey).
func (s *Service) UseDrawKeys(r drawkey.Ring) { s.drawKeys = r }

// Create stores a new sale in MySQL and warms it into Redis. The sale exists
// once MySQL has it: failing the call after that would invite a duplicate on
// retry, so a failed warm is logged and the first purchase warms the sale.
// The sale is recorded in the audit log as created. It returns MySQL's
// errors, and for a draw sale drawkey.ErrNoKey when no draw key is
// configured (the insert is rolled back: nothing is written).
func (s *Service) Create(ctx context.Context, it catalog.Item) (catalog.Item, error) {
	it, err := s.items.CreateDraw(ctx, it, s.drawKeys.Seal)
	if err != nil {
		return catalog.Item{}, err
	}
	s.record(ctx, audit.ActionCreate, it.ID, nil, createdFields(it))
	if err := s.sync.Warm(ctx, it.ID); err != nil {
		s.log.WarnContext(ctx, "new sale not warmed; it warms on first purchase", "item_id", it.ID, "err", err)
	}
	return it, nil
}
