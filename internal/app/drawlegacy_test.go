package app_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/database"
	"github.com/seckill/seckill/internal/testenv"
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
	closes := t0.Add(10 * time.Minute)
	res := db.Gorm.Exec(`INSERT INTO items (id, name, description, price_cents, stock_total, stock, per_user_limit, starts_at, ends_at,
		mode, entries_open_at, entries_close_at, purchase_window_seconds, draw_seed, draw_salt)
		VALUES (1, 'Legacy draw', '', 12900, 2, 2, 1, ?, ?, 'draw', ?, ?, 60, ?, ?)`, closes, closes.Add(2*time.Hour), t0, closes, seed, salt)
	if res.Error != nil {
		t.Fatal(res.Error)
	}
	if err := db.Gorm.Exec(`INSERT INTO variants (item_id, position, label, stock_total, stock) VALUES (1, 0, 'EU 42', 2, 2)`).Error; err != nil {
		t.Fatal(err)
	}

	// A server of this release on that database: it migrates it at start.
	cfg := start(t, newClock(t0)).cfg
	cfg.HTTPAddr, cfg.MySQLDSN, cfg.DrawLegacy = "127.0.0.1:0", db.DSN, []int64{1}
	_, cfg.RedisPrefix = testenv.RedisOn(t, cfg.Redis)
	clk := newClock(t0)
	s := launch(t, clk, quiet(), cfg, db)
	open := s.draw(t, 1)
	if open.Phase != "entries_open" || open.Seed != nil || *open.SeedSHA256 != sha(seed) {
		t.Fatalf("the legacy draw after the upgrade: %+v, want commitment %s", open, sha(seed))
	}
	for i := range 5 {
		if r := s.enter(t, 1, s.login(t, fmt.Sprintf("legacy-%d", i)), 0); r.status != 200 {
			t.Fatalf("enter: %d %s", r.status, r.raw)
		}
	}
	clk.Add(10 * time.Minute)
	var d publishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { d = s.draw(t, 1); return d.Phase == "drawn" }, "the legacy draw never ran")
	if *d.Seed != hex.EncodeToString(seed) {
		t.Fatalf("drawn with seed %s, stored %x", *d.Seed, seed)
	}
	checkPublished(t, s, 1, d, sha(seed))
}
