package order

import (
	"context"
	"fmt"
)

// The order queries of the draw (package draw): whether an offer was used,
// and whether a variant's units are all paid for, so none can come back to
// its waitlist.

// Ordered reports whether userID holds or held an order in sale itemID,
// whatever its status: a draw offer is used by any order, cancelled or not.
func (s *Store) Ordered(ctx context.Context, itemID int64, userID string) (bool, error) {
	var n int
	err := s.db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE item_id = ? AND user_id = ?", itemID, userID).Scan(&n).Error
	if err != nil {
		return false, fmt.Errorf("find orders of sale %d: %w", itemID, err)
	}
	return n > 0, nil
}

// PaidOrders counts the paid orders of variantID in sale itemID.
func (s *Store) PaidOrders(ctx context.Context, itemID, variantID int64) (int, error) {
	var n int
	err := s.db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE item_id = ? AND variant_id = ? AND status = ?",
		itemID, variantID, StatusPaid).Scan(&n).Error
	if err != nil {
		return 0, fmt.Errorf("count paid orders of sale %d: %w", itemID, err)
	}
	return n, nil
}
