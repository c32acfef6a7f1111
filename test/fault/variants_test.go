package fault

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// variantRow is one row of variants.
type variantRow struct {
	ID                int64
	StockTotal, Stock int
}

func readVariants(tb testing.TB, db *sql.DB, itemID int64) []variantRow {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := db.QueryContext(ctx, "SELECT id, stock_total, stock FROM variants WHERE item_id = ? ORDER BY position", itemID)
	if err != nil {
		tb.Fatalf("read variants of item %d from MySQL: %v", itemID, err)
	}
	defer q.Close()
	var out []variantRow
	for q.Next() {
		var v variantRow
		if err := q.Scan(&v.ID, &v.StockTotal, &v.Stock); err != nil {
			tb.Fatal(err)
		}
		out = append(out, v)
	}
	if err := q.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// checkVariants checks invariants 1, 3 and 4 for each variant of the sale,
// against MySQL's rows and the stats, and returns what each variant sold of
// its stock, e.g. "7:375/375 8:371/375".
func checkVariants(rows []orderRow, variants []variantRow, st Stats, stock, total int, fail func(int, string, ...any)) string {
	active := map[int64]int{}
	for _, r := range rows {
		if r.Status != "cancelled" {
			active[r.Variant] += r.Qty
		}
	}
	ofSale := map[int64]bool{}
	sumStock, sumTotal := 0, 0
	soldOf := make([]string, 0, len(variants))
	for _, v := range variants {
		ofSale[v.ID] = true
		sumStock, sumTotal = sumStock+v.Stock, sumTotal+v.StockTotal
		sold := active[v.ID]
		soldOf = append(soldOf, fmt.Sprintf("%d:%d/%d", v.ID, sold, v.StockTotal))
		if sold > v.StockTotal {
			fail(1, "variant %d oversold: Σ active quantity %d > stock_total %d", v.ID, sold, v.StockTotal)
		}
		if v.Stock != v.StockTotal-sold {
			fail(4, "variant %d: MySQL stock %d, want stock_total %d − sold %d", v.ID, v.Stock, v.StockTotal, sold)
		}
		checkVariantStats(v, sold, st, fail)
	}
	for id, qty := range active {
		if !ofSale[id] {
			fail(3, "active orders hold %d units of variant %d, which is not the sale's", qty, id)
		}
	}
	if sumStock != stock || sumTotal != total {
		fail(4, "the sale's row says stock %d of %d, its variants sum to %d of %d", stock, total, sumStock, sumTotal)
	}
	if len(variants) != sizes {
		fail(4, "the sale has %d variants in MySQL, created with %d", len(variants), sizes)
	}
	return strings.Join(soldOf, " ")
}

// checkVariantStats checks one variant's figures in the drained stats.
func checkVariantStats(v variantRow, sold int, st Stats, fail func(int, string, ...any)) {
	for _, vs := range st.Variants {
		if vs.VariantID != v.ID {
			continue
		}
		want := v.StockTotal - sold
		switch {
		case vs.StockRedis == nil || *vs.StockRedis < 0:
			fail(1, "variant %d: Redis stock is %s: %s", v.ID, fmtStock(vs.StockRedis), st.Raw)
		case *vs.StockRedis != int64(want) || vs.StockMySQL != want:
			fail(4, "variant %d: want stock %d everywhere (total %d − sold %d), have redis %d, stats mysql %d",
				v.ID, want, v.StockTotal, sold, *vs.StockRedis, vs.StockMySQL)
		}
		if !vs.Consistent {
			fail(4, "variant %d: stats not consistent: %q", v.ID, vs.Problems)
		}
		return
	}
	fail(4, "variant %d is missing from the stats: %s", v.ID, st.Raw)
}
