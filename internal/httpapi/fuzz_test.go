package httpapi

// Fuzz targets for request decoding and validation. Whatever a client sends,
// the answer is one the API gives on purpose (400 or 413, 404 for a bad path
// id), never a panic or a 500. Run one with
//
//	go test ./internal/httpapi -run '^$' -fuzz '^FuzzPurchaseBody$' -fuzztime 20s
//
// or all of them with scripts/fuzz.sh. The corpus in testdata/fuzz runs as
// ordinary test cases in go test.

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/token"
)

// bodyLimit is the limit New installs with limitBody.
const bodyLimit = 1 << 20

// fuzzContext is a gin context for a POST of body with the headers hdr
// (name, value, ...), behind the body limit the server installs.
func fuzzContext(body []byte, hdr ...string) (*gin.Context, *httptest.ResponseRecorder) {
	rec := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(rec)
	c.Request = httptest.NewRequest(http.MethodPost, "/fuzz", bytes.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		c.Request.Header.Set(hdr[i], hdr[i+1])
	}
	limitBody(bodyLimit)(c)
	return c, rec
}

// wantClientError fails unless err is an *Error a client is meant to get for
// body: 413 exactly when body is over the limit, else 400, with a code and a
// message, and answered as such by replier.fail.
func wantClientError(tb testing.TB, err error, body []byte) *Error {
	tb.Helper()
	ae, ok := err.(*Error)
	switch {
	case !ok:
		tb.Fatalf("error %T (%v) is not an *Error: it would be answered 500", err, err)
	case ae.Code == "" || ae.Message == "":
		tb.Fatalf("error %+v lacks a code or a message", ae)
	case len(body) > bodyLimit && ae.Status != http.StatusRequestEntityTooLarge:
		tb.Fatalf("%d-byte body answered %+v, want 413", len(body), ae)
	case len(body) <= bodyLimit && ae.Status != http.StatusBadRequest:
		tb.Fatalf("error %+v, want status 400", ae)
	}
	wantAnswered(tb, ae)
	return ae
}

// wantAnswered fails unless fail sends ae as its status and JSON body.
func wantAnswered(tb testing.TB, ae *Error) {
	tb.Helper()
	c, rec := fuzzContext(nil)
	replier{log: slog.New(slog.DiscardHandler)}.fail(c, ae)
	var got struct{ Error Error }
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != ae.Status ||
		got.Error.Code != ae.Code || got.Error.Message != ae.Message || got.Error.Field != ae.Field {
		tb.Fatalf("fail(%+v) answered %d %q", ae, rec.Code, rec.Body)
	}
}

// wantOneJSONValue fails unless an accepted body is blank or one JSON value.
func wantOneJSONValue(tb testing.TB, body []byte) {
	tb.Helper()
	if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
		tb.Fatalf("accepted a body that is not one JSON value: %q", body)
	}
}

// Bodies every decode target starts from.
var seedBodies = []string{
	``, ` `, `null`, `{}`, `[]`, `[1]`, `1`, `"x"`, `true`, `{`, `}`, `{"a":1}`, `{} {}`, `{} x`,
	`{"quantity":null}`, `{"quantity":{}}`, `{"quantity":[1]}`, `{"quantity":{"a":{"b":[1]}}}`,
	"\xff\xfe{}", "{\"quantity\":\"\xff\"}", "\x00", "\ufeff{}", `{"\u0000":1}`,
}

func FuzzPurchaseBody(f *testing.F) {
	for _, b := range slices.Concat(seedBodies, []string{
		`{"quantity":1}`, `{"quantity":2}`, `{"quantity":0}`, `{"quantity":-1}`, `{"quantity":1.5}`, `{"quantity":1e2}`,
		`{"quantity":"1"}`, `{"quantity":true}`, `{"quantity":99999999999999999999}`, `{"quantity":9223372036854775807}`,
		`{"quantity":-9223372036854775808}`, `{"quantity":1,"quantity":2}`, `{"quantity":1,"price_cents":1}`,
		`{"Quantity":1}`, `{"QUANTITY":1}`, `{"quantity":1} {"quantity":2}`, `{"quantity":`}) {
		f.Add([]byte(b), "", "1")
	}
	for _, k := range []string{"k-1", "has space", strings.Repeat("k", 128), strings.Repeat("k", 129), "\x7f", "é", "a\nb"} {
		f.Add([]byte(`{"quantity":1}`), k, "1")
	}
	for _, id := range []string{"", "0", "-1", "+1", "abc", "1e3", "0x10", "9223372036854775807", "9223372036854775808", " 1"} {
		f.Add([]byte(`{"quantity":1}`), "k", id)
	}
	f.Add(append([]byte(`{"quantity":1,"x":"`), bytes.Repeat([]byte("a"), 2<<20)...), "k", "1")

	s := shopAPI{saleView: saleView{now: time.Now}, newOrderID: func() string { return "X" }}
	f.Fuzz(func(t *testing.T, body []byte, key, id string) {
		c, _ := fuzzContext(body, "Idempotency-Key", key)
		c.Params = gin.Params{{Key: "id", Value: id}}
		c.Set(userKey, "u")
		req, err := s.purchaseRequest(c)
		itemID, perr := strconv.ParseInt(id, 10, 64)
		if perr != nil || itemID <= 0 {
			if err != errItemNotFound {
				t.Fatalf("path id %q answered %v, want item_not_found", id, err)
			}
			return
		}
		if err != nil {
			// A bad quantity value is invalid_quantity; a quantity key given
			// twice is a malformed request, invalid_request.
			ae := wantClientError(t, err, body)
			if ae.Field == "quantity" && ae != errInvalidQuantity && !strings.HasSuffix(ae.Message, "given twice") {
				t.Fatalf("a bad quantity answered %+v, want invalid_quantity", ae)
			}
			return
		}
		wantOneJSONValue(t, body)
		if req.ItemID != itemID || req.UserID != "u" || req.OrderID != "X" || req.Quantity < 1 ||
			req.IdempotencyKey != key || !validIdempotencyKey(key) {
			t.Fatalf("body %q, key %q, id %q accepted as %+v", body, key, id, req)
		}
	})
}

// saleOnFile is a valid sale as an update finds it.
var saleOnFile = catalog.Item{ID: 7, Name: "Lamp", PriceCents: 1999, StockTotal: 100, Stock: 100, PerUserLimit: 1,
	StartsAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), EndsAt: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}

func FuzzItemBody(f *testing.F) {
	valid := `{"name":"Lamp","description":"d","price_cents":1999,"stock_total":100,"per_user_limit":1,` +
		`"starts_at":"2026-11-22T10:00:00Z","ends_at":"2026-11-23T10:00:00Z"}`
	for _, b := range slices.Concat(seedBodies, []string{valid,
		`{"name":"Lamp"}`, `{"stock_total":5}`, `{"stock_total":0}`, `{"stock_total":-1}`, `{"per_user_limit":101}`,
		`{"price_cents":1e12}`, `{"price_cents":1000000000001}`, `{"price_cents":9223372036854775808}`,
		`{"stock_total":2147483648}`, `{"stock_total":1.0}`, `{"stock_total":"5"}`, `{"name":5}`, `{"name":null}`,
		`{"name":""}`, `{"name":"` + strings.Repeat("é", 200) + `"}`, `{"name":"` + strings.Repeat("n", 201) + `"}`,
		`{"name":"\ud800"}`, "{\"name\":\"\xff\xfe\"}", `{"name":"😀"}`, `{"description":{"a":[1,{"b":null}]}}`,
		`{"starts_at":"2026-11-22"}`, `{"starts_at":"2026-11-22T10:00:00+14:00"}`, `{"starts_at":5}`,
		`{"starts_at":"2026-11-22T10:00:00.123456789Z"}`, `{"ends_at":"2026-11-22T09:59:59.9999Z"}`,
		`{"starts_at":"0001-01-01T00:00:00Z"}`, `{"ends_at":"9999-12-31T23:59:59.999Z"}`,
		`{"name":"a","name":"b"}`, `{"colour":"red"}`, valid + ` {}`}) {
		f.Add([]byte(b))
	}
	f.Add(append([]byte(`{"name":"`), bytes.Repeat([]byte("n"), 2<<20)...))

	f.Fuzz(func(t *testing.T, body []byte) {
		c, _ := fuzzContext(body)
		p, err := readPatch(c)
		if err != nil {
			wantClientError(t, err, body)
			return
		}
		wantOneJSONValue(t, body)
		for _, base := range []catalog.Item{{PerUserLimit: 1}, saleOnFile} { // create, update
			it := p.Apply(base)
			err := invalidField("", it.Check()) // as updateItem answers it
			if err == nil {
				wantStorable(t, body, it)
				continue
			}
			if ae, ok := err.(*Error); !ok || ae.Status != http.StatusBadRequest || ae.Field == "" || ae.Message == "" {
				t.Fatalf("validate(%q) = %v, want a 400 naming a field", body, err)
			}
			wantAnswered(t, err.(*Error))
		}
	})
}

// wantStorable fails unless MySQL can hold a valid item's times: the driver
// refuses years outside 1-9999, and the create or update would answer 500.
func wantStorable(tb testing.TB, body []byte, it catalog.Item) {
	tb.Helper()
	for _, at := range []time.Time{it.StartsAt, it.EndsAt} {
		if y := at.Year(); y < 1 || y > 9999 {
			tb.Fatalf("validate passed %q with a time in year %d, which MySQL cannot store", body, y)
		}
	}
}

func FuzzSessionBody(f *testing.F) {
	for _, b := range slices.Concat(seedBodies, []string{
		`{"user_id":"alice"}`, `{"user_id":"a.b@c-d_e"}`, `{"user_id":""}`, `{"user_id":null}`, `{"user_id":5}`,
		`{"user_id":"has space"}`, `{"user_id":"` + strings.Repeat("u", 64) + `"}`, `{"user_id":"` + strings.Repeat("u", 65) + `"}`,
		`{"user_id":"alice\n"}`, `{"user_id":"ålice"}`, "{\"user_id\":\"\xff\"}", `{"user_id":"a","user_id":"b"}`,
		`{"user_id":"alice","admin":true}`, `{"user_id":["alice"]}`}) {
		f.Add([]byte(b))
	}
	f.Add(append([]byte(`{"user_id":"`), bytes.Repeat([]byte("u"), 2<<20)...))

	s := sessionAPI{replier: replier{log: slog.New(slog.DiscardHandler)}, demoLogin: true,
		tokens: token.NewSession(strings.Repeat("s", 32), time.Hour, time.Now)}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, rec := fuzzContext(body)
		s.login(c)
		var got struct {
			Token  string `json:"token"`
			UserID string `json:"user_id"`
			Error  *Error `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("login answered %d with a body that is not JSON: %q", rec.Code, rec.Body)
		}
		if rec.Code != http.StatusOK {
			if got.Error == nil {
				t.Fatalf("login answered %d without an error: %q", rec.Code, rec.Body)
			}
			got.Error.Status = rec.Code
			wantClientError(t, got.Error, body)
			return
		}
		wantOneJSONValue(t, body)
		if user, err := s.tokens.Verify(got.Token); err != nil || user != got.UserID || !token.ValidUser(user) {
			t.Fatalf("login of %q issued a token for %q (%v), answered user %q", body, user, err, got.UserID)
		}
	})
}
