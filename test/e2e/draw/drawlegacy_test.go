package draw

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/database"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestDrawMadeBeforeDrawKeys: a draw created by the release before draw
// keys, its seed stored from its creation, keeps the commitment it
// published through the upgrade (migration 13) and, listed in
// SECKILL_DRAW_LEGACY_SALES, is drawn from that seed, checkably.
func TestDrawMadeBeforeDrawKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.MySQL(t)
	if err := database.MigrateTo(ctx, db.DSN, 12); err != nil {
		t.Fatal(err)
	}
	seed, salt := make([]byte, 32), make([]byte, 16)
	rand.Read(seed)
	rand.Read(salt)
	closes := e2etest.T0.Add(10 * time.Minute)
	res := db.Gorm.Exec(`INSERT INTO items (id, name, description, price_cents, stock_total, stock, per_user_limit, starts_at, ends_at,
		mode, entries_open_at, entries_close_at, purchase_window_seconds, draw_seed, draw_salt)
		VALUES (1, 'Legacy draw', '', 12900, 2, 2, 1, ?, ?, 'draw', ?, ?, 60, ?, ?)`, closes, closes.Add(2*time.Hour), e2etest.T0, closes, seed, salt)
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	if err := db.Gorm.Exec(`INSERT INTO variants (item_id, position, label, stock_total, stock) VALUES (1, 0, 'EU 42', 2, 2)`).Error; err != nil {
		t.Fatal(err)
	}

	// A server of this release on that database: it migrates it at start.
	cfg := e2etest.Start(t, e2etest.NewClock(e2etest.T0)).Cfg
	cfg.HTTPAddr, cfg.MySQLDSN, cfg.DrawLegacy = "127.0.0.1:0", db.DSN, []int64{1}
	_, cfg.RedisPrefix = testenv.RedisOn(t, cfg.Redis)
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Launch(t, clk, e2etest.Quiet(), cfg, db)
	open := s.Draw(t, 1)
	if open.Phase != "entries_open" || open.Seed != nil || *open.SeedSHA256 != e2etest.Sha(seed) {
		t.Fatalf("the legacy draw after the upgrade: %+v, want commitment %s", open, e2etest.Sha(seed))
	}
	for i := range 5 {
		if r := s.Enter(t, 1, s.Login(t, fmt.Sprintf("legacy-%d", i)), 0); r.Status != 200 {
			t.Fatalf("enter: %d %s", r.Status, r.Raw)
		}
	}
	clk.Add(10 * time.Minute)
	var d e2etest.PublishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { d = s.Draw(t, 1); return d.Phase == "drawn" }, "the legacy draw never ran")
	if *d.Seed != hex.EncodeToString(seed) {
		t.Fatalf("drawn with seed %s, stored %x", *d.Seed, seed)
	}
	checkPublished(t, s, 1, d, e2etest.Sha(seed))
}
