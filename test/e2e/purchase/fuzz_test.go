package purchase

import (
	"os"
	"os/signal"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/test/e2e/e2etest"
)

// The sale every purchase goes to.
const fuzzStock, fuzzLimit = 5, 2

// sendable reports whether net/http's client sends v as a header value: it
// refuses control characters other than tab.
func sendable(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// startFuzzServer starts the one server a fuzz run uses. Go stops a fuzz
// worker by closing its input, sends it SIGINT a second later (which ends the
// process once fuzzing has returned) and SIGKILL a second after that. Stopping
// a server can itself take a second (a persister's blocking stream read), so
// SIGINT is held off while the cleanups stop the server and drop its database
// and Redis keys.
func startFuzzServer(f *testing.F) *e2etest.Server {
	f.Helper()
	held := make(chan os.Signal, 1)
	f.Cleanup(func() { signal.Stop(held) }) // runs last
	s := e2etest.Start(f, e2etest.NewClock(e2etest.T0))
	f.Cleanup(func() { signal.Notify(held, os.Interrupt) }) // runs first
	return s
}

func FuzzPurchaseEndToEnd(f *testing.F) {
	for _, b := range []string{"", "null", "{}", `{"quantity":1}`, `{"quantity":2}`, `{"quantity":3}`, `{"quantity":0}`,
		`{"quantity":-1}`, `{"quantity":1.5}`, `{"quantity":"2"}`, `{"quantity":99999999999999999999}`,
		`{"quantity":9223372036854775807}`, `{"quantity":1,"quantity":2}`, `{"quantity":1,"x":1}`, `{"quantity":{}}`,
		`[1]`, `{"quantity":`, `{} {}`, "\xff", `{"quantity":1}` + strings.Repeat(" ", 2<<20)} {
		f.Add([]byte(b), "", uint8(len(b)))
	}
	for i, k := range []string{"k-1", "k-1", " k-1 ", "has space", "é", strings.Repeat("k", 129), "a\nb", "\t"} {
		f.Add([]byte(`{"quantity":1}`), k, uint8(i%2))
	}

	s := startFuzzServer(f)
	sale := s.Sale(f, fuzzStock, fuzzLimit, e2etest.T0, e2etest.T0.Add(time.Hour))
	tokens := map[string]string{}
	f.Fuzz(func(t *testing.T, body []byte, key string, user uint8) {
		if !sendable(key) {
			t.Skip("net/http does not send this Idempotency-Key")
		}
		before := s.RedisStock(t, sale)
		if before == 0 { // a fresh sale, so reserving stays reachable
			sale = s.Sale(t, fuzzStock, fuzzLimit, e2etest.T0, e2etest.T0.Add(time.Hour))
			before = fuzzStock
		}
		u := "fuzz-" + e2etest.Itoa(int64(user%16)) // few shoppers: repeats, limits and replays happen
		if tokens[u] == "" {
			tokens[u] = e2etest.MintToken(t, u)
		}
		var hdr []string
		if key != "" {
			hdr = []string{"Idempotency-Key", key}
		}
		r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(sale)+"/purchase", tokens[u], body, hdr...)
		after := s.RedisStock(t, sale)
		q, _ := r.Body["quantity"].(float64)
		switch {
		case r.Status >= 500:
			t.Fatalf("body %q, key %q, user %s: %d %s", body, key, u, r.Status, r.Raw)
		case r.Status == 202 && r.Header.Get("Idempotent-Replayed") == "true":
			if after != before {
				t.Fatalf("replay of body %q, key %q moved stock %d -> %d: %s", body, key, before, after, r.Raw)
			}
		case r.Status == 202:
			if q < 1 || q > fuzzLimit || before-after != int64(q) {
				t.Fatalf("body %q, key %q reserved %v; stock %d -> %d: %s", body, key, q, before, after, r.Raw)
			}
		case r.ErrCode() == "" || after != before:
			t.Fatalf("body %q, key %q: %d %s; stock %d -> %d", body, key, r.Status, r.Raw, before, after)
		}
	})
}

func FuzzAdminCreateEndToEnd(f *testing.F) {
	valid := `{"name":"Lamp","description":"d","price_cents":1999,"stock_total":100,"per_user_limit":1,` +
		`"starts_at":"2026-11-22T10:00:00Z","ends_at":"2026-11-23T10:00:00Z"}`
	for _, b := range []string{valid, "", "null", "{}", "[]", `{"name":"Lamp"}`, `{"name":5}`, `{"colour":"red"}`,
		strings.Replace(valid, `"stock_total":100`, `"stock_total":0`, 1),
		strings.Replace(valid, `"stock_total":100`, `"stock_total":2147483648`, 1),
		strings.Replace(valid, `"stock_total":100`, `"stock_total":"100"`, 1),
		strings.Replace(valid, `"price_cents":1999`, `"price_cents":1e12`, 1),
		strings.Replace(valid, `"price_cents":1999`, `"price_cents":-1`, 1),
		strings.Replace(valid, `"per_user_limit":1`, `"per_user_limit":101`, 1),
		strings.Replace(valid, `"Lamp"`, `"`+strings.Repeat("é", 200)+`"`, 1),
		strings.Replace(valid, `"Lamp"`, `"`+strings.Repeat("n", 201)+`"`, 1),
		strings.Replace(valid, `"Lamp"`, `"😀\u0000\ud800"`, 1),
		strings.Replace(valid, `"Lamp"`, "\"\xff\xfe\"", 1),
		strings.Replace(valid, `"d"`, `"`+strings.Repeat("d", 10001)+`"`, 1),
		strings.Replace(valid, `2026-11-23T10:00:00Z`, `2026-11-22T10:00:00Z`, 1),
		strings.Replace(valid, `2026-11-23T10:00:00Z`, `2026-11-23`, 1),
		strings.Replace(valid, `2026-11-22T10:00:00Z`, `2026-11-22T10:00:00.123456789+14:00`, 1),
		valid + ` {}`, valid + strings.Repeat(" ", 2<<20)} {
		f.Add([]byte(b))
	}

	s := startFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		before := s.ItemCount(t)
		r := s.Call(t, "POST", "/api/v1/admin/items", e2etest.AdminToken, body)
		after := s.ItemCount(t)
		switch {
		case r.Status >= 500:
			t.Fatalf("body %q: %d %s", body, r.Status, r.Raw)
		case r.Status == 201:
			if after != before+1 {
				t.Fatalf("body %q created a sale; items %d -> %d: %s", body, before, after, r.Raw)
			}
		case r.Status != 400 && r.Status != 413 || r.ErrCode() == "" || after != before:
			t.Fatalf("body %q: %d %s; items %d -> %d", body, r.Status, r.Raw, before, after)
		}
	})
}
