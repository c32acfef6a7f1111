package app_test

// End-to-end fuzz targets: fuzzed requests against one real server (MySQL,
// Redis, workers) per fuzz run. Whatever a client sends, the server answers
// below 500 and moves stock only when it reserves. Run one with
//
//	go test ./internal/app -run '^$' -fuzz '^FuzzPurchaseEndToEnd$' -fuzztime 20s -fuzzminimizetime 0
//
// or all of them with scripts/fuzz.sh. The corpus in testdata/fuzz runs as
// ordinary test cases in go test. Without -fuzzminimizetime 0, Go may kill a
// worker busy shrinking an input before the cleanup drops its database.
//
// The targets run serially: testing.F has no Parallel, each input compares
// the stock before and after its request on the one sale they share, and
// startFuzzServer holds SIGINT, which is process-wide.

import (
	"net/url"
	"os"
	"os/signal"
	"strings"
	"testing"
	"time"
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
func startFuzzServer(f *testing.F) *server {
	f.Helper()
	held := make(chan os.Signal, 1)
	f.Cleanup(func() { signal.Stop(held) }) // runs last
	s := start(f, newClock(t0))
	f.Cleanup(func() { signal.Notify(held, os.Interrupt) }) // runs first
	return s
}

// redisStock is the sale's stock in Redis by the admin stats.
func (s *server) redisStock(tb testing.TB, id int64) int64 {
	tb.Helper()
	r := s.stats(tb, id)
	n, ok := r.body["stock_redis"].(float64)
	if r.status != 200 || !ok {
		tb.Fatalf("stats of sale %d: %d %s", id, r.status, r.raw)
	}
	return int64(n)
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
	sale := s.sale(f, fuzzStock, fuzzLimit, t0, t0.Add(time.Hour))
	tokens := map[string]string{}
	f.Fuzz(func(t *testing.T, body []byte, key string, user uint8) {
		if !sendable(key) {
			t.Skip("net/http does not send this Idempotency-Key")
		}
		before := s.redisStock(t, sale)
		if before == 0 { // a fresh sale, so reserving stays reachable
			sale = s.sale(t, fuzzStock, fuzzLimit, t0, t0.Add(time.Hour))
			before = fuzzStock
		}
		u := "fuzz-" + itoa(int64(user%16)) // few shoppers: repeats, limits and replays happen
		if tokens[u] == "" {
			tokens[u] = mintToken(t, u)
		}
		var hdr []string
		if key != "" {
			hdr = []string{"Idempotency-Key", key}
		}
		r := s.call(t, "POST", "/api/v1/items/"+itoa(sale)+"/purchase", tokens[u], body, hdr...)
		after := s.redisStock(t, sale)
		q, _ := r.body["quantity"].(float64)
		switch {
		case r.status >= 500:
			t.Fatalf("body %q, key %q, user %s: %d %s", body, key, u, r.status, r.raw)
		case r.status == 202 && r.header.Get("Idempotent-Replayed") == "true":
			if after != before {
				t.Fatalf("replay of body %q, key %q moved stock %d -> %d: %s", body, key, before, after, r.raw)
			}
		case r.status == 202:
			if q < 1 || q > fuzzLimit || before-after != int64(q) {
				t.Fatalf("body %q, key %q reserved %v; stock %d -> %d: %s", body, key, q, before, after, r.raw)
			}
		case r.errCode() == "" || after != before:
			t.Fatalf("body %q, key %q: %d %s; stock %d -> %d", body, key, r.status, r.raw, before, after)
		}
	})
}

// itemCount is the number of sales in the shop's list, every page of it.
func (s *server) itemCount(tb testing.TB) int {
	tb.Helper()
	n, path := 0, "/api/v1/items?limit=100"
	for {
		r := s.call(tb, "GET", path, "", nil)
		items, ok := r.body["items"].([]any)
		if r.status != 200 || !ok {
			tb.Fatalf("list items: %d %s", r.status, r.raw)
		}
		n += len(items)
		next, _ := r.body["next_cursor"].(string)
		if next == "" {
			return n
		}
		path = "/api/v1/items?limit=100&cursor=" + url.QueryEscape(next)
	}
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
		before := s.itemCount(t)
		r := s.call(t, "POST", "/api/v1/admin/items", adminToken, body)
		after := s.itemCount(t)
		switch {
		case r.status >= 500:
			t.Fatalf("body %q: %d %s", body, r.status, r.raw)
		case r.status == 201:
			if after != before+1 {
				t.Fatalf("body %q created a sale; items %d -> %d: %s", body, before, after, r.raw)
			}
		case r.status != 400 && r.status != 413 || r.errCode() == "" || after != before:
			t.Fatalf("body %q: %d %s; items %d -> %d", body, r.status, r.raw, before, after)
		}
	})
}
