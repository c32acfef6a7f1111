package fault

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/draw/drawvec"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/harness"
	"github.com/seckill/seckill/internal/keyspace"
)

// createDraw creates, through the admin API, a draw sale of len(units)
// sizes (units[i] of size i) whose entries opened a minute ago and close at
// closes; purchases open then, each drawn shopper has window to buy, and
// the sale ends an hour later. It returns the sale's id and its variants'.
func createDraw(tb testing.TB, api *harness.Client, units []int, closes time.Time, window time.Duration) (int64, []int64) {
	tb.Helper()
	variants := make([]map[string]any, len(units))
	for i, n := range units {
		variants[i] = map[string]any{"label": "EU " + strconv.Itoa(40+i), "stock_total": n}
	}
	r, err := api.Do(context.Background(), "POST", "/api/v1/admin/items", api.AdminToken, map[string]any{
		"name": "Fault-injection draw", "price_cents": 100, "variants": variants, "mode": "draw",
		"entries_open_at":         closes.Add(-time.Minute).UTC().Format(time.RFC3339Nano),
		"entries_close_at":        closes.UTC().Format(time.RFC3339Nano),
		"purchase_window_seconds": int(window / time.Second),
		"ends_at":                 closes.Add(time.Hour).UTC().Format(time.RFC3339Nano),
	})
	id, _ := r.Body["id"].(float64)
	if err != nil || r.Status != http.StatusCreated || id == 0 {
		tb.Fatalf("create draw: %v %d %s", err, r.Status, r.Raw)
	}
	return int64(id), saleVariants(tb, api.Base, int64(id))
}

// publishedDraw and drawTicket are the draw as anyone may read it,
// decoded by drawvec apart from the server's code, as the end-to-end tests
// decode it.
type (
	publishedDraw = drawvec.Published
	drawTicket    = drawvec.Ticket
)

func readDraw(ctx context.Context, api *harness.Client, id int64) (publishedDraw, error) {
	var d publishedDraw
	r, err := api.Do(ctx, "GET", "/api/v1/items/"+strconv.FormatInt(id, 10)+"/draw", "", nil)
	if err == nil && r.Status != http.StatusOK {
		err = fmt.Errorf("GET draw: %d %s", r.Status, r.Raw)
	}
	if err == nil {
		err = json.Unmarshal([]byte(r.Raw), &d)
	}
	return d, err
}

// awaitDrawn polls GET /draw until the sale is drawn, up to limit.
func awaitDrawn(tb testing.TB, api *harness.Client, id int64, limit time.Duration) publishedDraw {
	tb.Helper()
	var d publishedDraw
	err := poll(limit, 20*time.Millisecond, func() error {
		var err error
		if d, err = readDraw(context.Background(), api, id); err == nil && d.Phase != "drawn" {
			err = fmt.Errorf("phase %q", d.Phase)
		}
		return err
	})
	if err != nil {
		tb.Fatalf("sale %d not drawn: %v", id, err)
	}
	return d
}

// hexSHA256 is hex(SHA-256(parts...)), the hash every rule of a draw uses.
func hexSHA256(parts ...[]byte) string { return drawvec.SHA256Hex(parts...) }

func unhex(tb testing.TB, what string, s *string) []byte {
	tb.Helper()
	if s == nil {
		tb.Fatalf("the draw does not publish its %s", what)
	}
	b, err := hex.DecodeString(*s)
	if err != nil {
		tb.Fatalf("the draw's %s is not hex: %q", what, *s)
	}
	return b
}

// rankings recomputes each variant's ranking from the published draw, as
// the README tells a shopper to, failing tb when the seed is not the
// commitment.
func rankings(tb testing.TB, d publishedDraw) map[int64][]string {
	tb.Helper()
	r, err := d.Rankings()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// seedEntries enters users straight in MySQL, user i for variantOf(i), with
// the entry ids a shopper computes from the published salt. It enters them
// as the server's Enter does: under a shared lock on the sale's row, which
// the draw's exclusive lock waits for, so however long the rows take they
// are all in the draw; the entries must still be open when it begins.
func seedEntries(tb testing.TB, db *sql.DB, id int64, salt []byte, users []string, variantOf func(i int) int64) {
	tb.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	var open bool
	err = tx.QueryRowContext(ctx, "SELECT drawn_at IS NULL AND entries_close_at > UTC_TIMESTAMP(3) FROM items WHERE id = ? LOCK IN SHARE MODE", id).Scan(&open)
	if err != nil || !open {
		tb.Fatalf("seed entries of draw %d: entries not open (%v): create it further ahead", id, err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	const batch = 1000
	for from := 0; from < len(users); from += batch {
		n := min(batch, len(users)-from)
		args := make([]any, 0, 5*n)
		for i := from; i < from+n; i++ {
			args = append(args, id, hexSHA256(salt, []byte(users[i])), users[i], variantOf(i), now)
		}
		q := "INSERT INTO draw_entries (item_id, entry_id, user_id, variant_id, entered_at) VALUES (?,?,?,?,?)" +
			strings.Repeat(",(?,?,?,?,?)", n-1)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			tb.Fatalf("seed entries of draw %d: %v", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// drawEntry is a row of draw_entries as the checks read it.
type drawEntry struct {
	EntryID, User       string
	Variant             int64
	Place               sql.NullInt64
	State               sql.NullString
	OfferedAt, Deadline sql.NullTime
}

func readEntries(tb testing.TB, db *sql.DB, id int64) map[string]drawEntry {
	tb.Helper()
	rows, err := entriesOf(context.Background(), db, id)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// entriesOf reads the sale's entries, by entry id.
func entriesOf(ctx context.Context, db *sql.DB, id int64) (map[string]drawEntry, error) {
	rows, err := db.QueryContext(ctx, "SELECT entry_id, user_id, variant_id, place, offer_state, offered_at, deadline "+
		"FROM draw_entries WHERE item_id = ?", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]drawEntry{}
	for rows.Next() {
		var e drawEntry
		if err := rows.Scan(&e.EntryID, &e.User, &e.Variant, &e.Place, &e.State, &e.OfferedAt, &e.Deadline); err != nil {
			return nil, err
		}
		out[e.EntryID] = e
	}
	return out, rows.Err()
}

// offersKey is the Redis hash of a draw sale's offers: user id ->
// "variantID:deadlineMs", then ":bought" or ":expired" once settled.
func offersKey(prefix string, id int64) string { return keyspace.New(prefix).Item(id).DrawOffers() }

// expireDrawJob frees the fleet's "draws" job lock of a server that was
// kill -9ed holding it. The lock would expire on its own 30 s after its
// last refresh (package lock tests that); the tests here are about what
// the dead run left in the stores, so they let the restarted server take
// the job at once instead of waiting that out.
func expireDrawJob(tb testing.TB, rdb redis.UniversalClient, prefix string) {
	tb.Helper()
	if err := rdb.Del(context.Background(), prefix+":lock:{draws}").Err(); err != nil {
		tb.Fatal(err)
	}
}

// logCount is how many lines of the server's log contain s.
func logCount(srv *Server, s string) int {
	return strings.Count(srv.Tail(1<<30), s)
}
