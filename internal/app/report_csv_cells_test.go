package app_test

import (
	"encoding/csv"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/testenv"
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

// TestOrdersCSVFailureBreaksTheTransfer: the export fails after its first
// row (the second order's variant id does not fit the int64 it is read
// into). The client gets the rows before the failure and then a broken
// transfer, not the clean end of a file that lacks an order; the server
// logs why.
func TestOrdersCSVFailureBreaksTheTransfer(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	s := startLogged(t, newClock(t0), slog.New(slog.NewJSONHandler(&buf, nil)))
	id := s.sale(t, 1, 1, t0, t0.Add(time.Hour))
	err := s.db.Gorm.Transaction(func(tx *gorm.DB) error {
		// The second order names a variant that cannot exist.
		if err := tx.Exec("SET SESSION foreign_key_checks = 0").Error; err != nil {
			return err
		}
		return tx.Exec(`INSERT INTO orders (id, item_id, variant_id, user_id, quantity, status, created_at) VALUES
			('T1', ?, (SELECT id FROM variants WHERE item_id = ?), 'shopper1', 1, 'confirmed', '2026-11-22 10:00:00.000'),
			('T2', ?, 18446744073709551615, 'shopper2', 1, 'confirmed', '2026-11-22 10:00:00.000')`, id, id, id).Error
	})
	if err != nil {
		t.Fatal(err)
	}

	req, _ := http.NewRequest("GET", s.url("/api/v1/admin/items/"+itoa(id)+"/orders.csv"), nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("export answered %d and ended with %v, want 200 and a broken transfer; body:\n%s", resp.StatusCode, err, body)
	}
	if lines := strings.Split(string(body), "\n"); len(lines) < 2 || !strings.HasPrefix(lines[1], "T1,shopper1,") {
		t.Fatalf("rows before the failure: %q", body)
	}
	if !testenv.Eventually(5*time.Second, func() bool { return strings.Contains(buf.String(), "orders export cut short") }) {
		t.Fatalf("no log of the failure in:\n%s", buf.String())
	}
}
