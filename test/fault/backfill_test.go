package fault

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/harness"
)

// TestKill9MidBackfill runs a draw of 20 units over the sizes (200
// entrants, 10 s windows) in which the first winners of each size buy, let
// their window pass or buy and cancel, and everyone offered a unit after
// them buys at once; it kill -9s the only server three times, each time
// the moment MySQL shows a new offer made (at the draw, when the cancelled
// units pass on, when the lapsed ones do), and restarts it. At every look:
// no open offer points at a unit that is not there, offers went to a
// prefix of each ranking in order, each entry once, Redis never ahead of
// MySQL. At the end every unit is sold, each to a different shopper who
// was offered it, and the storm invariants hold (Verify).
func TestKill9MidBackfill(t *testing.T) {
	units := []int{5, 5, 5, 5} // sizes of them (Verify checks the sale has that many), one per plan
	plans := []string{planBuy, planLapse, planCancel, planBuy, planLapse}
	b, userOf := newBackfill(t, units, 200)
	// One kill as each wave of offers is being made: the draw's, the
	// cancelled units' (once the drawn ones are all made), the lapsed
	// ones' (once the cancelled ones are, too).
	drawn, cancels := sum(units), len(units)*countOf(plans, planCancel)
	kills := []killed{b.kill(t, 0)}
	d := awaitDrawn(t, b.srv.API, b.id, 30*time.Second)
	rank := rankings(t, d)
	b.watch = newOfferWatch(b.db, b.rdb, b.s.Prefix, b.id, d, rank)
	driver := startDriver(b.srv.API, b.id, drawShoppers(t, b.s.JWTSecret, rank, userOf, d.Units(), plans, 12))
	t.Cleanup(func() { driver.Stop() })
	for _, after := range []int{drawn, drawn + cancels} {
		kills = append(kills, b.kill(t, max(after, kills[len(kills)-1].offers)))
	}
	awaitSoldOut(t, b.db, b.watch, b.id)
	for _, p := range driver.Stop() {
		t.Error(p)
	}
	final := offered(t, b.db, b.id)
	for i, k := range kills {
		t.Logf("kill %d (pid %d) as offer %d was made: %d offers in MySQL, %d of them not yet in Redis; up again in %v; "+
			"%d units offered after it", i+1, k.pid, k.seen, k.offers, k.notInRedis, k.up.Round(time.Millisecond), final-k.offers)
	}
	checkBackfilled(t, b, driver, units[0]+countOf(plans, planLapse)+countOf(plans, planCancel))
}

// backfill is TestKill9MidBackfill's scene: one server, its stores, a
// draw sale and, once it is drawn, the watch on its offers.
type backfill struct {
	s     *Setup
	srv   *Server
	db    *sql.DB
	rdb   redis.UniversalClient
	id    int64
	watch *offerWatch
}

// newBackfill starts a server and creates a draw of units closing in 2 s
// with 10 s windows, entered by n shoppers spread over its sizes; it
// returns the scene and each entry's shopper.
func newBackfill(t *testing.T, units []int, n int) (*backfill, map[string]string) {
	t.Helper()
	b := &backfill{s: NewSetup(t, env)}
	red := env.Redises()[0].Redis
	b.srv = StartServer(t, b.s, "server", red)
	b.db, b.rdb = b.s.OpenDB(t), redisClient(t, red)
	id, variants := createDraw(t, b.srv.API, units, time.Now().Add(2*time.Second), 10*time.Second)
	b.id = id
	open, err := readDraw(context.Background(), b.srv.API, id)
	if err != nil || open.Phase != "entries_open" {
		t.Fatalf("draw before the close: %+v %v", open, err)
	}
	salt := unhex(t, "salt", open.Salt)
	users, userOf := make([]string, n), map[string]string{}
	for i := range users {
		users[i] = fmt.Sprintf("drawer-%03d", i)
		userOf[hexSHA256(salt, []byte(users[i]))] = users[i]
	}
	seedEntries(t, b.db, id, salt, users, func(i int) int64 { return variants[i%len(variants)] })
	return b, userOf
}

// killed is what a kill found.
type killed struct {
	pid, seen  int // the server's, and the offers MySQL held when it was killed
	offers     int // the offers MySQL held once it was dead
	notInRedis int // of those, how many Redis did not have: the kill came between the job's two writes
	up         time.Duration
}

// kill waits until MySQL holds more than after offers, kill -9s the
// server at once and restarts it.
func (b *backfill) kill(t *testing.T, after int) killed {
	t.Helper()
	k := killed{seen: awaitOfferMade(t, b.db, b.watch, b.id, after), pid: b.srv.Pid()}
	b.srv.Kill9(t)
	k.notInRedis, k.offers = offersNotInRedis(t, b.db, b.rdb, b.s.Prefix, b.id), offered(t, b.db, b.id)
	expireDrawJob(t, b.rdb, b.s.Prefix)
	k.up = b.srv.Up(t)
	if b.watch != nil {
		if err := b.watch.look(context.Background(), b.id); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// awaitOfferMade waits, looking at the stores all along, until MySQL holds
// more offers than last, and returns how many.
func awaitOfferMade(t *testing.T, db *sql.DB, watch *offerWatch, id int64, last int) int {
	t.Helper()
	var n int
	looked := time.Now()
	err := poll(40*time.Second, 2*time.Millisecond, func() error {
		if n = offered(t, db, id); n > last {
			return nil
		}
		if watch != nil && time.Since(looked) > 50*time.Millisecond {
			looked = time.Now()
			if err := watch.look(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		}
		return errNotYet
	})
	if err != nil {
		t.Fatalf("no offer made after the first %d: %v", last, err)
	}
	return n
}

func offered(tb testing.TB, db *sql.DB, id int64) int {
	tb.Helper()
	var n int
	err := db.QueryRow("SELECT COUNT(*) FROM draw_entries WHERE item_id = ? AND offer_state IS NOT NULL", id).Scan(&n)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// offersNotInRedis counts the offers MySQL holds that Redis does not: a
// kill between the job's two writes.
func offersNotInRedis(tb testing.TB, db *sql.DB, rdb redis.UniversalClient, prefix string, id int64) int {
	tb.Helper()
	held, err := rdb.HGetAll(context.Background(), offersKey(prefix, id)).Result()
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, r := range readEntries(tb, db, id) {
		if _, ok := held[r.User]; r.State.Valid && !ok {
			n++
		}
	}
	return n
}

// awaitSoldOut waits, looking at the stores all along, until every unit
// of the sale is held by an active order in MySQL.
func awaitSoldOut(t *testing.T, db *sql.DB, watch *offerWatch, id int64) {
	t.Helper()
	err := poll(60*time.Second, 50*time.Millisecond, func() error {
		if err := watch.look(context.Background(), id); err != nil {
			return harness.Abort(err)
		}
		var sold, total int
		err := db.QueryRow("SELECT (SELECT COUNT(*) FROM orders WHERE item_id = ? AND status <> 'cancelled'), "+
			"(SELECT stock_total FROM items WHERE id = ?)", id, id).Scan(&sold, &total)
		if err == nil && sold < total {
			err = fmt.Errorf("%d of %d units sold", sold, total)
		}
		return err
	})
	if err != nil {
		t.Fatalf("the sale did not sell out: %v", err)
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func countOf(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// checkBackfilled checks the sold-out sale: the storm invariants, every
// unit sold to a shopper who bought when offered, perVariant offers made
// in each size, and the offers settled alike in both stores.
func checkBackfilled(t *testing.T, b *backfill, driver *drawDriver, perVariant int) {
	t.Helper()
	srv, db, rdb, prefix, id, watch := b.srv, b.db, b.rdb, b.s.Prefix, b.id, b.watch
	rep := Verify(t, db, srv.API, id, driver.result())
	for _, v := range readVariants(t, db, id) {
		if v.Stock != 0 {
			t.Errorf("variant %d has %d of %d units unsold", v.ID, v.Stock, v.StockTotal)
		}
	}
	buyers := map[string]bool{}
	for _, sh := range driver.shoppers {
		if sh.plan == planBuy && sh.order != "" {
			buyers[sh.user] = true
		}
	}
	rows, _, total := readSale(t, db, id)
	for _, r := range rows {
		if r.Status != "cancelled" && !buyers[r.User] {
			t.Errorf("active order %s is %s's, who was not offered a unit or did not mean to keep it", r.ID, r.User)
		}
	}
	if rep.ActiveQty != total || len(buyers) != total {
		t.Errorf("%d units sold to %d buyers, want all %d", rep.ActiveQty, len(buyers), total)
	}
	per, err := watch.offeredPerVariant(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for v, n := range per {
		if n != perVariant {
			t.Errorf("variant %d: %d offers made, want %d (its units, plus one for each lapse and cancel)", v, n, perVariant)
		}
	}
	awaitSettled(t, db, rdb, prefix, id)
	// Drawn once: the draw's offers were all made at drawn_at. (The log
	// says nothing here: the first kill comes as the draw commits, often
	// before the server logs it.)
	at := drawnAt(t, db, id)
	for _, r := range readEntries(t, db, id) {
		if r.Place.Valid && int(r.Place.Int64) <= watch.units[r.Variant] && !r.OfferedAt.Time.Equal(at.Time) {
			t.Errorf("entry %s at place %d offered at %v, the sale drawn at %v", r.EntryID, r.Place.Int64, r.OfferedAt.Time, at.Time)
		}
	}
	t.Logf("%d looks at both stores; offers per variant %v", watch.looks, per)
}

// awaitSettled waits until every offer is settled (bought or expired) and
// MySQL says of each what Redis says.
func awaitSettled(t *testing.T, db *sql.DB, rdb redis.UniversalClient, prefix string, id int64) {
	t.Helper()
	err := poll(10*time.Second, 50*time.Millisecond, func() error {
		held, err := rdb.HGetAll(context.Background(), offersKey(prefix, id)).Result()
		if err != nil {
			return err
		}
		for _, r := range readEntries(t, db, id) {
			if !r.State.Valid {
				continue
			}
			v := held[r.User]
			state := v[strings.LastIndex(v, ":")+1:]
			if state != "bought" && state != "expired" || state != r.State.String {
				return fmt.Errorf("%s's offer is %q in Redis, %s in MySQL", r.User, v, r.State.String)
			}
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
