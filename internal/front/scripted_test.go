package front_test

import (
	"testing"

	"github.com/seckill/seckill/internal/front"
	"github.com/seckill/seckill/internal/stock"
)

// The reserve script takes over a sale's rate limits once Redis has
// answered a purchase of it, a refusal included; a made-up id never gets
// there.
func TestScriptLimited(t *testing.T) {
	t.Parallel()
	sales := newSale(t, 1)
	f := front.New(sales, sales, nil, nil)
	if f.ScriptLimited(1) {
		t.Fatal("script-limited before any purchase")
	}
	reserve(t, f, req("a", 1), nil)
	reserve(t, f, req("b", 1), stock.ErrSoldOut)
	if !f.ScriptLimited(1) {
		t.Fatal("not script-limited after Redis answered")
	}
	if f.ScriptLimited(2) {
		t.Fatal("a sale never asked for is script-limited")
	}
}
