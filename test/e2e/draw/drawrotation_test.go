package draw

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

func drawKeys(r drawkey.Ring) e2etest.Option { return func(c *config.Config) { c.DrawKeys = r } }

// TestDrawKeyRotation: a draw made under key A is drawn, with the seed it
// committed to, by a server holding "B,A", which makes new draws under B;
// a server without A, or with other bytes under A's id, leaves it drawing,
// says so in its log on every run, and never publishes a seed.
func TestDrawKeyRotation(t *testing.T) {
	t.Parallel()
	keyA, ringA := e2etest.NewDrawKey("A")
	_, ringB := e2etest.NewDrawKey("B")
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, drawKeys(ringA))
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 42", 2)))
	if created.Status != 201 {
		t.Fatalf("create draw: %d %s", created.Status, created.Raw)
	}
	id, v := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)["EU 42"]
	for i := range 5 {
		if r := s.Enter(t, id, s.Login(t, fmt.Sprintf("rot-%d", i)), v); r.Status != 200 {
			t.Fatalf("enter: %d %s", r.Status, r.Raw)
		}
	}
	open := s.Draw(t, id)

	// Past the close, on servers whose clocks say so; s's says it is not.
	late := e2etest.NewClock(e2etest.T0.Add(11 * time.Minute))
	_, otherA := e2etest.NewDrawKey("A") // the id, not the key
	var withoutA *e2etest.Server
	for name, ring := range map[string]drawkey.Ring{"without A": ringB, "with other bytes as A": otherA} {
		var logs e2etest.LockedBuffer
		withoutA = s.Sibling(t, late, slog.New(slog.NewJSONHandler(&logs, nil)), ring)
		refusal := `"msg":"sale not drawn: its seed cannot be derived`
		refused := testenv.Eventually(10*time.Second, func() bool {
			return strings.Count(logs.String(), refusal) >= 3 && strings.Contains(logs.String(), fmt.Sprintf(`"item_id":%d`, id))
		})
		if !refused {
			t.Fatalf("a server %s did not log its refusal on each run:\n%s", name, logs.String())
		}
		if d := withoutA.Draw(t, id); d.Phase != "drawing" || d.Seed != nil || *d.SeedSHA256 != *open.SeedSHA256 {
			t.Fatalf("the draw on a server %s: %+v", name, d)
		}
	}
	var drawn, seeded, placed int
	err := s.Db.Gorm.Raw("SELECT COUNT(drawn_at), COUNT(draw_seed), (SELECT COUNT(place) FROM draw_entries WHERE item_id = ?) "+
		"FROM items WHERE id = ?", id, id).Row().Scan(&drawn, &seeded, &placed)
	if err != nil || drawn != 0 || seeded != 0 || placed != 0 {
		t.Fatalf("a server without the key wrote a draw: drawn %d, seed %d, places %d (%v)", drawn, seeded, placed, err)
	}

	rotated := s.Sibling(t, late, e2etest.Quiet(), append(append(drawkey.Ring{}, ringB...), ringA...))
	var d e2etest.PublishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { d = rotated.Draw(t, id); return d.Phase == "drawn" }, "the rotated server never drew")
	var nonce []byte
	if err := s.Db.Gorm.Raw("SELECT draw_nonce FROM items WHERE id = ?", id).Row().Scan(&nonce); err != nil {
		t.Fatal(err)
	}
	if seed := e2etest.Unhex(t, d.Seed); e2etest.Sha(seed) != *open.SeedSHA256 || string(seedUnder(keyA, id, nonce)) != string(seed) {
		t.Fatalf("drawn with seed %x, committed to %s", seed, *open.SeedSHA256)
	}
	checkPublished(t, rotated, id, d, *open.SeedSHA256)
	if w := withoutA.Draw(t, id); w.Seed == nil || *w.Seed != *d.Seed {
		t.Fatalf("the servers publish different seeds: %v and %s", w.Seed, *d.Seed)
	}

	next := rotated.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(late.Now(), e2etest.Size("EU 42", 1)))
	var keyID string
	err = s.Db.Gorm.Raw("SELECT draw_key_id FROM items WHERE id = ?", int64(e2etest.Num(next.Body, "id"))).Row().Scan(&keyID)
	if err != nil || next.Status != 201 || keyID != "B" {
		t.Fatalf("a draw made on the rotated server: %d, key %q", next.Status, keyID)
	}
}

// TestDrawKeyMissing: a server without SECKILL_DRAW_KEY says so when it
// starts, refuses to create a draw sale and writes nothing, and still
// creates first-come sales.
func TestDrawKeyMissing(t *testing.T) {
	t.Parallel()
	var logs e2etest.LockedBuffer
	s := e2etest.StartLogged(t, e2etest.NewClock(e2etest.T0), slog.New(slog.NewJSONHandler(&logs, nil)), drawKeys(nil))
	if !strings.Contains(logs.String(), `"level":"WARN","msg":"SECKILL_DRAW_KEY is not set`) {
		t.Fatalf("no warning at start:\n%s", logs.String())
	}
	r := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 42", 2)))
	if r.Status != 503 || r.ErrCode() != "draw_key_missing" {
		t.Fatalf("a draw without a key: %d %s", r.Status, r.Raw)
	}
	for _, table := range []string{"items", "variants", "audit_log", "outbox", "draw_entries"} {
		var n int
		if err := s.Db.Gorm.Raw("SELECT COUNT(*) FROM " + table).Scan(&n).Error; err != nil || n != 0 {
			t.Fatalf("%s holds %d rows after a refused draw (%v)", table, n, err)
		}
	}
	s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
}
