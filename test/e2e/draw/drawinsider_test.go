package draw

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestDrawNonceCopied: an insider who can write MySQL copies a drawn sale's
// nonce, key id and commitment into another draw sale before its entries
// open, hoping its seed is then the first sale's, public since that draw.
// The seed covers the sale's id, so the second sale is not drawn: the job
// says so in its log on every run, and no seed, least of all the public
// one, is published or used to rank its entries.
func TestDrawNonceCopied(t *testing.T) {
	t.Parallel()
	var logs e2etest.LockedBuffer
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.StartLogged(t, clk, slog.New(slog.NewJSONHandler(&logs, nil)))
	drawn := s.NewDraw(t, e2etest.T0)
	target := s.NewDraw(t, e2etest.T0.Add(time.Hour))
	s.EnterMany(t, drawn, "copied-first", 3)
	clk.Add(10 * time.Minute)
	var first e2etest.PublishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { first = s.Draw(t, drawn); return first.Phase == "drawn" }, "the first draw never ran")

	err := s.Db.Gorm.Exec("UPDATE items t JOIN items f ON f.id = ? SET t.draw_nonce = f.draw_nonce, t.draw_key_id = f.draw_key_id, "+
		"t.draw_commitment = f.draw_commitment WHERE t.id = ?", drawn, target).Error
	if err != nil {
		t.Fatal(err)
	}
	clk.Set(e2etest.T0.Add(time.Hour))
	if open := s.Draw(t, target); open.Phase != "entries_open" || *open.SeedSHA256 != *first.SeedSHA256 {
		t.Fatalf("the copied sale: %+v, want the first sale's commitment %s", open, *first.SeedSHA256)
	}
	s.EnterMany(t, target, "copied-second", 3)
	clk.Add(10 * time.Minute)
	waitRefusals(t, &logs, target)
	if d := s.Draw(t, target); d.Phase != "drawing" || d.Seed != nil {
		t.Fatalf("the copied sale was drawn (the first sale's seed is %s): %+v", *first.Seed, d)
	}
	notDrawn(t, s, target)
}

// TestDrawLegacyShapeRefused: an insider who can write MySQL rewrites a
// draw sale, before its entries open, into the shape of a draw made before
// draw keys (no nonce, a stored seed of their choice, its hash as the
// commitment). SECKILL_DRAW_LEGACY_SALES, which MySQL cannot change, does
// not list it, so it is not drawn, least of all with the chosen seed: the
// job says so in its log on every run.
func TestDrawLegacyShapeRefused(t *testing.T) {
	t.Parallel()
	var logs e2etest.LockedBuffer
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.StartLogged(t, clk, slog.New(slog.NewJSONHandler(&logs, nil)), drawLegacy(1000))
	target := s.NewDraw(t, e2etest.T0.Add(time.Hour))
	chosen := make([]byte, 32)
	rand.Read(chosen)
	commitment := sha256.Sum256(chosen)
	err := s.Db.Gorm.Exec("UPDATE items SET draw_nonce = NULL, draw_key_id = NULL, draw_seed = ?, draw_commitment = ? WHERE id = ?",
		chosen, commitment[:], target).Error
	if err != nil {
		t.Fatal(err)
	}
	clk.Set(e2etest.T0.Add(time.Hour))
	if open := s.Draw(t, target); open.Phase != "entries_open" || *open.SeedSHA256 != e2etest.Sha(chosen) || open.Seed != nil {
		t.Fatalf("the rewritten sale: %+v, want the chosen seed's commitment %s", open, e2etest.Sha(chosen))
	}
	s.EnterMany(t, target, "legacy-shape", 3)
	clk.Add(10 * time.Minute)
	waitRefusals(t, &logs, target)
	if d := s.Draw(t, target); d.Phase != "drawing" || d.Seed != nil {
		t.Fatalf("the rewritten sale was drawn (chosen seed %x): %+v", chosen, d)
	}
	var drawn, placed int
	err = s.Db.Gorm.Raw("SELECT COUNT(drawn_at), (SELECT COUNT(place) FROM draw_entries WHERE item_id = ?) FROM items WHERE id = ?",
		target, target).Row().Scan(&drawn, &placed)
	if err != nil || drawn != 0 || placed != 0 {
		t.Fatalf("the rewritten sale was drawn: drawn %d, places %d (%v)", drawn, placed, err)
	}
}

func drawLegacy(ids ...int64) e2etest.Option { return func(c *config.Config) { c.DrawLegacy = ids } }

// waitRefusals waits until the draw job has logged three times that it did
// not draw sale id.
func waitRefusals(tb testing.TB, logs *e2etest.LockedBuffer, id int64) {
	tb.Helper()
	refused := testenv.Eventually(10*time.Second, func() bool {
		n := 0
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `"msg":"sale not drawn: its seed cannot be derived`) &&
				strings.Contains(line, fmt.Sprintf(`"item_id":%d,`, id)) {
				n++
			}
		}
		return n >= 3
	})
	if !refused {
		tb.Fatalf("no refusal to draw sale %d logged on each run:\n%s", id, logs.String())
	}
}

// notDrawn checks that MySQL holds no draw of sale id: no drawn_at, no
// seed, no place.
func notDrawn(tb testing.TB, s *e2etest.Server, id int64) {
	tb.Helper()
	var drawn, seeded, placed int
	err := s.Db.Gorm.Raw("SELECT COUNT(drawn_at), COUNT(draw_seed), (SELECT COUNT(place) FROM draw_entries WHERE item_id = ?) "+
		"FROM items WHERE id = ?", id, id).Row().Scan(&drawn, &seeded, &placed)
	if err != nil || drawn != 0 || seeded != 0 || placed != 0 {
		tb.Fatalf("sale %d was drawn: drawn %d, seed %d, places %d (%v)", id, drawn, seeded, placed, err)
	}
}
