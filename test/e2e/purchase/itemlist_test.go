package purchase

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	stdslices "slices"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// listSale is what a test expects of one sale in the list.
type listSale struct {
	id           int64
	starts, ends time.Time
}

// fillShop creates perState sales ended, live and upcoming at t0 straight in
// MySQL (what the list reads; Redis knows none of them, so their stock is
// MySQL's), ending and starting a minute apart, in pairs sharing their keys.
func fillShop(t *testing.T, s *e2etest.Server, perState int) []listSale {
	t.Helper()
	store, ctx := catalog.NewStore(s.Db.Gorm), context.Background()
	var out []listSale
	for i := range 3 * perState {
		k := time.Duration(i%perState-i%2) * time.Minute
		starts, ends := e2etest.T0.Add(-time.Hour-k), e2etest.T0.Add(-k) // ended; the first pair ends at t0 exactly
		switch i / perState {
		case 1: // live; some opened days ago, before most of the ended ones
			starts, ends = e2etest.T0.Add(-k-time.Duration(i%3)*48*time.Hour), e2etest.T0.Add(time.Minute+k)
		case 2:
			starts, ends = e2etest.T0.Add(time.Minute+k), e2etest.T0.Add(2*time.Hour+k)
		}
		it, err := store.Create(ctx, catalog.Item{Name: fmt.Sprintf("sale %d", i), StockTotal: 3, PerUserLimit: 1,
			StartsAt: starts, EndsAt: ends})
		if err != nil {
			t.Fatalf("create sale: %v", err)
		}
		out = append(out, listSale{it.ID, it.StartsAt, it.EndsAt})
	}
	return out
}

// listOrder is the promised order at t0: open sales by starts_at and id,
// then ended ones by ends_at and id, both descending.
func listOrder(sales []listSale) []int64 {
	key := func(a, b listSale) (time.Time, time.Time) {
		if a.ends.After(e2etest.T0) {
			return a.starts, b.starts
		}
		return b.ends, a.ends
	}
	sales = stdslices.Clone(sales)
	stdslices.SortFunc(sales, func(a, b listSale) int {
		if ao, bo := a.ends.After(e2etest.T0), b.ends.After(e2etest.T0); ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		ka, kb := key(a, b)
		if c := ka.Compare(kb); c != 0 {
			return c
		}
		if a.ends.After(e2etest.T0) {
			return int(a.id - b.id)
		}
		return int(b.id - a.id)
	})
	ids := make([]int64, len(sales))
	for i, s := range sales {
		ids[i] = s.id
	}
	return ids
}

// walkList follows next_cursor from the first page at limit ("" for the
// default) and returns the sales shown, in order, by id with their status.
// between runs after each page.
func walkList(t *testing.T, s *e2etest.Server, limit string, between func(page int)) (ids []int64, status map[int64]string) {
	t.Helper()
	status = map[int64]string{}
	q := url.Values{}
	if limit != "" {
		q.Set("limit", limit)
	}
	for page := 0; ; page++ {
		r := s.Call(t, "GET", "/api/v1/items?"+q.Encode(), "", nil)
		if r.Status != 200 || r.Str("server_time") == "" {
			t.Fatalf("page %d: %d %s", page, r.Status, r.Raw)
		}
		for _, v := range r.Body["items"].([]any) {
			it := v.(map[string]any)
			id := int64(it["id"].(float64))
			ids, status[id] = append(ids, id), it["status"].(string)
		}
		next, _ := r.Body["next_cursor"].(string)
		if next == "" {
			if v, ok := r.Body["next_cursor"]; !ok || v != nil {
				t.Fatalf("last page: next_cursor %v, want null", v)
			}
			return ids, status
		}
		if page > 400 {
			t.Fatal("no last page")
		}
		if between != nil {
			between(page)
		}
		q.Set("cursor", next)
	}
}

// TestItemsListPages: 250 sales, ended, live (one sold out) and upcoming,
// come back each exactly once in the promised order, with their statuses,
// at the default page size and others. A walk during which the clock moves
// past the end of live sales, some already shown and some not, still shows
// each sale once, in the same order: pages keep the split of the first.
func TestItemsListPages(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk)
	sales := fillShop(t, s, 83)
	soldOut := s.Sale(t, 1, 1, e2etest.T0.Add(-time.Minute), e2etest.T0.Add(time.Hour))
	e2etest.BuyConfirmed(t, s, soldOut, "ana")
	sales = append(sales, listSale{soldOut, e2etest.T0.Add(-time.Minute), e2etest.T0.Add(time.Hour)})
	want := listOrder(sales)

	wantStatus := map[int64]string{soldOut: "sold_out"}
	for _, sl := range sales[:len(sales)-1] {
		wantStatus[sl.id] = map[bool]string{true: "live", false: "ended"}[sl.ends.After(e2etest.T0)]
		if sl.starts.After(e2etest.T0) {
			wantStatus[sl.id] = "upcoming"
		}
	}
	for _, limit := range []string{"", "7", "100"} {
		ids, status := walkList(t, s, limit, nil)
		if !stdslices.Equal(ids, want) {
			t.Fatalf("limit %q: %d sales\n%v\nwant %d\n%v", limit, len(ids), ids, len(want), want)
		}
		for id, st := range wantStatus {
			if status[id] != st {
				t.Fatalf("limit %q: sale %d is %q, want %q", limit, id, status[id], st)
			}
		}
	}

	// Between the first page and the second, 40 minutes pass: the live
	// sales ending in them (the first page showed some) end.
	ids, status := walkList(t, s, "20", func(page int) {
		if page == 0 {
			clk.Add(40 * time.Minute)
		}
	})
	if !stdslices.Equal(ids, want) {
		t.Fatalf("with the clock moving: %d sales\n%v\nwant %d\n%v", len(ids), ids, len(want), want)
	}
	ended := 0
	for _, id := range want[:84] { // the open group at t0
		if status[id] == "ended" {
			ended++
		}
	}
	if ended == 0 {
		t.Fatal("no sale of the open group shows ended after the clock passed their end: statuses must follow the clock")
	}
}

// TestItemsListRefusesBadPaging: a limit that is not a whole number from 1
// to 100, or a cursor the list did not give, is refused with 400 and its
// code, and the list still answers as before.
func TestItemsListRefusesBadPaging(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0))
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	b64 := base64.RawURLEncoding.EncodeToString
	cases := []struct{ query, code, field string }{
		{"limit=0", "invalid_limit", "limit"},
		{"limit=-1", "invalid_limit", "limit"},
		{"limit=101", "invalid_limit", "limit"},
		{"limit=abc", "invalid_limit", "limit"},
		{"limit=2.5", "invalid_limit", "limit"},
		{"limit=", "invalid_limit", "limit"},
		{"limit=99999999999999999999", "invalid_limit", "limit"},
		{"cursor=", "invalid_cursor", "cursor"},
		{"cursor=%21%21", "invalid_cursor", "cursor"},
		{"cursor=" + b64([]byte("x.1.2.3")), "invalid_cursor", "cursor"},
		{"cursor=" + b64([]byte("o.1.2.0")), "invalid_cursor", "cursor"},
		{"cursor=" + b64([]byte("o.1.2")), "invalid_cursor", "cursor"},
		{"cursor=" + b64([]byte("e.1.two.3")), "invalid_cursor", "cursor"},
		{"cursor=" + strings.Repeat("A", 200), "invalid_cursor", "cursor"},
		{"limit=5&cursor=" + b64([]byte("o.1.2.-4")), "invalid_cursor", "cursor"},
	}
	for _, c := range cases {
		r := s.Call(t, "GET", "/api/v1/items?"+c.query, "", nil)
		e2etest.Check(t, r, e2etest.Want{Status: 400, Code: c.code, Field: c.field})
	}
	r := s.Call(t, "GET", "/api/v1/items?limit=1", "", nil)
	items := r.Body["items"].([]any)
	if r.Status != 200 || len(items) != 1 || int64(items[0].(map[string]any)["id"].(float64)) != id || r.Body["next_cursor"] != nil {
		t.Fatalf("the list after refusals: %d %s", r.Status, r.Raw)
	}
}
