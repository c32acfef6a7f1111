package e2etest

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/draw/drawvec"
	"github.com/seckill/seckill/internal/drawkey"
	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/testenv"
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

// PublishedDraw and Ticket are the draw as a shopper reads it, decoded
// apart from the server's code; drawvec holds them once for these tests and
// the fault tests.
type (
	PublishedDraw = drawvec.Published
	Ticket        = drawvec.Ticket
)

// Sha is hex(SHA-256(parts...)), the hash every rule of a draw uses.
func Sha(parts ...[]byte) string { return drawvec.SHA256Hex(parts...) }

// Unhex decodes a published hex value, failing tb when it is missing or
// not hex.
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

// Rankings recomputes every variant's ranking from the published draw by
// the README's rule, failing tb when the seed is not the commitment.
func Rankings(tb testing.TB, d PublishedDraw) map[int64][]string {
	tb.Helper()
	r, err := d.Rankings()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// Draw is GET /draw of sale id as anyone reads it.
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

// NewDraw creates a draw sale of one size whose entries open at opens.
func (s *Server) NewDraw(tb testing.TB, opens time.Time) int64 {
	tb.Helper()
	r := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, DrawBody(opens, Size("EU 42", 1)))
	if r.Status != 201 {
		tb.Fatalf("create draw: %d %s", r.Status, r.Raw)
	}
	return int64(Num(r.Body, "id"))
}

// EnterMany enters n shoppers named prefix-i in draw sale id.
func (s *Server) EnterMany(tb testing.TB, id int64, prefix string, n int) {
	tb.Helper()
	for i := range n {
		if r := s.Enter(tb, id, s.Login(tb, fmt.Sprintf("%s-%d", prefix, i)), 0); r.Status != 200 {
			tb.Fatalf("enter: %d %s", r.Status, r.Raw)
		}
	}
}

// TestDrawKey is the draw key of the tests' servers, fresh per test binary.
var TestDrawKey, TestDrawKeys = NewDrawKey("test")

// NewDrawKey is a fresh draw key named id and the ring that holds only it.
func NewDrawKey(id string) ([]byte, drawkey.Ring) {
	secret := make([]byte, 32)
	rand.Read(secret)
	r, err := drawkey.Parse(id + ":" + base64.StdEncoding.EncodeToString(secret))
	if err != nil {
		panic(err)
	}
	return secret, r
}

// Sibling starts a server on s's MySQL database with other draw keys and a
// Redis prefix of its own, so its fleet jobs run whatever s's do: the
// draw job of each runs on every period.
func (s *Server) Sibling(tb testing.TB, clk interface{ Now() time.Time }, log *slog.Logger, keys drawkey.Ring) *Server {
	tb.Helper()
	cfg := s.Cfg
	cfg.HTTPAddr, cfg.DrawKeys = "127.0.0.1:0", keys
	_, cfg.RedisPrefix = testenv.RedisOn(tb, cfg.Redis)
	return Launch(tb, clk, log, cfg, s.Db)
}

// Entry is the shopper tok's entry in draw sale id as the API shows it.
func (s *Server) Entry(t *testing.T, id int64, tok string) Reply {
	t.Helper()
	return s.Call(t, "GET", "/api/v1/items/"+Itoa(id)+"/entry", tok, nil)
}

// CreateDraw creates the draw sale body describes as the admin, failing tb
// unless it is created, and returns its id and its variants' ids by label.
func (s *Server) CreateDraw(tb testing.TB, body map[string]any) (int64, map[string]int64) {
	tb.Helper()
	created := s.Call(tb, "POST", "/api/v1/admin/items", AdminToken, body)
	if created.Status != 201 {
		tb.Fatalf("create draw: %s", created.Raw)
	}
	return int64(Num(created.Body, "id")), VariantIDs(tb, created)
}
