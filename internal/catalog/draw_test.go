package catalog_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/testenv"
)

// drawSale creates a draw sale whose entries close at closes and which
// ends at ends, with two variants.
func drawSale(tb testing.TB, s *catalog.Store, closes, ends time.Time) catalog.Item {
	tb.Helper()
	opens := closes.Add(-time.Hour)
	seal := func(int64) (drawkey.Sealed, error) {
		return drawkey.Sealed{Nonce: []byte("nonce"), KeyID: "k", Commitment: []byte("commitment")}, nil
	}
	it, err := s.CreateDraw(context.Background(), catalog.Item{Name: "d", PerUserLimit: 1, StartsAt: closes, EndsAt: ends,
		Mode: catalog.ModeDraw, EntriesOpenAt: &opens, EntriesCloseAt: &closes,
		Variants: []catalog.Variant{{Label: "S", StockTotal: 2}, {Label: "M", StockTotal: 3}}}, seal)
	if err != nil {
		tb.Fatal(err)
	}
	return it
}

func TestDrawsDueAndOn(t *testing.T) {
	t.Parallel()
	db := testenv.MySQL(t).Gorm
	s, ctx := catalog.NewStore(db), context.Background()
	due := drawSale(t, s, asOf, asOf.Add(time.Hour))
	open := drawSale(t, s, asOf.Add(time.Minute), asOf.Add(time.Hour))
	ended := drawSale(t, s, asOf.Add(-time.Hour), asOf)
	drawn := drawSale(t, s, asOf.Add(-time.Hour), asOf.Add(time.Hour))
	seed := bytes.Repeat([]byte{7}, 32) // draw_seed is BINARY(32)
	if err := db.Transaction(func(tx *gorm.DB) error {
		it, err := s.WithTx(tx).GetForUpdate(ctx, drawn.ID)
		if err != nil {
			return err
		}
		return s.WithTx(tx).MarkDrawn(ctx, it, asOf.Add(-time.Minute), seed)
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		list func(context.Context, time.Time) ([]int64, error)
		want []int64
	}{
		{"due: closed, not drawn, not ended", s.DrawsDue, []int64{due.ID}},
		{"on: drawn, not ended", s.DrawsOn, []int64{drawn.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.list(ctx, asOf)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, %v; want %v (open %d, ended %d)", got, err, tt.want, open.ID, ended.ID)
			}
		})
	}
	got, err := s.Get(ctx, drawn.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.DrawnAt == nil || !got.DrawnAt.Equal(asOf.Add(-time.Minute)) || !bytes.Equal(got.DrawSeed, seed) {
		t.Fatalf("drawn sale: drawn at %v, seed %q", got.DrawnAt, got.DrawSeed)
	}
	for _, v := range got.Variants {
		if v.DrawUnits == nil || *v.DrawUnits != v.StockTotal {
			t.Errorf("variant %s: draw units %v, want %d", v.Label, v.DrawUnits, v.StockTotal)
		}
	}
}
