package sale

import (
	"context"
	"fmt"

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
// configured (nothing is written then).
func (s *Service) Create(ctx context.Context, it catalog.Item) (catalog.Item, error) {
	if it.IsDraw() {
		sealed, err := s.drawKeys.Seal()
		if err != nil {
			return catalog.Item{}, fmt.Errorf("create item: %w", err)
		}
		it.DrawNonce, it.DrawKeyID, it.DrawCommitment = sealed.Nonce, &sealed.KeyID, sealed.Commitment
	}
	it, err := s.items.Create(ctx, it)
	if err != nil {
		return catalog.Item{}, err
	}
	s.record(ctx, audit.ActionCreate, it.ID, nil, createdFields(it))
	if err := s.sync.Warm(ctx, it.ID); err != nil {
		s.log.WarnContext(ctx, "new sale not warmed; it warms on first purchase", "item_id", it.ID, "err", err)
	}
	return it, nil
}
