package fault

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
)

// offerWatch checks, every time it looks, that a drawn sale's units move
// down its rankings as the draw promises, in both stores, and remembers
// every offer it saw so that it notices one made twice.
type offerWatch struct {
	db      *sql.DB
	rdb     redis.UniversalClient
	keys    keyspace.Item
	placeOf map[string]int    // entry id -> place recomputed from the published seed
	units   map[int64]int     // units drawn, per variant
	made    map[string]string // entry id -> its offer as first seen in MySQL
	held    map[string]string // user id -> its offer as first seen in Redis
	looks   int
}

func newOfferWatch(db *sql.DB, rdb redis.UniversalClient, prefix string, id int64, d publishedDraw, rank map[int64][]string) *offerWatch {
	w := &offerWatch{db: db, rdb: rdb, keys: keyspace.New(prefix).Item(id), placeOf: map[string]int{}, units: d.Units(),
		made: map[string]string{}, held: map[string]string{}}
	for _, r := range rank {
		for i, e := range r {
			w.placeOf[e] = i + 1
		}
	}
	return w
}

// redisView is the offers hash and the variants' stock, read in one step.
func (w *offerWatch) redisView(ctx context.Context) (map[string]string, map[string]string, error) {
	var offers, stock *redis.MapStringStringCmd
	_, err := w.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		offers, stock = p.HGetAll(ctx, w.keys.DrawOffers()), p.HGetAll(ctx, w.keys.VariantStock())
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return offers.Val(), stock.Val(), nil
}

// look checks both stores once. It reads Redis, MySQL, then Redis again:
// the job writes an offer to MySQL before Redis, so MySQL must hold every
// offer Redis held before it was read, and an offer MySQL holds that Redis
// did not after was still to be copied when Redis was read.
func (w *offerWatch) look(ctx context.Context, id int64) error {
	w.looks++
	before, err := w.rdb.HGetAll(ctx, w.keys.DrawOffers()).Result()
	if err != nil {
		return err
	}
	rows, err := entriesOf(ctx, w.db, id)
	if err != nil {
		return err
	}
	after, stock, err := w.redisView(ctx)
	if err != nil {
		return err
	}
	if err := w.checkRedis(before, rows); err != nil {
		return err
	}
	if err := w.checkUnits(after, stock, rows); err != nil {
		return err
	}
	return w.checkMySQL(rows)
}

// checkRedis: every offer Redis holds is one MySQL made, for that variant,
// and an offer only moves on (open, then bought or expired), never made
// again.
func (w *offerWatch) checkRedis(offers map[string]string, rows map[string]drawEntry) error {
	byUser := map[string]drawEntry{}
	for _, r := range rows {
		byUser[r.User] = r
	}
	for user, v := range offers {
		parts := strings.SplitN(v, ":", 3)
		first := parts[0] + ":" + parts[1]
		if prev, ok := w.held[user]; ok && prev != first {
			return fmt.Errorf("%s offered twice in Redis: %s, then %s", user, prev, v)
		}
		w.held[user] = first
		r, ok := byUser[user]
		if !ok || !r.State.Valid || strconv.FormatInt(r.Variant, 10) != parts[0] {
			return fmt.Errorf("Redis holds offer %q for %s, MySQL has %+v", v, user, r)
		}
	}
	return nil
}

// checkUnits: no open offer points at a unit that is not there: a
// variant's open offers (in Redis, or in MySQL and still to be copied)
// plus its units taken are at most its units, i.e. open offers ≤ stock
// left. offers and stock are read together, after rows.
func (w *offerWatch) checkUnits(offers, stock map[string]string, rows map[string]drawEntry) error {
	open := map[int64]int{}
	for _, r := range rows {
		v, ok := offers[r.User]
		if r.State.Valid && (!ok || strings.Count(v, ":") == 1) {
			open[r.Variant]++
		}
	}
	for v, n := range open {
		left, _ := strconv.Atoi(stock[strconv.FormatInt(v, 10)])
		if n > left {
			return fmt.Errorf("variant %d: %d open offers, %d units left (of %d): an offer points at a unit that is not there",
				v, n, left, w.units[v])
		}
	}
	return nil
}

// checkMySQL: each variant's offers went to a prefix 1..k of its ranking,
// in order (offered_at never decreases down the ranking), each entry once.
func (w *offerWatch) checkMySQL(rows map[string]drawEntry) error {
	offered := map[int64][]drawEntry{}
	for _, r := range rows {
		if r.Place.Valid && int(r.Place.Int64) != w.placeOf[r.EntryID] {
			return fmt.Errorf("entry %s at place %d, the published seed says %d", r.EntryID, r.Place.Int64, w.placeOf[r.EntryID])
		}
		if !r.State.Valid {
			continue
		}
		offered[r.Variant] = append(offered[r.Variant], r)
		// An offer is known by when it was made: its deadline moves once if
		// Redis lacked it after a crash (the shopper gets a full window).
		what := r.OfferedAt.Time.Format(time.RFC3339Nano)
		if prev, ok := w.made[r.EntryID]; ok && prev != what {
			return fmt.Errorf("entry %s offered twice: %s, then %s", r.EntryID, prev, what)
		}
		w.made[r.EntryID] = what
	}
	for v, rs := range offered {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Place.Int64 < rs[j].Place.Int64 })
		for i, r := range rs {
			if int(r.Place.Int64) != i+1 {
				return fmt.Errorf("variant %d: offers went to places %v, not a prefix of the ranking", v, placesOf(rs))
			}
			if i > 0 && r.OfferedAt.Time.Before(rs[i-1].OfferedAt.Time) {
				return fmt.Errorf("variant %d: place %d offered at %v, before place %d (%v)", v, i+1, r.OfferedAt.Time, i, rs[i-1].OfferedAt.Time)
			}
		}
	}
	return nil
}

func placesOf(rs []drawEntry) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.Place.Int64
	}
	return out
}

// offeredPerVariant counts the offers MySQL holds, per variant.
func (w *offerWatch) offeredPerVariant(ctx context.Context, id int64) (map[int64]int, error) {
	rows, err := entriesOf(ctx, w.db, id)
	out := map[int64]int{}
	for _, r := range rows {
		if r.State.Valid {
			out[r.Variant]++
		}
	}
	return out, err
}
