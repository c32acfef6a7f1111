package draw

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// seedUnder is the README's seed of sale id: HMAC-SHA256(key, "seckill draw
// seed v1" || id as 8 bytes big-endian || nonce).
func seedUnder(key []byte, id int64, nonce []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("seckill draw seed v1"))
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(id)))
	m.Write(nonce)
	return m.Sum(nil)
}

// TestDrawSeedHiddenFromInsiders: an insider who reads, during entries,
// every row of every table in MySQL, every key and value under the
// server's Redis prefix and every public answer cannot find the seed the
// draw then publishes, nor compute it from what they read: it takes the
// key, which none of it holds. The published draw still checks out by the
// README's rules and the verifier.
func TestDrawSeedHiddenFromInsiders(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	created := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, e2etest.DrawBody(e2etest.T0, e2etest.Size("EU 41", 2), e2etest.Size("EU 42", 1)))
	if created.Status != 201 {
		t.Fatalf("create draw: %d %s", created.Status, created.Raw)
	}
	id, sizes := int64(e2etest.Num(created.Body, "id")), e2etest.VariantIDs(t, created)
	for i := range 6 {
		u := fmt.Sprintf("insider-%d", i)
		v := sizes["EU 41"]
		if i%2 == 1 {
			v = sizes["EU 42"]
		}
		if r := s.Enter(t, id, s.Login(t, u), v); r.Status != 200 {
			t.Fatalf("enter %s: %d %s", u, r.Status, r.Raw)
		}
	}
	open := s.Draw(t, id)
	read := dumpMySQL(t, s.Db.Gorm.DB)
	read = append(read, dumpRedis(t, s)...)
	for _, p := range []string{"/api/v1/items/" + e2etest.Itoa(id), "/api/v1/items/" + e2etest.Itoa(id) + "/draw", "/api/v1/items"} {
		read = append(read, []byte(s.Call(t, "GET", p, "", nil).Raw))
	}

	clk.Add(10 * time.Minute)
	var d e2etest.PublishedDraw
	testenv.WaitFor(t, 10*time.Second, func() bool { d = s.Draw(t, id); return d.Phase == "drawn" }, "the draw never ran")
	seed := e2etest.Unhex(t, d.Seed)
	if *d.SeedSHA256 != *open.SeedSHA256 || e2etest.Sha(seed) != *open.SeedSHA256 {
		t.Fatalf("the seed %x does not match the commitment %s published during entries", seed, *open.SeedSHA256)
	}
	for name, secret := range map[string][]byte{"seed": seed, "draw key": e2etest.TestDrawKey} {
		if where := find(read, secret); where != "" {
			t.Errorf("the %s was readable during entries: %s", name, where)
		}
	}
	var nonce []byte
	if err := s.Db.Gorm.Raw("SELECT draw_nonce FROM items WHERE id = ?", id).Row().Scan(&nonce); err != nil || len(nonce) != 32 {
		t.Fatalf("the sale's nonce: %x %v", nonce, err)
	}
	// The seed is the key's function of the nonce; no other key, and no
	// value read standing in for the key or hashed alone, gives it.
	if !bytes.Equal(seedUnder(e2etest.TestDrawKey, id, nonce), seed) {
		t.Fatalf("the published seed is not HMAC-SHA256(key, label || id || nonce)")
	}
	wrong, _ := e2etest.NewDrawKey("wrong")
	if e2etest.Sha(seedUnder(wrong, id, nonce)) == *open.SeedSHA256 {
		t.Fatal("a wrong key gives the commitment")
	}
	for _, v := range read {
		if h := sha256.Sum256(v); bytes.Equal(h[:], seed) || bytes.Equal(seedUnder(v, id, nonce), seed) {
			t.Fatalf("the seed is computable from a value read during entries: %q", v)
		}
	}
	checkPublished(t, s, id, d, *open.SeedSHA256)
}

// checkPublished checks a drawn draw with the verifier and by rule 3 of
// the README, recomputed here: each variant's first units go to the top of
// its ranking by hex(SHA-256(seed || ":" || entry_id)), held to the
// commitment seen during entries.
func checkPublished(t *testing.T, s *e2etest.Server, id int64, d e2etest.PublishedDraw, commitment string) {
	t.Helper()
	var p draw.Proof
	if err := json.Unmarshal([]byte(s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id)+"/draw", "", nil).Raw), &p); err != nil {
		t.Fatal(err)
	}
	if _, err := draw.Verify(p, draw.Against{Commitment: commitment}); err != nil {
		t.Fatalf("the verifier refuses the draw: %v", err)
	}
	rank, won := e2etest.Rankings(t, d), map[e2etest.Ticket]bool{}
	for _, w := range d.Winners {
		won[w] = true
	}
	n := 0
	for v, r := range rank {
		for _, e := range r[:min(d.Units()[v], len(r))] {
			n++
			if !won[e2etest.Ticket{EntryID: e, VariantID: v}] {
				t.Errorf("entry %s of variant %d is at the top of its ranking but did not win", e, v)
			}
		}
	}
	if n != len(d.Winners) || n == 0 {
		t.Fatalf("%d winners published, %d recomputed", len(d.Winners), n)
	}
}

// find says where secret appears in what was read, raw or as hex or
// base64; "" if nowhere.
func find(read [][]byte, secret []byte) string {
	forms := [][]byte{secret, []byte(hex.EncodeToString(secret)), bytes.ToUpper([]byte(hex.EncodeToString(secret))),
		[]byte(base64.StdEncoding.EncodeToString(secret)), []byte(base64.RawURLEncoding.EncodeToString(secret))}
	for _, v := range read {
		for _, f := range forms {
			if bytes.Contains(v, f) {
				return fmt.Sprintf("in %q", v)
			}
		}
	}
	return ""
}

// dumpMySQL reads every column of every row of every table of the test's
// database: more than a sale's items, variants and draw_entries rows.
func dumpMySQL(t *testing.T, sqlDB func() (*sql.DB, error)) [][]byte {
	t.Helper()
	db, err := sqlDB()
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	rows, err := db.Query("SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	var out [][]byte
	for _, table := range tables {
		out = append(out, dumpTable(t, db, table)...)
	}
	if len(tables) < 5 || len(out) == 0 {
		t.Fatalf("read %d values from %d tables", len(out), len(tables))
	}
	return out
}

func dumpTable(t *testing.T, db *sql.DB, table string) [][]byte {
	t.Helper()
	rows, err := db.Query("SELECT * FROM `" + table + "`")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]byte
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			out = append(out, bytes.Clone(v))
		}
	}
	return out
}

// dumpRedis reads every key under the server's prefix and its value,
// whatever its type.
func dumpRedis(t *testing.T, s *e2etest.Server) [][]byte {
	t.Helper()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Cfg.Redis.Addr})
	defer rdb.Close()
	keys, err := rdb.Keys(ctx, s.Cfg.RedisPrefix+"*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys under %s: %d, %v", s.Cfg.RedisPrefix, len(keys), err)
	}
	var out [][]byte
	for _, k := range keys {
		var v any
		switch typ := rdb.Type(ctx, k).Val(); typ {
		case "string":
			v, err = rdb.Get(ctx, k).Result()
		case "hash":
			v, err = rdb.HGetAll(ctx, k).Result()
		case "list":
			v, err = rdb.LRange(ctx, k, 0, -1).Result()
		case "set":
			v, err = rdb.SMembers(ctx, k).Result()
		case "zset":
			v, err = rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
		case "stream":
			v, err = rdb.XRange(ctx, k, "-", "+").Result()
		case "none": // expired since KEYS
		default:
			t.Fatalf("key %s of type %s", k, typ)
		}
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		out = append(out, []byte(k), []byte(fmt.Sprintf("%v", v)))
	}
	return out
}
