// Package revoke remembers sessions signed out before their expiry, in
// Redis, so that every server refuses a copy of a signed-out session until
// it would have expired anyway. A session is signed (a JWT), so without this
// list a copied cookie would keep working to its end whatever its owner did.
package revoke

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// Store is the list of revoked session ids, under the server's key prefix.
type Store struct {
	rdb  redis.UniversalClient
	keys keyspace.Space
}

// New returns the store on rdb.
func New(rdb redis.UniversalClient, keys keyspace.Space) *Store { return &Store{rdb: rdb, keys: keys} }

// Revoke records session id as signed out for ttl: the session's remaining
// life, after which its signature refuses it by itself. It returns Redis's
// error, wrapped.
func (s *Store) Revoke(ctx context.Context, id string, ttl time.Duration) error {
	if ttl <= 0 {
		return nil // expired already
	}
	if err := s.rdb.Set(ctx, s.keys.RevokedSession(id), 1, ttl).Err(); err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

// Revoked says whether session id was signed out. It returns Redis's error,
// wrapped: a caller must then refuse the session, not let it through.
func (s *Store) Revoked(ctx context.Context, id string) (bool, error) {
	n, err := s.rdb.Exists(ctx, s.keys.RevokedSession(id)).Result()
	if err != nil {
		return false, fmt.Errorf("check revoked session: %w", err)
	}
	return n > 0, nil
}
