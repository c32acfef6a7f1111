package drop

import (
	"context"
	"testing"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// checkDropAfterStorm checks the drained drop against what its shoppers
// were left with, in every place a shopper or an operator would look.
func checkDropAfterStorm(t *testing.T, s *e2etest.Server, id int64, tally *dropTally) {
	t.Helper()
	st := s.Settle(t, id)
	sold := checkDropOrders(t, s, id, tally)
	checkDropBuyers(t, s, id, tally)
	checkDropStock(t, s, id, sold)
	checkDropStats(t, st, sold, tally.cancelled)
	shop := s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id), "", nil)
	if shop.Status != 200 || shop.Str("status") != "sold_out" || e2etest.Num(shop.Body, "stock_left") != 0 {
		t.Errorf("the shop shows the sold-out drop as %s", shop.Raw)
	}
	for _, v := range shop.Body["variants"].([]any) {
		if v := v.(map[string]any); v["status"] != "sold_out" || e2etest.Num(v, "stock_left") != 0 {
			t.Errorf("the shop shows a sold-out size as %v", v)
		}
	}
}

// checkDropOrders: MySQL holds, per shopper, at most one order that is not
// cancelled: exactly the one the shopper was left holding, of that size;
// and the cancels the shoppers made. It returns the units sold per size.
func checkDropOrders(t *testing.T, s *e2etest.Server, id int64, tally *dropTally) map[int64]int {
	t.Helper()
	var rows []struct {
		ID, UserID, Status string
		VariantID          int64
		Quantity           int
	}
	err := s.Db.Gorm.Raw("SELECT id, user_id, variant_id, quantity, status FROM orders WHERE item_id = ?", id).Scan(&rows).Error
	if err != nil {
		t.Fatal(err)
	}
	sold, cancelled, active := map[int64]int{}, map[int64]int{}, map[string]int{}
	for _, o := range rows {
		if o.Status == "cancelled" {
			cancelled[o.VariantID]++
			continue
		}
		sold[o.VariantID] += o.Quantity
		if active[o.UserID]++; active[o.UserID] > 1 {
			t.Errorf("%s holds %d active orders", o.UserID, active[o.UserID])
		}
		if h := tally.held[o.UserID]; h.id != o.ID || h.variant != o.VariantID {
			t.Errorf("MySQL holds order %s of size %d for %s, who was left holding %+v", o.ID, o.VariantID, o.UserID, h)
		}
	}
	if len(active) != len(tally.held) {
		t.Errorf("%d shoppers hold an order in MySQL, %d were told they do", len(active), len(tally.held))
	}
	for v, n := range tally.cancelled {
		if cancelled[v] != n {
			t.Errorf("size %d: %d orders cancelled in MySQL, shoppers cancelled %d", v, cancelled[v], n)
		}
	}
	return sold
}

// checkDropBuyers: Redis's buyers of the sale are exactly the shoppers left
// holding an order, each with that order of that size.
func checkDropBuyers(t *testing.T, s *e2etest.Server, id int64, tally *dropTally) {
	t.Helper()
	ctx := context.Background()
	rdb, err := redisconn.Open(ctx, s.Cfg.Redis, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	buyers, err := rdb.HGetAll(ctx, keyspace.New(s.Cfg.RedisPrefix).Item(id).Buyers()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for user, v := range buyers {
		b, err := keyspace.ParseBuyer(v)
		if h := tally.held[user]; err != nil || b.OrderID != h.id || b.VariantID != h.variant {
			t.Errorf("Redis says %s holds %s (%v); the shopper holds %+v", user, v, err, h)
		}
	}
	if len(buyers) != len(tally.held) {
		t.Errorf("Redis has %d buyers, %d shoppers hold an order", len(buyers), len(tally.held))
	}
}

// checkDropStock: every size sold exactly its stock, its stock in MySQL is
// stock_total minus its active orders, and the sale's row is their sum.
func checkDropStock(t *testing.T, s *e2etest.Server, id int64, sold map[int64]int) {
	t.Helper()
	var vs []struct {
		ID                int64
		StockTotal, Stock int
	}
	if err := s.Db.Gorm.Raw("SELECT id, stock_total, stock FROM variants WHERE item_id = ?", id).Scan(&vs).Error; err != nil {
		t.Fatal(err)
	}
	var item struct{ StockTotal, Stock int }
	if err := s.Db.Gorm.Raw("SELECT stock_total, stock FROM items WHERE id = ?", id).Scan(&item).Error; err != nil {
		t.Fatal(err)
	}
	sumTotal, sumStock := 0, 0
	for _, v := range vs {
		sumTotal, sumStock = sumTotal+v.StockTotal, sumStock+v.Stock
		if sold[v.ID] != v.StockTotal || v.Stock != v.StockTotal-sold[v.ID] {
			t.Errorf("size %d: sold %d of %d, MySQL stock %d: want every unit sold", v.ID, sold[v.ID], v.StockTotal, v.Stock)
		}
	}
	if sumTotal != item.StockTotal || sumStock != item.Stock {
		t.Errorf("the sale's row says %d of %d, its sizes sum to %d of %d", item.Stock, item.StockTotal, sumStock, sumTotal)
	}
}

// checkDropStats: the stats say consistent, for the sale and every size,
// with each size's figures as MySQL has them.
func checkDropStats(t *testing.T, st e2etest.Reply, sold, cancelled map[int64]int) {
	t.Helper()
	if st.Body["consistent"] != true {
		t.Errorf("stats: %s", st.Raw)
	}
	for _, v := range st.Body["variants"].([]any) {
		v := v.(map[string]any)
		id := int64(e2etest.Num(v, "variant_id"))
		if v["consistent"] != true || e2etest.Num(v, "sold") != sold[id] || e2etest.Num(v, "sold") != e2etest.Num(v, "stock_total") ||
			v["stock_redis"] != 0.0 || e2etest.Num(v, "stock_mysql") != 0 || e2etest.Num(v, "orders_pending") != 0 ||
			e2etest.Num(v, "orders_cancelled") != cancelled[id] {
			t.Errorf("stats of size %d: %v; want consistent, all %d sold, 0 left, %d cancelled", id, v, sold[id], cancelled[id])
		}
	}
}
