package draw

import (
	"encoding/hex"
	"testing"

	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestEntryIDCollision: a legacy entry id, SHA-256(salt || user_id), is
// also SHA-256(salt || secret || user_id') when the victim's user id is 32
// printable bytes followed by the attacker's: the attacker sends those 32
// bytes as their entry secret. Their entry, first or a change of secret, is
// refused (409 entry_id_taken) and leaves the victim's row, and their own,
// as they were.
func TestEntryIDCollision(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 41", 1), e2etest.Size("EU 42", 1)))
	if created.Status != 201 {
		t.Fatalf("create draw: %d %s", created.Status, created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	salt := e2etest.Unhex(t, s.Draw(t, id).Salt)
	prefix, attacker := "victim.with.a.long.mail.address:", "mallory"
	victim := prefix + attacker
	legacyID := draw.EntryID(salt, nil, victim) // a legacy id: no secret
	if len(prefix) != 32 || draw.EntryID(salt, []byte(prefix), attacker) != legacyID {
		t.Fatal("the ids do not collide")
	}
	err := s.Db.Gorm.Exec("INSERT INTO draw_entries (item_id, entry_id, user_id, variant_id, entered_at) VALUES (?, ?, ?, ?, ?)",
		id, legacyID, victim, sizes["EU 41"], e2etest.T0).Error
	if err != nil {
		t.Fatal(err)
	}
	before := entryRows(t, s, id)
	tok := s.Login(t, attacker)
	colliding := map[string]any{"variant_id": sizes["EU 42"], "entry_secret": hex.EncodeToString([]byte(prefix))}

	if r := s.EnterWith(t, id, tok, colliding); r.Status != 409 || r.ErrCode() != "entry_id_taken" {
		t.Fatalf("a first entry on the victim's id: %d %s", r.Status, r.Raw)
	}
	if after := entryRows(t, s, id); after != before {
		t.Fatalf("a refused first entry changed the entries:\n%s\nwas\n%s", after, before)
	}
	if r := s.Enter(t, id, tok, sizes["EU 42"]); r.Status != 200 {
		t.Fatalf("an honest entry: %d %s", r.Status, r.Raw)
	}
	before = entryRows(t, s, id)
	if r := s.EnterWith(t, id, tok, colliding); r.Status != 409 || r.ErrCode() != "entry_id_taken" {
		t.Fatalf("a change of secret onto the victim's id: %d %s", r.Status, r.Raw)
	}
	if after := entryRows(t, s, id); after != before {
		t.Fatalf("a refused change of secret changed the entries:\n%s\nwas\n%s", after, before)
	}
}

// entryRows is every entry of sale id as MySQL holds it, one line each.
func entryRows(tb testing.TB, s *e2etest.Server, id int64) string {
	tb.Helper()
	var out string
	err := s.Db.Gorm.Raw("SELECT COALESCE(GROUP_CONCAT(CONCAT_WS(' ', user_id, entry_id, IFNULL(HEX(entry_secret), '-'), variant_id) "+
		"ORDER BY user_id SEPARATOR '\n'), '') FROM draw_entries WHERE item_id = ?", id).Row().Scan(&out)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
