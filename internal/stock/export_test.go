package stock

import (
	"context"
)

// ReserveRaw runs the reserve script for one request whose values (now,
// user, quantity, order, idempotency key, admitted, variant, client) are
// passed as given, unchecked by Go, and returns the request's code and
// detail: what a caller that trusted nothing would send.
func (s *Store) ReserveRaw(ctx context.Context, itemID int64, request ...any) (int64, string, error) {
	k := s.keys.Item(itemID)
	args := append([]any{itemID, 0, 0, 0, 0}, request...)
	res, err := s.reserve.Run(ctx, s.rdb, k.ReserveKeys([]string{"u"}, []string{""}), args...).Slice()
	if err != nil {
		return 0, "", err
	}
	rep, err := parseReply(res[1:5])
	return rep.code, rep.detail, err
}

// AdjustRaw and ReleaseRaw run their scripts with raw arguments and return
// the first value of the reply (the code).
func (s *Store) AdjustRaw(ctx context.Context, itemID int64, delta, variant any) (int64, error) {
	k := s.keys.Item(itemID)
	res, err := s.adjust.Run(ctx, s.rdb, []string{k.Stock(), k.Returns(), k.VariantStock()}, delta, variant).Int64Slice()
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

func (s *Store) ReleaseRaw(ctx context.Context, itemID int64, user, order, restock, variant any) (int64, error) {
	k := s.keys.Item(itemID)
	keys := []string{k.Stock(), k.Buyers(), k.Returns(), k.VariantStock()}
	res, err := s.release.Run(ctx, s.rdb, keys, user, order, restock, variant).Int64Slice()
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

// Codes the tests expect of malformed arguments.
const (
	ReserveBadQuantity = reserveBadQuantity
	ReserveBadArgument = reserveBadArgument
	AdjustBadArgs      = adjustBadArgs
	ReleaseBadArgs     = releaseBadArgs
)

// QueuedSkew and QueuedBudget are Queued's bounds.
const (
	QueuedSkew   = queuedSkew
	QueuedBudget = queuedBudget
)
