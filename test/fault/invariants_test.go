package fault

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/harness"
)

// Report is what Verify measured.
type Report struct {
	Acked      int           // shoppers holding a 202
	Rows       int           // the sale's orders in MySQL
	ActiveQty  int           // Σ quantity of its active orders
	Unacked    int           // rows whose 202 never reached a shopper (lost to the fault, or never sent)
	Missing    int           // order ids a shopper was given that MySQL does not hold
	Duplicates int           // order ids stored twice, plus extra active orders of one shopper
	Drained    time.Duration // how long the queue took to drain once Verify began
	Stats      Stats
	Sizes      string // each variant's units sold of its stock_total
}

func (r Report) String() string {
	return fmt.Sprintf("shoppers with a 202: %d, rows in MySQL: %d (Σ qty %d, %d never acknowledged), "+
		"missing: %d, duplicates: %d, drained in %v; stock total %d, mysql %d, redis %s, consistent %v; sold by variant %s",
		r.Acked, r.Rows, r.ActiveQty, r.Unacked, r.Missing, r.Duplicates, r.Drained.Round(time.Millisecond),
		r.Stats.StockTotal, r.Stats.StockMySQL, fmtStock(r.Stats.StockRedis), r.Stats.Consistent, r.Sizes)
}

func fmtStock(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// orderRow is one row of orders.
type orderRow struct {
	ID, User, Status string
	Qty              int
	Variant          int64
}

// Violation is one broken invariant, numbered as in Verify's comment.
type Violation struct {
	Invariant int
	Msg       string
	// AckLost marks what follows when Redis loses writes it acknowledged (a
	// failover to a replica that had not received them): an order a shopper
	// was given is missing, or a shopper was told of two orders.
	AckLost bool
}

func (v Violation) String() string { return fmt.Sprintf("invariant %d: %s", v.Invariant, v.Msg) }

// Verify waits until the sale's queue is drained (orders_pending 0, up to
// 30s), then checks the invariants of docs/how-it-works.md straight against MySQL and
// through the admin stats:
//
//  1. no oversell, of the sale and of each variant: Σ quantity of active
//     orders ≤ stock_total, Redis stock ≥ 0;
//  2. one active order per (item, shopper), whatever the mix of variants;
//  3. every order id a shopper was given (202, or named by a 409) is in MySQL
//     exactly once, for that shopper and quantity (and the variant its 202
//     named), and of a variant of the sale;
//  4. drained: Redis stock = MySQL stock = stock_total − Σ active quantity,
//     for the sale and for each variant, the sale's row holds the sums of its
//     variants', and the stats say consistent, for the sale and each variant.
//
// Each violation is reported with tb.Errorf; the report holds the counts.
func Verify(tb testing.TB, db *sql.DB, api *harness.Client, itemID int64, res Result) Report {
	tb.Helper()
	rep, violations := Check(tb, db, api, itemID, res)
	for _, v := range violations {
		tb.Error(v)
	}
	return rep
}

// Check measures what Verify checks and returns the violations instead of
// failing the test, for faults after which some invariants are not promised
// (a Redis failover); it fails the test only if it cannot read the stores.
func Check(tb testing.TB, db *sql.DB, api *harness.Client, itemID int64, res Result) (Report, []Violation) {
	tb.Helper()
	var vs []Violation
	// A negative invariant number marks a violation a lost Redis write explains.
	fail := func(inv int, format string, args ...any) {
		vs = append(vs, Violation{Invariant: max(inv, -inv), Msg: fmt.Sprintf(format, args...), AckLost: inv < 0})
	}
	rep := Report{Acked: len(res.Acked)}
	var err error
	if rep.Stats, rep.Drained, err = drain(api, itemID); err != nil {
		fail(4, "queue not drained: %v", err)
	}
	rows, stock, total := readSale(tb, db, itemID)
	variants := readVariants(tb, db, itemID)
	rep.Rows = len(rows)
	byID := map[string][]orderRow{}
	active := map[string]int{}
	given := map[string]bool{}
	for _, oid := range res.Acked {
		given[oid] = true
	}
	for _, r := range rows {
		byID[r.ID] = append(byID[r.ID], r)
		if !given[r.ID] {
			rep.Unacked++
		}
		if r.Status != "cancelled" {
			rep.ActiveQty += r.Qty
			active[r.User]++
		}
	}
	for id, rs := range byID {
		if len(rs) > 1 {
			rep.Duplicates += len(rs) - 1
			fail(3, "order %s stored %d times", id, len(rs))
		}
	}
	for user, n := range active {
		if n > 1 {
			rep.Duplicates += n - 1
			fail(2, "%s holds %d active orders", user, n)
		}
	}
	rep.Missing = checkGiven(res, byID, fail)
	checkStock(rep, stock, total, fail)
	rep.Sizes = checkVariants(rows, variants, rep.Stats, stock, total, fail)
	tb.Logf("invariants: %s", rep)
	return rep, vs
}

// drain polls the stats until nothing of the sale is pending.
func drain(api *harness.Client, itemID int64) (Stats, time.Duration, error) {
	began := time.Now()
	var st Stats
	err := poll(30*time.Second, 50*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		if st, err = stats(ctx, api, itemID); err == nil && st.OrdersPending > 0 {
			err = fmt.Errorf("%d orders pending: %s", st.OrdersPending, st.Raw)
		}
		return err
	})
	return st, time.Since(began), err
}

func readSale(tb testing.TB, db *sql.DB, itemID int64) (rows []orderRow, stock, total int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := db.QueryRowContext(ctx, "SELECT stock, stock_total FROM items WHERE id = ?", itemID).Scan(&stock, &total)
	if err != nil {
		tb.Fatalf("read item %d from MySQL: %v", itemID, err)
	}
	q, err := db.QueryContext(ctx, "SELECT id, user_id, quantity, status, variant_id FROM orders WHERE item_id = ?", itemID)
	if err != nil {
		tb.Fatalf("read orders of item %d from MySQL: %v", itemID, err)
	}
	defer q.Close()
	for q.Next() {
		var r orderRow
		if err := q.Scan(&r.ID, &r.User, &r.Qty, &r.Status, &r.Variant); err != nil {
			tb.Fatal(err)
		}
		rows = append(rows, r)
	}
	if err := q.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows, stock, total
}

// checkGiven checks invariant 3 and returns how many given ids are missing.
func checkGiven(res Result, byID map[string][]orderRow, fail func(int, string, ...any)) int {
	for _, c := range res.Conflicts {
		fail(-2, "a shopper was told about two orders: %s", c)
	}
	missing := 0
	check := func(how, user, oid string) {
		rs := byID[oid]
		switch {
		case len(rs) == 0:
			missing++
			fail(-3, "order %s (%s to %s) is not in MySQL", oid, how, user)
		case rs[0].User != user || rs[0].Qty != res.Qty[user]:
			fail(3, "order %s (%s to %s, qty %d) is stored as %+v", oid, how, user, res.Qty[user], rs[0])
		case how == "202" && rs[0].Variant != res.Variant[user]:
			fail(3, "order %s (202 to %s for variant %d) is stored as %+v", oid, user, res.Variant[user], rs[0])
		}
	}
	for user, oid := range res.Acked {
		check("202", user, oid)
	}
	for user, oid := range res.Named {
		if res.Acked[user] != oid {
			check("named by a 409", user, oid)
		}
	}
	return missing
}

// checkStock checks invariants 1 and 4.
func checkStock(rep Report, mysqlStock, total int, fail func(int, string, ...any)) {
	st := rep.Stats
	if rep.ActiveQty > total {
		fail(1, "oversold: Σ active quantity %d > stock_total %d", rep.ActiveQty, total)
	}
	if st.StockRedis == nil || *st.StockRedis < 0 {
		fail(1, "Redis stock is %s: %s", fmtStock(st.StockRedis), st.Raw)
		return
	}
	want := int64(total - rep.ActiveQty)
	if *st.StockRedis != want || int64(st.StockMySQL) != want || int64(mysqlStock) != want {
		fail(4, "want stock %d everywhere (total %d − sold %d), have redis %d, stats mysql %d, items.stock %d",
			want, total, rep.ActiveQty, *st.StockRedis, st.StockMySQL, mysqlStock)
	}
	if !st.Consistent {
		fail(4, "stats not consistent: %s", st.Raw)
	}
}
