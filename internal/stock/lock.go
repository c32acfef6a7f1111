package stock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrLocked is returned when another process kept the item's repair lock.
var ErrLocked = errors.New("stock: repair of this sale is in progress elsewhere")

// LockRepair takes the item's repair lock, waiting up to wait for it. The
// lock expires after ttl if its holder dies. The returned function releases
// it if it is still ours.
func (s *Store) LockRepair(ctx context.Context, itemID int64, ttl, wait time.Duration) (func(), error) {
	key := s.keys.Item(itemID).RepairLock()
	b := make([]byte, 16)
	rand.Read(b)
	token := hex.EncodeToString(b)
	deadline := time.Now().Add(wait)
	for {
		ok, err := s.rdb.SetNX(ctx, key, token, ttl).Result()
		if err != nil {
			return nil, fmt.Errorf("lock repair of item %d: %w", itemID, err)
		}
		if ok {
			return func() { s.unlock(key, token) }, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock repair of item %d: %w", itemID, ErrLocked)
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// unlock deletes the key only if it still holds our token (WATCH makes the
// check and the delete one step).
func (s *Store) unlock(key, token string) {
	ctx := context.Background()
	s.rdb.Watch(ctx, func(tx *redis.Tx) error {
		if v, err := tx.Get(ctx, key).Result(); err != nil || v != token {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Del(ctx, key).Err() })
		return err
	}, key)
}
