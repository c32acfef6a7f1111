package draw

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/seckill/seckill/internal/catalog"
)

// Proof is a draw as published: the commitment from the opening of entries,
// and once drawn, the seed and what the server did with it, for anyone to
// recompute.
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
	// After the draw: every entry, by entry id; the entries the draw
	// offered a unit, as recorded; and those offered one since by backfill,
	// in the order they were.
	Entries    *[]Ticket `json:"entries,omitempty"`
	Winners    *[]Ticket `json:"winners,omitempty"`
	Backfilled *[]Ticket `json:"backfilled,omitempty"`
}

// UnitsOf is a variant's units in a draw: its stock_total, and once drawn,
// the units the draw gave away (its stock_total then).
type UnitsOf struct {
	VariantID  int64  `json:"variant_id"`
	Label      string `json:"label"`
	StockTotal int    `json:"stock_total"`
}

// ProofJSON returns draw sale itemID as published, as JSON. A drawn sale's
// draw changes only as backfill offers units, so it is built at most once
// a second per server: the whole list of entries may be large, and the
// endpoint is public.
func (s *Service) ProofJSON(ctx context.Context, itemID int64) ([]byte, error) {
	now := s.wall()
	s.mu.Lock()
	c, ok := s.proofs[itemID]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < time.Second && !now.Before(c.at) {
		return c.body, nil
	}
	p, err := s.Proof(ctx, itemID)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil || p.Phase != PhaseDrawn {
		return b, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A draw's list of entries runs to megabytes: one nobody asked for in
	// a minute is not kept.
	for id, old := range s.proofs {
		if now.Sub(old.at) > time.Minute {
			delete(s.proofs, id)
		}
	}
	s.proofs[itemID] = builtProof{at: now, body: b}
	return b, nil
}

// builtProof is a published draw as JSON, and when it was built.
type builtProof struct {
	at   time.Time
	body []byte
}

// Proof returns draw sale itemID as published.
func (s *Service) Proof(ctx context.Context, itemID int64) (Proof, error) {
	it, err := s.item(ctx, itemID)
	if err != nil {
		return Proof{}, err
	}
	p := Proof{ItemID: it.ID, Phase: PhaseOf(it, s.now()), EntriesOpenAt: it.EntriesOpenAt.UTC(),
		EntriesCloseAt: it.EntriesCloseAt.UTC()}
	if p.Phase != PhaseUpcoming {
		commit, salt := hex.EncodeToString(it.DrawCommitment), hex.EncodeToString(it.DrawSalt)
		p.SeedSHA256, p.Salt = &commit, &salt
	}
	if p.Phase != PhaseDrawn {
		err := s.db.WithContext(ctx).Raw("SELECT COUNT(*) FROM draw_entries WHERE item_id = ?", itemID).Scan(&p.EntryCount).Error
		p.Variants = unitsOf(it, false)
		return p, err
	}
	drawnAt, seed := it.DrawnAt.UTC(), hex.EncodeToString(it.DrawSeed)
	p.DrawnAt, p.Seed, p.Variants = &drawnAt, &seed, unitsOf(it, true)
	entries := []Ticket{}
	var offered []offeredRow
	q := s.db.WithContext(ctx)
	err = q.Raw("SELECT entry_id, variant_id FROM draw_entries WHERE item_id = ? ORDER BY entry_id", itemID).Scan(&entries).Error
	if err == nil {
		err = q.Raw("SELECT entry_id, variant_id, place, offered_at FROM draw_entries "+
			"WHERE item_id = ? AND offer_state IS NOT NULL ORDER BY variant_id, place", itemID).Scan(&offered).Error
	}
	if err != nil {
		return Proof{}, err
	}
	winners, backfilled := splitOffered(it, offered)
	p.EntryCount, p.Entries, p.Winners, p.Backfilled = len(entries), &entries, &winners, &backfilled
	return p, nil
}

// offeredRow is an entry offered a unit, at the draw or by backfill.
type offeredRow struct {
	EntryID   string
	VariantID int64
	Place     *int
	OfferedAt *time.Time
}

// splitOffered parts the offered entries, by variant and place, into the
// draw's winners (a place within the units the variant was drawn with) and
// those backfill reached since, in the order they were offered. An entry of
// a variant since removed, or never drawn, is in neither.
func splitOffered(it catalog.Item, offered []offeredRow) (winners, backfilled []Ticket) {
	units := make(map[int64]int, len(it.Variants))
	for _, v := range it.Variants {
		if v.DrawUnits != nil {
			units[v.ID] = *v.DrawUnits
		}
	}
	winners, backfilled = []Ticket{}, []Ticket{}
	var late []offeredRow
	for _, r := range offered {
		u, ok := units[r.VariantID]
		switch {
		case !ok || r.Place == nil:
		case *r.Place <= u:
			winners = append(winners, Ticket{EntryID: r.EntryID, VariantID: r.VariantID})
		default:
			late = append(late, r)
		}
	}
	// Stable: entries offered at once stay by variant, then place.
	slices.SortStableFunc(late, func(a, b offeredRow) int { return offeredAt(a).Compare(offeredAt(b)) })
	for _, r := range late {
		backfilled = append(backfilled, Ticket{EntryID: r.EntryID, VariantID: r.VariantID})
	}
	return winners, backfilled
}

// offeredAt is when r was offered; never (as MySQL sorts NULL first) if unset.
func offeredAt(r offeredRow) time.Time {
	if r.OfferedAt == nil {
		return time.Time{}
	}
	return *r.OfferedAt
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
