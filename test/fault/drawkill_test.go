package fault

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/harness"
)

// TestKill9MidDraw kill -9s the only server while its draw transaction is
// writing the places of 100,000 entries, halfway through, and restarts it.
// The transaction never committed, so the restarted server draws the sale
// once, from the start: every entry is ranked exactly as the published
// seed says (places 1..n per variant, no gap, no duplicate), the offers
// are exactly each variant's first units of that ranking, all made by the
// one draw that committed, the published winners are those, and Redis
// holds exactly the winners' open offers.
func TestKill9MidDraw(t *testing.T) {
	const entries = 100_000
	units := []int{300, 200, 100}
	s := NewSetup(t, env)
	red := env.Redises()[0].Redis
	srv := StartServer(t, s, "server", red)
	db, rdb := s.OpenDB(t), redisClient(t, red)
	closes := time.Now().Add(3 * time.Second)
	id, variants := createDraw(t, srv.API, units, closes, time.Minute)
	open, err := readDraw(context.Background(), srv.API, id)
	if err != nil || open.Phase != "entries_open" {
		t.Fatalf("draw before the close: %+v %v", open, err)
	}
	salt, variantOf := unhex(t, "salt", open.Salt), func(i int) int64 { return variants[i%len(variants)] }
	users, entered, unitsOf := make([]string, entries), map[string]int64{}, map[int64]int{}
	for i := range users {
		users[i] = fmt.Sprintf("entrant-%06d", i)
		entered[hexSHA256(salt, []byte(users[i]))] = variantOf(i)
	}
	for i, v := range variants {
		unitsOf[v] = units[i]
	}
	seeding := time.Now()
	seedEntries(t, db, id, salt, users, variantOf)
	seeded := time.Now()

	dirty := dirtyReader(t, db)
	firstPlace := awaitHalfWritten(t, dirty, id, entries)
	dead := srv.Pid()
	srv.Kill9(t)
	killed := time.Now()
	if drawnAt(t, db, id).Valid {
		t.Fatal("the kill came after the draw committed: it was not caught mid-draw")
	}
	if n := committedPlaces(t, db, id); n > 0 {
		t.Fatalf("the killed draw left %d places committed and the sale not drawn: the draw is not one transaction", n)
	}
	redraw := make(chan redrawn, 1)
	go func() { redraw <- dirty.watchRedraw(db, id, killed) }()
	expireDrawJob(t, rdb, s.Prefix)
	up := srv.Up(t)
	w := <-redraw
	if w.err != nil {
		t.Fatalf("no draw after the restart: %v", w.err)
	}
	t.Logf("%d entries over %d sizes seeded in %v; entries closed %v after; the draw wrote its first place %v after the close "+
		"and was kill -9ed (pid %d) %v later with about half written, uncommitted; restarted in %v; the dead transaction "+
		"was rolled back %v after the kill; the second draw wrote its first place %v after the kill and committed %v after that",
		entries, len(units), seeded.Sub(seeding).Round(time.Millisecond), closes.Sub(seeded).Round(time.Millisecond),
		firstPlace.Sub(closes).Round(time.Millisecond), dead, killed.Sub(firstPlace).Round(time.Millisecond),
		up.Round(time.Millisecond), w.rolledBack.Round(time.Millisecond), w.first.Round(time.Millisecond),
		(w.drawn - w.first).Round(time.Millisecond))

	d := awaitDrawn(t, srv.API, id, 30*time.Second)
	checkDrawnOnce(t, db, id, d, entered, unitsOf)
	checkOffersHeld(t, s, rdb, db, id, d)
	// The server logs the draw before it copies the offers to Redis, which
	// checkOffersHeld waited for.
	if n := logCount(srv, "sale drawn"); n != 1 {
		t.Errorf(`the server logged "sale drawn" %d times, want once`, n)
	}
}

// dirty is a connection that reads uncommitted rows: it sees a draw's
// transaction write places before it commits (the fault tests' MySQL user
// may not read information_schema.innodb_trx).
type dirty struct{ conn *sql.Conn }

func dirtyReader(tb testing.TB, db *sql.DB) dirty {
	tb.Helper()
	conn, err := db.Conn(context.Background())
	if err == nil {
		_, err = conn.ExecContext(context.Background(), "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return dirty{conn}
}

// awaitHalfWritten waits until the draw of sale id has written the places
// of half its entries, uncommitted, and returns when it wrote the first.
func awaitHalfWritten(t *testing.T, dirty dirty, id int64, entries int) time.Time {
	t.Helper()
	var first time.Time
	err := poll(60*time.Second, 5*time.Millisecond, func() error {
		n, err := dirty.places(id)
		if err != nil {
			return harness.Abort(err)
		}
		if n > 0 && first.IsZero() {
			first = time.Now()
		}
		if n < entries/2 {
			return fmt.Errorf("%d of %d places written", n, entries)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the draw never got halfway: %v", err)
	}
	return first
}

// places is how many entries of the sale have a place, committed or not.
func (d dirty) places(id int64) (int, error) {
	var n int
	err := d.conn.QueryRowContext(context.Background(),
		"SELECT COUNT(*) FROM draw_entries WHERE item_id = ? AND place IS NOT NULL", id).Scan(&n)
	return n, err
}

// redrawn is what watchRedraw saw, each time since the kill: the dead
// transaction's places all rolled back, the next draw's first place
// written, and that draw committed.
type redrawn struct {
	rolledBack, first, drawn time.Duration
	err                      error
}

// watchRedraw follows the draw after a kill until it commits.
func (d dirty) watchRedraw(db *sql.DB, id int64, killed time.Time) redrawn {
	var w redrawn
	w.err = poll(90*time.Second, 5*time.Millisecond, func() error {
		n, err := d.places(id)
		if err != nil {
			return harness.Abort(err)
		}
		switch {
		case w.rolledBack == 0 && n == 0:
			w.rolledBack = time.Since(killed)
		case w.rolledBack != 0 && w.first == 0 && n > 0:
			w.first = time.Since(killed)
		}
		var at sql.NullTime
		if err := db.QueryRow("SELECT drawn_at FROM items WHERE id = ?", id).Scan(&at); err != nil {
			return harness.Abort(err)
		}
		if !at.Valid {
			return fmt.Errorf("not drawn; %d places written", n)
		}
		w.drawn = time.Since(killed)
		return nil
	})
	return w
}

func drawnAt(tb testing.TB, db *sql.DB, id int64) sql.NullTime {
	tb.Helper()
	var at sql.NullTime
	if err := db.QueryRow("SELECT drawn_at FROM items WHERE id = ?", id).Scan(&at); err != nil {
		tb.Fatal(err)
	}
	return at
}

func committedPlaces(tb testing.TB, db *sql.DB, id int64) int {
	tb.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM draw_entries WHERE item_id = ? AND place IS NOT NULL", id).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// checkDrawnOnce checks the drawn sale against the entries seeded (entry
// id -> variant) and the units created, and against the ranking recomputed
// from what it publishes: nothing lost, every place as the seed says, and
// one draw's offers to exactly each variant's first units.
func checkDrawnOnce(t *testing.T, db *sql.DB, id int64, d publishedDraw, entered map[string]int64, units map[int64]int) {
	t.Helper()
	for _, e := range d.Entries {
		if v, ok := entered[e.EntryID]; !ok || v != e.VariantID {
			t.Fatalf("the draw published entry %+v, entered for variant %d (0: never entered)", e, v)
		}
	}
	if len(d.Entries) != len(entered) {
		t.Fatalf("the draw published %d entries, %d were entered", len(d.Entries), len(entered))
	}
	if fmt.Sprint(d.Units()) != fmt.Sprint(units) {
		t.Fatalf("drawn with units %v, created with %v", d.Units(), units)
	}
	rank, rows := rankings(t, d), readEntries(t, db, id)
	if len(rows) != len(entered) {
		t.Fatalf("MySQL holds %d entries, %d were entered", len(rows), len(entered))
	}
	var want []drawTicket
	for v, r := range rank {
		for _, e := range r[:units[v]] {
			want = append(want, drawTicket{EntryID: e, VariantID: v})
		}
		checkPlaces(t, rows, r, units[v], drawnAt(t, db, id).Time)
	}
	got := append([]drawTicket(nil), d.Winners...)
	sort.Slice(got, func(i, j int) bool { return got[i].EntryID < got[j].EntryID })
	sort.Slice(want, func(i, j int) bool { return want[i].EntryID < want[j].EntryID })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the draw published %d winners, the recomputed ranking gives %d (or others)", len(got), len(want))
	}
}

// checkPlaces checks one variant's entries in MySQL against its ranking:
// place i+1 for the i-th, and an open offer, made when the sale was drawn
// and lapsing when all the draw's do, for exactly the first units.
func checkPlaces(t *testing.T, rows map[string]drawEntry, ranking []string, units int, drawn time.Time) {
	t.Helper()
	var until time.Time
	for place, e := range ranking {
		r, won := rows[e], place < units
		switch {
		case !r.Place.Valid || int(r.Place.Int64) != place+1:
			t.Fatalf("entry %s is at place %v in MySQL, %d by the published seed", e, r.Place, place+1)
		case won != r.State.Valid || (won && (r.State.String != "open" || !r.OfferedAt.Time.Equal(drawn))):
			t.Fatalf("entry %s at place %d of %d units: offer %v made %v, want one iff it won, made at the draw (%v)",
				e, place+1, units, r.State, r.OfferedAt, drawn)
		case won && until.IsZero():
			until = r.Deadline.Time
		case won && !r.Deadline.Time.Equal(until):
			t.Fatalf("entry %s's offer lapses at %v, the draw's first at %v: offered by two draws", e, r.Deadline.Time, until)
		}
	}
}

// checkOffersHeld waits until Redis holds one offer per winner (the job
// copies them after the draw), then checks it holds exactly the winners'
// open offers, each with its variant and deadline from MySQL.
func checkOffersHeld(t *testing.T, s *Setup, rdb redis.UniversalClient, db *sql.DB, id int64, d publishedDraw) {
	t.Helper()
	key := offersKey(s.Prefix, id)
	err := poll(10*time.Second, 20*time.Millisecond, func() error {
		n, err := rdb.HLen(context.Background(), key).Result()
		if err == nil && int(n) < len(d.Winners) {
			err = fmt.Errorf("%d offers in Redis, %d winners", n, len(d.Winners))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	held, err := rdb.HGetAll(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	rows := readEntries(t, db, id)
	for _, w := range d.Winners {
		r := rows[w.EntryID]
		want := strconv.FormatInt(w.VariantID, 10) + ":" + strconv.FormatInt(r.Deadline.Time.UnixMilli(), 10)
		if held[r.User] != want {
			t.Errorf("Redis holds %q for winner %s, want the open offer %q", held[r.User], r.User, want)
		}
		delete(held, r.User)
	}
	if len(held) > 0 {
		t.Errorf("Redis holds %d offers for shoppers who did not win, e.g. %v", len(held), held)
	}
}
