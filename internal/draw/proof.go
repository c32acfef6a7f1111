package draw

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/seckill/seckill/internal/catalog"
)

// Proof is a draw as published: the commitment from the opening of entries,
// and once drawn, the seed and everything needed to recompute the winners.
type Proof struct {
	ItemID         int64      `json:"item_id"`
	Phase          Phase      `json:"phase"`
	EntriesOpenAt  time.Time  `json:"entries_open_at"`
	EntriesCloseAt time.Time  `json:"entries_close_at"`
	DrawnAt        *time.Time `json:"drawn_at"`
	SeedSHA256     *string    `json:"seed_sha256"`
	Salt           *string    `json:"salt"`
	Seed           *string    `json:"seed"`
	EntryCount     int        `json:"entry_count"`
	Variants       []UnitsOf  `json:"variants"`
	Entries        []Ticket   `json:"entries,omitempty"`
	Winners        []Ticket   `json:"winners,omitempty"`
}

// UnitsOf is a variant's units in a draw: its stock_total, and once drawn,
// the units the draw gave away (its stock_total then).
type UnitsOf struct {
	VariantID  int64  `json:"variant_id"`
	Label      string `json:"label"`
	StockTotal int    `json:"stock_total"`
}

// Proof returns draw sale itemID as published. A drawn sale's never
// changes, so it is built once per server.
func (s *Service) Proof(ctx context.Context, itemID int64) (Proof, error) {
	s.mu.Lock()
	p, ok := s.proofs[itemID]
	s.mu.Unlock()
	if ok {
		return p, nil
	}
	it, err := s.item(ctx, itemID)
	if err != nil {
		return Proof{}, err
	}
	now := s.now()
	p = Proof{ItemID: it.ID, Phase: PhaseOf(it, now), EntriesOpenAt: it.EntriesOpenAt.UTC(),
		EntriesCloseAt: it.EntriesCloseAt.UTC()}
	if p.Phase != PhaseUpcoming {
		commit, salt := Commitment(it.DrawSeed), hex.EncodeToString(it.DrawSalt)
		p.SeedSHA256, p.Salt = &commit, &salt
	}
	if p.Phase != PhaseDrawn {
		err := s.db.WithContext(ctx).Raw("SELECT COUNT(*) FROM draw_entries WHERE item_id = ?", itemID).Scan(&p.EntryCount).Error
		p.Variants = unitsOf(it, false)
		return p, err
	}
	drawnAt, seed := it.DrawnAt.UTC(), hex.EncodeToString(it.DrawSeed)
	p.DrawnAt, p.Seed, p.Variants = &drawnAt, &seed, unitsOf(it, true)
	err = s.db.WithContext(ctx).Raw("SELECT entry_id, variant_id FROM draw_entries WHERE item_id = ? ORDER BY entry_id", itemID).
		Scan(&p.Entries).Error
	if err != nil {
		return Proof{}, err
	}
	p.EntryCount = len(p.Entries)
	p.Winners = Winners(Rank(it.DrawSeed, p.Entries, units(p.Variants)), units(p.Variants))
	s.mu.Lock()
	s.proofs[itemID] = p
	s.mu.Unlock()
	return p, nil
}

// unitsOf lists the sale's variants with their units: as drawn, or as now.
func unitsOf(it catalog.Item, drawn bool) []UnitsOf {
	out := make([]UnitsOf, len(it.Variants))
	for i, v := range it.Variants {
		n := v.StockTotal
		if drawn && v.DrawUnits != nil {
			n = *v.DrawUnits
		}
		out[i] = UnitsOf{VariantID: v.ID, Label: v.Label, StockTotal: n}
	}
	return out
}

func units(vs []UnitsOf) map[int64]int {
	m := make(map[int64]int, len(vs))
	for _, v := range vs {
		m[v.VariantID] = v.StockTotal
	}
	return m
}
