package app_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/testenv"
)

func drawKeys(r drawkey.Ring) option { return func(c *config.Config) { c.DrawKeys = r } }

// sibling starts a server on s's MySQL database with other draw keys and a
// Redis prefix of its own, so its fleet jobs run whatever s's do: the
// draw job of each runs on every period.
func (s *server) sibling(tb testing.TB, clk interface{ Now() time.Time }, log *slog.Logger, keys drawkey.Ring) *server {
	tb.Helper()
	cfg := s.cfg
	cfg.HTTPAddr, cfg.DrawKeys = "127.0.0.1:0", keys
	_, cfg.RedisPrefix = testenv.RedisOn(tb, cfg.Redis)
	return launch(tb, clk, log, cfg, s.db)
}

// TestDrawKeyRotation: a draw made under key A is drawn, with the seed it
// committed to, by a server holding "B,A", which makes new draws under B;
// a server without A, or with other bytes under A's id, leaves it drawing,
// says so in its log on every run, and never publishes a seed.
func TestDrawKeyRotation(t *testing.T) {
	t.Parallel()
	keyA, ringA := newDrawKey("A")
	_, ringB := newDrawKey("B")
	clk := newClock(t0)
	s := start(t, clk, drawKeys(ringA))
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(t0, size("EU 42", 2)))
	if created.status != 201 {
		t.Fatalf("create draw: %d %s", created.status, created.raw)
	}
	id, v := int64(num(created.body, "id")), variantIDs(t, created)["EU 42"]
	for i := range 5 {
		if r := s.enter(t, id, s.login(t, fmt.Sprintf("rot-%d", i)), v); r.status != 200 {
			t.Fatalf("enter: %d %s", r.status, r.raw)
		}
	}
	open := s.draw(t, id)

	// Past the close, on servers whose clocks say so; s's says it is not.
	late := newClock(t0.Add(11 * time.Minute))
	_, otherA := newDrawKey("A") // the id, not the key
	var withoutA *server
	for name, ring := range map[string]drawkey.Ring{"without A": ringB, "with other bytes as A": otherA} {
		var logs lockedBuffer
		withoutA = s.sibling(t, late, slog.New(slog.NewJSONHandler(&logs, nil)), ring)
		refusal := `"msg":"sale not drawn: its seed cannot be derived`
		refused := testenv.Eventually(10*time.Second, func() bool {
			return strings.Count(logs.String(), refusal) >= 3 && strings.Contains(logs.String(), fmt.Sprintf(`"item_id":%d`, id))
		})
		if !refused {
			t.Fatalf("a server %s did not log its refusal on each run:\n%s", name, logs.String())
		}
		if d := withoutA.draw(t, id); d.Phase != "drawing" || d.Seed != nil || *d.SeedSHA256 != *open.SeedSHA256 {
			t.Fatalf("the draw on a server %s: %+v", name, d)
		}
	}
	var drawn, seeded, placed int
	err := s.db.Gorm.Raw("SELECT COUNT(drawn_at), COUNT(draw_seed), (SELECT COUNT(place) FROM draw_entries WHERE item_id = ?) "+
		"FROM items WHERE id = ?", id, id).Row().Scan(&drawn, &seeded, &placed)
	if err != nil || drawn != 0 || seeded != 0 || placed != 0 {
		t.Fatalf("a server without the key wrote a draw: drawn %d, seed %d, places %d (%v)", drawn, seeded, placed, err)
	}

	rotated := s.sibling(t, late, quiet(), append(append(drawkey.Ring{}, ringB...), ringA...))
	var d publishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { d = rotated.draw(t, id); return d.Phase == "drawn" }, "the rotated server never drew")
	var nonce []byte
	if err := s.db.Gorm.Raw("SELECT draw_nonce FROM items WHERE id = ?", id).Row().Scan(&nonce); err != nil {
		t.Fatal(err)
	}
	if seed := unhex(t, d.Seed); sha(seed) != *open.SeedSHA256 || string(seedUnder(keyA, id, nonce)) != string(seed) {
		t.Fatalf("drawn with seed %x, committed to %s", seed, *open.SeedSHA256)
	}
	checkPublished(t, rotated, id, d, *open.SeedSHA256)
	if w := withoutA.draw(t, id); w.Seed == nil || *w.Seed != *d.Seed {
		t.Fatalf("the servers publish different seeds: %v and %s", w.Seed, *d.Seed)
	}

	next := rotated.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(late.Now(), size("EU 42", 1)))
	var keyID string
	err = s.db.Gorm.Raw("SELECT draw_key_id FROM items WHERE id = ?", int64(num(next.body, "id"))).Row().Scan(&keyID)
	if err != nil || next.status != 201 || keyID != "B" {
		t.Fatalf("a draw made on the rotated server: %d, key %q", next.status, keyID)
	}
}

// TestDrawKeyMissing: a server without SECKILL_DRAW_KEY says so when it
// starts, refuses to create a draw sale and writes nothing, and still
// creates first-come sales.
func TestDrawKeyMissing(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	s := startLogged(t, newClock(t0), slog.New(slog.NewJSONHandler(&logs, nil)), drawKeys(nil))
	if !strings.Contains(logs.String(), `"level":"WARN","msg":"SECKILL_DRAW_KEY is not set`) {
		t.Fatalf("no warning at start:\n%s", logs.String())
	}
	r := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(t0, size("EU 42", 2)))
	if r.status != 503 || r.errCode() != "draw_key_missing" {
		t.Fatalf("a draw without a key: %d %s", r.status, r.raw)
	}
	for _, table := range []string{"items", "variants", "audit_log", "outbox", "draw_entries"} {
		var n int
		if err := s.db.Gorm.Raw("SELECT COUNT(*) FROM " + table).Scan(&n).Error; err != nil || n != 0 {
			t.Fatalf("%s holds %d rows after a refused draw (%v)", table, n, err)
		}
	}
	s.sale(t, 5, 1, t0, t0.Add(time.Hour))
}
