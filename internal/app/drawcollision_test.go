package app_test

import (
	"encoding/hex"
	"testing"

	"github.com/seckill/seckill/internal/draw"
)

// TestEntryIDCollision: a legacy entry id, SHA-256(salt || user_id), is
// also SHA-256(salt || secret || user_id') when the victim's user id is 32
// printable bytes followed by the attacker's: the attacker sends those 32
// bytes as their entry secret. Their entry, first or a change of secret, is
// refused (409 entry_id_taken) and leaves the victim's row, and their own,
// as they were.
func TestEntryIDCollision(t *testing.T) {
	t.Parallel()
	s := start(t, newClock(t0))
	created := s.call(t, "POST", "/api/v1/admin/items", adminToken, drawBody(t0, size("EU 41", 1), size("EU 42", 1)))
	if created.status != 201 {
		t.Fatalf("create draw: %d %s", created.status, created.raw)
	}
	id, sizes := int64(num(created.body, "id")), variantIDs(t, created)
	salt := unhex(t, s.draw(t, id).Salt)
	prefix, attacker := "victim.with.a.long.mail.address:", "mallory"
	victim := prefix + attacker
	legacyID := draw.EntryID(salt, nil, victim) // a legacy id: no secret
	if len(prefix) != 32 || draw.EntryID(salt, []byte(prefix), attacker) != legacyID {
		t.Fatal("the ids do not collide")
	}
	err := s.db.Gorm.Exec("INSERT INTO draw_entries (item_id, entry_id, user_id, variant_id, entered_at) VALUES (?, ?, ?, ?, ?)",
		id, legacyID, victim, sizes["EU 41"], t0).Error
	if err != nil {
		t.Fatal(err)
	}
	before := entryRows(t, s, id)
	tok := s.login(t, attacker)
	colliding := map[string]any{"variant_id": sizes["EU 42"], "entry_secret": hex.EncodeToString([]byte(prefix))}

	if r := s.enterWith(t, id, tok, colliding); r.status != 409 || r.errCode() != "entry_id_taken" {
		t.Fatalf("a first entry on the victim's id: %d %s", r.status, r.raw)
	}
	if after := entryRows(t, s, id); after != before {
		t.Fatalf("a refused first entry changed the entries:\n%s\nwas\n%s", after, before)
	}
	if r := s.enter(t, id, tok, sizes["EU 42"]); r.status != 200 {
		t.Fatalf("an honest entry: %d %s", r.status, r.raw)
	}
	before = entryRows(t, s, id)
	if r := s.enterWith(t, id, tok, colliding); r.status != 409 || r.errCode() != "entry_id_taken" {
		t.Fatalf("a change of secret onto the victim's id: %d %s", r.status, r.raw)
	}
	if after := entryRows(t, s, id); after != before {
		t.Fatalf("a refused change of secret changed the entries:\n%s\nwas\n%s", after, before)
	}
}

// entryRows is every entry of sale id as MySQL holds it, one line each.
func entryRows(tb testing.TB, s *server, id int64) string {
	tb.Helper()
	var out string
	err := s.db.Gorm.Raw("SELECT COALESCE(GROUP_CONCAT(CONCAT_WS(' ', user_id, entry_id, IFNULL(HEX(entry_secret), '-'), variant_id) "+
		"ORDER BY user_id SEPARATOR '\n'), '') FROM draw_entries WHERE item_id = ?", id).Row().Scan(&out)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
