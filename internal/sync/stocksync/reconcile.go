package stocksync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/sync/lock"
)

// ItemReport is one sale's reconciliation: its numbers as found, and what
// was done about them.
type ItemReport struct {
	Stats
	Repaired bool     `json:"repaired"`
	Actions  []string `json:"actions"`
}

// Report is one reconciliation run. Consistent says whether every sale was
// consistent when checked, before any repair.
type Report struct {
	Consistent bool         `json:"consistent"`
	CheckedAt  time.Time    `json:"checked_at"`
	Items      []ItemReport `json:"items"`
}

// Reconcile checks invariant 4 for every sale that has not ended, counting
// orders still queued, and repairs Redis from MySQL, the authority, where it
// drifted: a sale Redis lost is warmed again, a wrong stock count is
// corrected by the drift measured. MySQL's own numbers are never rewritten;
// a disagreement inside MySQL is reported for a person. Every action is
// recorded in the reconcile_log table, and each repair in the audit log
// (reconcile_repair) as the admin's in ctx, or the system's for the job.
func (s *Syncer) Reconcile(ctx context.Context) (Report, error) { return s.reconcile(ctx, true) }

// Check is Reconcile that changes nothing: it reports each sale's drift and
// what a repair would do, and writes neither Redis nor reconcile_log, nor
// tells OnDrift.
func (s *Syncer) Check(ctx context.Context) (Report, error) { return s.reconcile(ctx, false) }

func (s *Syncer) reconcile(ctx context.Context, repair bool) (Report, error) {
	now := s.now()
	open, err := catalog.NewStore(s.db).ListOpen(ctx, now)
	if err != nil {
		return Report{}, fmt.Errorf("reconcile: %w", err)
	}
	rep := Report{Consistent: true, CheckedAt: now.UTC(), Items: make([]ItemReport, 0, len(open))}
	var errs []error
	for _, it := range open {
		ir, err := s.reconcileItem(ctx, it.ID, repair)
		if err != nil {
			// One busy or broken sale must not stop the others' repair.
			ir.ItemID, ir.Consistent = it.ID, false
			ir.Actions = append(ir.Actions, "could not check or repair: "+err.Error())
			errs = append(errs, fmt.Errorf("reconcile item %d: %w", it.ID, err))
		} else if repair && !ir.Consistent && s.onDrift != nil {
			// Only a repairing run counts: the dashboard's read-only check
			// polls the same drift and would count it once per look.
			s.onDrift()
		}
		rep.Consistent = rep.Consistent && ir.Consistent
		rep.Items = append(rep.Items, ir)
	}
	if len(errs) > 0 {
		s.log.Warn("reconcile left sales unchecked", "err", errors.Join(errs...))
	}
	return rep, nil
}

// action is one thing reconciliation did or flagged; kind goes to
// reconcile_log's action column, text to the report and detail column.
type action struct{ kind, text string }

func (s *Syncer) reconcileItem(ctx context.Context, id int64, repair bool) (ItemReport, error) {
	st, err := s.Stats(ctx, id)
	if err != nil {
		return ItemReport{}, err
	}
	ir := ItemReport{Stats: st, Actions: []string{}}
	if !repair {
		ir.Actions = findings(st)
		if st.StockRedis == nil {
			ir.Consistent = false
		}
		return ir, nil
	}
	var done []action
	var moves []move
	switch {
	case st.StockRedis == nil:
		if err := s.Warm(ctx, id); err != nil {
			return ir, err
		}
		ir.Consistent = false // Redis had lost the sale
		done = append(done, action{"warm", "warmed from MySQL: Redis held no state for the sale"})
	case st.split:
		if err := s.Warm(ctx, id); err != nil {
			return ir, err
		}
		done = append(done, action{"warm", "warmed from MySQL: Redis's sale total disagreed with its variants"})
	case st.drifted():
		if moves, err = s.lockedCorrect(ctx, id); err != nil {
			return ir, err
		}
		for _, m := range moves {
			done = append(done, action{"correct_stock",
				fmt.Sprintf("corrected Redis stock of variant %q (%d) by %+d to match MySQL", m.label, m.variant, m.delta)})
		}
	}
	ir.Repaired = len(done) > 0 // a note for a person repairs nothing
	if ir.Repaired {
		s.audit(ctx, st, done, moves)
	}
	if !mysqlConsistent(st) {
		done = append(done, action{"needs_attention", "MySQL stock disagrees with its own orders: left for a person to check"})
	}
	for _, a := range done {
		ir.Actions = append(ir.Actions, a.text)
	}
	return ir, s.record(ctx, id, done)
}

// findings says what a repair of st would do, changing nothing.
func findings(st Stats) []string {
	out := []string{}
	switch {
	case st.StockRedis == nil:
		out = append(out, "Redis holds no state for the sale: a repair warms it from MySQL")
	case st.split:
		out = append(out, "Redis's sale total disagrees with its variants: a repair warms it from MySQL")
	case st.drifted():
		for _, v := range st.Variants {
			if v.RedisDrift != 0 {
				out = append(out, fmt.Sprintf("Redis stock of variant %q (%d) is %+d off MySQL: a repair corrects it",
					v.Label, v.VariantID, v.RedisDrift))
			}
		}
	}
	if !mysqlConsistent(st) {
		out = append(out, "MySQL stock disagrees with its own orders: left for a person to check")
	}
	return out
}

// mysqlConsistent says whether MySQL agrees with itself: each variant's
// stock and the sale's with their active orders, and the sale's with the sum
// of its variants'.
func mysqlConsistent(st Stats) bool {
	ok := st.StockMySQL == st.StockTotal-st.active
	sum := 0
	for _, v := range st.Variants {
		ok = ok && v.StockMySQL == v.StockTotal-v.active
		sum += v.StockMySQL
	}
	return ok && sum == st.StockMySQL
}

func (s *Syncer) lockedCorrect(ctx context.Context, id int64) ([]move, error) {
	var moves []move
	err := s.Exclusive(ctx, id, func(ctx context.Context) error {
		var err error
		moves, err = s.correct(ctx, id)
		return err
	})
	return moves, err
}

// ReconcileJob is Reconcile as a periodic job of the fleet.
func (s *Syncer) ReconcileJob(every time.Duration) lock.Job {
	return lock.Job{Name: "reconcile", Every: every, Run: func(ctx context.Context) error {
		_, err := s.Reconcile(ctx)
		return err
	}}
}

// record writes the actions to reconcile_log and the log.
func (s *Syncer) record(ctx context.Context, itemID int64, actions []action) error {
	for _, a := range actions {
		s.log.Warn("reconcile", "item_id", itemID, "action", a.kind, "detail", a.text)
		err := s.db.WithContext(ctx).Exec("INSERT INTO reconcile_log (item_id, action, detail) VALUES (?, ?, ?)",
			itemID, a.kind, a.text).Error
		if err != nil {
			return fmt.Errorf("record reconcile action: %w", err)
		}
	}
	return nil
}
