package stocksync_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/stock"
)

// TestDriftBetweenVariants: Redis moved two units from one size to another,
// so the sale's total still agrees with MySQL. Stats must see it per size,
// and a repair must put each size back, or shoppers would buy a size MySQL
// has none of.
func TestDriftBetweenVariants(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	ctx := context.Background()
	it, err := s.items.Create(ctx, catalog.Item{Name: "drop", PriceCents: 100, PerUserLimit: 1, StartsAt: t0,
		EndsAt: t0.Add(time.Hour), Variants: []catalog.Variant{{Label: "S", StockTotal: 4}, {Label: "M", StockTotal: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.syncer.Warm(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	small, medium := it.Variants[0].ID, it.Variants[1].ID
	if _, err := s.stock.Reserve(ctx, stock.Request{ItemID: it.ID, VariantID: medium, UserID: "ann", Quantity: 1,
		OrderID: newID(), Now: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	vstock := s.keys.Item(it.ID).VariantStock()
	s.rdb.HIncrBy(ctx, vstock, strconv.FormatInt(small, 10), -2)
	s.rdb.HIncrBy(ctx, vstock, strconv.FormatInt(medium, 10), 2)

	st, err := s.syncer.Stats(ctx, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Consistent || len(st.Problems) != 0 || st.Variants[0].Consistent || st.Variants[1].Consistent {
		t.Fatalf("stats = %+v: want the sale's sums agreeing and both sizes drifted", st)
	}
	rep, err := s.syncer.Reconcile(ctx)
	if err != nil || len(rep.Items) != 1 || !rep.Items[0].Repaired {
		t.Fatalf("reconcile = %+v, %v", rep, err)
	}
	levels, err := s.stock.Levels(ctx, []int64{it.ID})
	if err != nil {
		t.Fatal(err)
	}
	if l := levels[it.ID]; l.Variants[small] != 4 || l.Variants[medium] != 3 || l.Total != 7 {
		t.Fatalf("redis after the repair = %+v, want S 4, M 3, total 7", l)
	}
	s.settle(t, it)
}

// TestReconcileRepairIsAudited drifts one sale's Redis stock and loses
// another's: each repair is one reconcile_repair entry by whoever asked (an
// admin's fingerprint and request, or the system for the periodic job)
// with Redis's levels as found and as repaired. A consistent sale records
// nothing.
func TestReconcileRepairIsAudited(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	log := audit.NewStore(s.db.Gorm, func() time.Time { return t0 })
	s.syncer.SetAuditor(log)
	ctx := context.Background()
	drifted, lost := s.sale(t, 10, 1), s.sale(t, 6, 1)
	vid := strconv.FormatInt(drifted.Variants[0].ID, 10)
	s.rdb.HSet(ctx, s.keys.Item(drifted.ID).VariantStock(), vid, 13)
	s.rdb.Set(ctx, s.keys.Item(drifted.ID).Stock(), 13, 0)

	who := audit.Fingerprint([]byte("a-jwt-secret"), "token", "some-admin-token-0123")
	if _, err := s.syncer.Reconcile(audit.WithActor(ctx, who, "req-rec")); err != nil {
		t.Fatal(err)
	}
	s.rdb.Del(ctx, s.keys.Item(lost.ID).Stock(), s.keys.Item(lost.ID).VariantStock())
	if _, err := s.syncer.Reconcile(ctx); err != nil { // the job: no admin
		t.Fatal(err)
	}
	p, err := log.List(ctx, audit.Filter{Action: audit.ActionReconcileRepair}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(p.Entries), p.Entries)
	}
	job, admin := p.Entries[0], p.Entries[1]
	if admin.Actor != who || admin.RequestID != "req-rec" || *admin.ItemID != drifted.ID ||
		string(admin.Before) != `{"stock":13,"variants":{"`+vid+`":13}}` {
		t.Errorf("admin's repair: %+v before %s", admin, admin.Before)
	}
	var after struct {
		Stock    int64
		Variants map[string]int64
		Actions  []string
	}
	if err := json.Unmarshal(admin.After, &after); err != nil || after.Stock != 10 || after.Variants[vid] != 10 || len(after.Actions) != 1 {
		t.Errorf("admin's repair after: %s", admin.After)
	}
	if job.Actor != audit.System || job.RequestID != "" || *job.ItemID != lost.ID || job.Before != nil {
		t.Errorf("job's repair: %+v before %s", job, job.Before)
	}
	if err := json.Unmarshal(job.After, &after); err != nil || after.Stock != 6 || len(after.Actions) != 1 {
		t.Errorf("job's repair after: %s", job.After)
	}
}
