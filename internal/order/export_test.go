package order

import (
	"context"

	"github.com/seckill/seckill/internal/keyspace"
)

// PersistCareful persists a batch on the careful path alone, as every batch
// was persisted before the fast path: tests hold the two to the same
// results and the same rows.
func (s *Store) PersistCareful(ctx context.Context, entries []keyspace.Entry) (Result, error) {
	return s.persist(ctx, entries, false)
}

var (
	TakeFrom      = takeFrom
	ErrStockGuard = errStockGuard
)
