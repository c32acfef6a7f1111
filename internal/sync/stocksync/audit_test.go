package stocksync_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/audit"
)

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
