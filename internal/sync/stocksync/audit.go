package stocksync

import (
	"context"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/stock"
)

// SetAuditor has every repair reconciliation makes recorded with r (an
// audit.Store); nil, the default, records nothing.
func (s *Syncer) SetAuditor(r audit.Recorder) { s.auditor = r }

// repairAudit is what a reconcile_repair entry shows after the repair: the
// levels Redis was brought to and what was done.
type repairAudit struct {
	*stock.Level
	Actions []string `json:"actions"`
}

// audit records one sale's repair: Redis's levels as found (st), and as
// repaired. A drift correction is shown as the found levels plus its moves
// (purchases in between aside); after a warm the levels are read back.
func (s *Syncer) audit(ctx context.Context, st Stats, done []action, moves []move) {
	before := foundLevels(st)
	after := repairAudit{Actions: make([]string, 0, len(done))}
	warmed := false
	for _, a := range done {
		after.Actions = append(after.Actions, a.text)
		warmed = warmed || a.kind == "warm"
	}
	if warmed {
		if lv, err := s.stock.Levels(ctx, []int64{st.ItemID}); err == nil {
			if l, ok := lv[st.ItemID]; ok {
				after.Level = &l
			}
		}
	} else if before != nil {
		after.Level = corrected(*before, moves)
	}
	var was any
	if before != nil {
		was = before
	}
	audit.Write(ctx, s.auditor, s.log, audit.ActionReconcileRepair, st.ItemID, was, after)
}

// foundLevels are Redis's levels in st, nil when Redis did not hold the sale.
func foundLevels(st Stats) *stock.Level {
	if st.StockRedis == nil {
		return nil
	}
	l := stock.Level{Total: *st.StockRedis, Variants: make(map[int64]int64, len(st.Variants))}
	for _, v := range st.Variants {
		if v.StockRedis != nil {
			l.Variants[v.VariantID] = *v.StockRedis
		}
	}
	return &l
}

// corrected is found with the moves applied.
func corrected(found stock.Level, moves []move) *stock.Level {
	l := stock.Level{Total: found.Total, Variants: make(map[int64]int64, len(found.Variants))}
	for id, n := range found.Variants {
		l.Variants[id] = n
	}
	for _, m := range moves {
		l.Variants[m.variant] += m.delta
		l.Total += m.delta
	}
	return &l
}
