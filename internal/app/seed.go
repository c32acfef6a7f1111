package app

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/database"
)

// Seed creates two demo sales unless sales with their names exist: one live
// now for a day, one opening two minutes from now (to watch the countdown).
func Seed(ctx context.Context, dsn string, now time.Time) error {
	if err := database.Migrate(ctx, dsn); err != nil {
		return err
	}
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return err
	}
	if sqlDB, err := db.DB(); err == nil {
		defer sqlDB.Close()
	}
	items := catalog.NewStore(db)
	existing, err := items.List(ctx)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, it := range existing {
		have[it.Name] = true
	}
	now = now.UTC().Truncate(time.Second)
	for _, it := range demoSales(now) {
		if have[it.Name] {
			continue
		}
		if _, err := items.Create(ctx, it); err != nil {
			return fmt.Errorf("seed %q: %w", it.Name, err)
		}
	}
	return nil
}

func demoSales(now time.Time) []catalog.Item {
	return []catalog.Item{{
		Name: "Demo: mechanical keyboard", Description: "Live now. 100 keyboards, one per shopper.",
		PriceCents: 4900, StockTotal: 100, PerUserLimit: 1, StartsAt: now, EndsAt: now.Add(24 * time.Hour),
	}, {
		Name: "Demo: noise-cancelling headphones", Description: "Opens two minutes after seeding. 50 pairs, up to 2 each.",
		PriceCents: 9900, StockTotal: 50, PerUserLimit: 2, StartsAt: now.Add(2 * time.Minute), EndsAt: now.Add(24 * time.Hour),
	}}
}
