package app_test

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"
)

// TestOrdersCSVCellsAreNotFormulas: shoppers whose ids start with "-" and
// "@" buy a variant labelled "=1+1"; the export carries those cells with a
// leading quote, so a spreadsheet shows them as text instead of running
// them, and leaves the plain cells as they are.
func TestOrdersCSVCellsAreNotFormulas(t *testing.T) {
	t.Parallel()
	clk := &liveClock{}
	s := startLive(t, clk)
	id, v := s.pageDrop(t, "Formula drop", 9900, 1, "", clk.Now().Add(-time.Minute),
		dropVariant{Label: "=1+1", Stock: 3}, dropVariant{Label: "EU 42", Stock: 3})
	bought := map[string][2]string{} // order id: user id and label as exported
	for _, b := range []struct{ user, label, wantUser, wantLabel string }{
		{"-ann", "=1+1", "'-ann", "'=1+1"},
		{"@ben", "EU 42", "'@ben", "EU 42"},
		{"cal", "=1+1", "cal", "'=1+1"},
	} {
		r := s.pageBuy(t, id, v[b.label], b.user)
		check(t, r, want{202, "", ""})
		bought[r.str("order_id")] = [2]string{b.wantUser, b.wantLabel}
	}
	s.settle(t, id)

	r := s.call(t, "GET", "/api/v1/admin/items/"+itoa(id)+"/orders.csv", adminToken, nil)
	if r.status != 200 {
		t.Fatalf("export: %d %s", r.status, r.raw)
	}
	rows, err := csv.NewReader(strings.NewReader(r.raw)).ReadAll()
	if err != nil || len(rows) != len(bought)+1 {
		t.Fatalf("export: %v, %d rows in\n%s", err, len(rows), r.raw)
	}
	for _, row := range rows[1:] {
		if w, ok := bought[row[0]]; !ok || row[1] != w[0] || row[3] != w[1] {
			t.Errorf("row %q, want user %q and label %q", row, w[0], w[1])
		}
	}
}
