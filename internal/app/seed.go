package app

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/database"
)

// Seed creates three demo sales unless sales with their names exist: one
// live now for a day, a drop of nine sizes live now, and one opening two
// minutes from now (to watch the countdown).
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
		Name: "Demo: Aurora runner drop", Description: "Live now. Nine sizes, one pair per customer whatever the size.",
		ImageURL: "/static/img/sneaker.svg", PriceCents: 12900, PerUserLimit: 1, StartsAt: now, EndsAt: now.Add(24 * time.Hour),
		Variants: demoSizes(),
	}, {
		Name: "Demo: noise-cancelling headphones", Description: "Opens two minutes after seeding. 50 pairs, up to 2 each.",
		PriceCents: 9900, StockTotal: 50, PerUserLimit: 2, StartsAt: now.Add(2 * time.Minute), EndsAt: now.Add(24 * time.Hour),
	}}
}

// demoSizes are a sneaker drop's sizes, with most pairs in the middle sizes
// as shops stock them, and the largest sizes dearer.
func demoSizes() []catalog.Variant {
	stock := []int{4, 8, 15, 25, 30, 25, 15, 8, 4}
	out := make([]catalog.Variant, len(stock))
	for i, n := range stock {
		out[i] = catalog.Variant{Label: "EU " + strconv.Itoa(38+i), StockTotal: n}
		if i >= 7 {
			price := int64(13900)
			out[i].PriceCents = &price
		}
	}
	return out
}
