package e2etest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/httpapi"
)

// DrawBody is a draw of sneakers in sizes: entries for ten minutes from
// opens, a minute to buy, and the sale on for two hours after the close.
func DrawBody(opens time.Time, variants ...map[string]any) map[string]any {
	b := DropBody(opens, variants...)
	close := opens.Add(10 * time.Minute)
	delete(b, "starts_at")
	delete(b, "per_user_limit")
	b["mode"], b["purchase_window_seconds"] = "draw", 60
	b["entries_open_at"], b["entries_close_at"] = opens.Format(time.RFC3339Nano), close.Format(time.RFC3339Nano)
	b["ends_at"] = close.Add(2 * time.Hour).Format(time.RFC3339Nano)
	return b
}

// PublishedDraw is GET /draw as a shopper reads it, with the rule of the
// README recomputed here, apart from the server's code.
type PublishedDraw struct {
	Phase      string  `json:"phase"`
	SeedSHA256 *string `json:"seed_sha256"`
	Salt       *string `json:"salt"`
	Seed       *string `json:"seed"`
	Variants   []struct {
		VariantID  int64 `json:"variant_id"`
		StockTotal int   `json:"stock_total"`
	} `json:"variants"`
	Entries []Ticket `json:"entries"`
	Winners []Ticket `json:"winners"`
}

type Ticket struct {
	EntryID   string `json:"entry_id"`
	VariantID int64  `json:"variant_id"`
}

func Sha(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func Unhex(tb testing.TB, s *string) []byte {
	tb.Helper()
	if s == nil {
		tb.Fatal("a published value is missing")
	}
	b, err := hex.DecodeString(*s)
	if err != nil {
		tb.Fatalf("not hex: %q", *s)
	}
	return b
}

// Rankings recomputes every variant's ranking from the published draw: by
// hex(SHA-256(seed || ":" || entry_id)) ascending. It checks the seed
// against the commitment first.
func (d PublishedDraw) Rankings(tb testing.TB) map[int64][]string {
	tb.Helper()
	seed := Unhex(tb, d.Seed)
	if Sha(seed) != *d.SeedSHA256 {
		tb.Fatalf("SHA-256 of the seed %s is not the commitment %s", *d.Seed, *d.SeedSHA256)
	}
	out := map[int64][]string{}
	for _, e := range d.Entries {
		out[e.VariantID] = append(out[e.VariantID], e.EntryID)
	}
	for _, r := range out {
		sort.Slice(r, func(i, j int) bool {
			return Sha(seed, []byte(":"+r[i])) < Sha(seed, []byte(":"+r[j]))
		})
	}
	return out
}

func (d PublishedDraw) Units(v int64) int {
	for _, u := range d.Variants {
		if u.VariantID == v {
			return u.StockTotal
		}
	}
	return 0
}

func (s *Server) Draw(tb testing.TB, id int64) PublishedDraw {
	tb.Helper()
	r := s.Call(tb, "GET", "/api/v1/items/"+Itoa(id)+"/draw", "", nil)
	if r.Status != 200 {
		tb.Fatalf("GET draw: %d %s", r.Status, r.Raw)
	}
	var d PublishedDraw
	if err := json.NewDecoder(bytes.NewBufferString(r.Raw)).Decode(&d); err != nil {
		tb.Fatal(err)
	}
	return d
}

// Enter enters a shopper in draw sale id for variant, paying with a proof
// of work as the page does; the server draws the entry secret.
func (s *Server) Enter(tb testing.TB, id int64, tok string, variant any) Reply {
	tb.Helper()
	return s.EnterWith(tb, id, tok, map[string]any{"variant_id": variant})
}

// EnterWith enters with body as the entry's request.
func (s *Server) EnterWith(tb testing.TB, id int64, tok string, body map[string]any) Reply {
	tb.Helper()
	return s.Call(tb, "POST", "/api/v1/items/"+Itoa(id)+"/entry", tok, body, httpapi.ProofOfWorkHeader, s.Proof(tb, id, tok))
}
