package audit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/testenv"
)

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// testKey stands for the server's JWT secret.
var testKey = []byte("a-jwt-secret-of-32-bytes-or-more!")

func newStore(t *testing.T) *audit.Store {
	t.Helper()
	return audit.NewStore(testenv.MySQL(t).Gorm, func() time.Time { return t0 })
}

func TestRecordKeepsWhoRequestAndValues(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	who := audit.Fingerprint(testKey, "token", "s3cret-admin-token")
	err := s.Record(audit.WithActor(ctx, who, "req-1"), audit.ActionUpdate, 7,
		map[string]any{"price_cents": 100}, map[string]any{"price_cents": 90})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, audit.ActionReconcileRepair, 0, nil, []int{1}); err != nil {
		t.Fatal(err)
	}
	p, err := s.List(ctx, audit.Filter{}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 || p.Next != 0 {
		t.Fatalf("got %d entries, next %d; want 2, 0", len(p.Entries), p.Next)
	}
	sys, upd := p.Entries[0], p.Entries[1]
	if upd.Actor != who || upd.RequestID != "req-1" || upd.Action != "update" || upd.ItemID == nil || *upd.ItemID != 7 ||
		string(upd.Before) != `{"price_cents":100}` || string(upd.After) != `{"price_cents":90}` || !upd.At.Equal(t0) {
		t.Errorf("update entry = %+v (before %s after %s)", upd, upd.Before, upd.After)
	}
	// Without an admin in the context the change is the system's own.
	if sys.Actor != audit.System || sys.ItemID != nil || sys.Before != nil || string(sys.After) != "[1]" {
		t.Errorf("system entry = %+v (before %s after %s)", sys, sys.Before, sys.After)
	}
	if head, err := s.Head(ctx); err != nil || head != sys.ID {
		t.Errorf("Head = %d, %v; want %d", head, err, sys.ID)
	}
}

// Paging while entries are added returns each entry that existed at the
// start exactly once, newest first, and a filter keeps to its sale and
// action.
func TestListPagesNewestFirstOnce(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	for i := range 23 {
		action := audit.ActionUpdate
		if i%3 == 0 {
			action = audit.ActionWarm
		}
		if err := s.Record(ctx, action, int64(1+i%2), nil, map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	var seen []int64
	cursor := int64(0)
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("paging does not end")
		}
		p, err := s.List(ctx, audit.Filter{}, 5, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entries {
			seen = append(seen, e.ID)
		}
		// A newer entry must not shift what the next pages hold.
		if err := s.Record(ctx, audit.ActionCreate, 9, nil, nil); err != nil {
			t.Fatal(err)
		}
		if cursor = p.Next; cursor == 0 {
			break
		}
	}
	if len(seen) != 23 {
		t.Fatalf("saw %d entries, want 23: %v", len(seen), seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] >= seen[i-1] {
			t.Fatalf("not newest first, each once: %v", seen)
		}
	}
	p, err := s.List(ctx, audit.Filter{ItemID: 2, Action: audit.ActionWarm}, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	// i in 0..22 with i%3 == 0 and i odd: 3, 9, 15, 21.
	if len(p.Entries) != 4 {
		t.Fatalf("filtered to %d entries, want 4", len(p.Entries))
	}
	for _, e := range p.Entries {
		if *e.ItemID != 2 || e.Action != audit.ActionWarm {
			t.Errorf("filter let through %+v", e)
		}
	}
	if _, err := s.List(ctx, audit.Filter{}, 0, 0); !errors.Is(err, audit.ErrInvalid) {
		t.Errorf("limit 0: %v, want ErrInvalid", err)
	}
}

func TestFingerprintIsStableAndHidesTheSecret(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	a, b := audit.Fingerprint(testKey, "token", token), audit.Fingerprint(testKey, "token", token)
	if a != b {
		t.Fatalf("fingerprint changed: %q, %q", a, b)
	}
	if !strings.HasPrefix(a, "token:") || len(a) != len("token:")+12 {
		t.Errorf("fingerprint %q: want token: and 12 hex digits", a)
	}
	// No run of 6 characters of the secret shows in the fingerprint.
	for i := 0; i+6 <= len(token); i++ {
		if strings.Contains(a, token[i:i+6]) {
			t.Fatalf("fingerprint %q shows part of the token", a)
		}
	}
	if audit.Fingerprint(testKey, "token", token+"x") == a {
		t.Error("two tokens share a fingerprint")
	}
	if s := audit.Fingerprint(testKey, "session", token); s == a || !strings.HasPrefix(s, "session:") {
		t.Errorf("session fingerprint %q", s)
	}
}
