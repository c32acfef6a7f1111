package ops

import (
	"encoding/csv"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
	"gorm.io/gorm"
)

// TestOrdersCSVCellsAreNotFormulas: shoppers whose ids start with "-" and
// "@" buy variants labelled "=1+1" and "x;=cmd()"; the export quotes every
// text cell and puts a single quote before each place a formula could
// start (the cell's start, or after a ",", ";" or tab inside it, past
// blanks and double quotes; full-width ＝＋－＠ too), so a
// spreadsheet shows them as text instead of running them, whether it
// splits cells on commas or semicolons; plain cells are as they were, and
// numbers stay bare.
func TestOrdersCSVCellsAreNotFormulas(t *testing.T) {
	t.Parallel()
	clk := &e2etest.LiveClock{}
	s := e2etest.StartLive(t, clk)
	id, v := s.PageDrop(t, "Formula drop", 9900, 1, "", clk.Now().Add(-time.Minute),
		e2etest.DropVariant{Label: "=1+1", Stock: 3}, e2etest.DropVariant{Label: "EU 42", Stock: 3},
		e2etest.DropVariant{Label: "x;=cmd()", Stock: 3}, e2etest.DropVariant{Label: "a, +b\t@c", Stock: 3},
		e2etest.DropVariant{Label: `a";"=1`, Stock: 3}, e2etest.DropVariant{Label: "b;\u00a0\uff1d1", Stock: 3})
	bought := map[string][2]string{} // order id: user id and label as exported
	for _, b := range []struct{ user, label, wantUser, wantLabel string }{
		{"-ann", "=1+1", "'-ann", "'=1+1"},
		{"@ben", "EU 42", "'@ben", "EU 42"},
		{"cal", "=1+1", "cal", "'=1+1"},
		{"dan", "x;=cmd()", "dan", "x;'=cmd()"},
		{"eve", "a, +b\t@c", "eve", "a, '+b\t'@c"},
		{"fay", `a";"=1`, "fay", `a";"'=1`},
		{"gus", "b;\u00a0\uff1d1", "gus", "b;\u00a0'\uff1d1"},
	} {
		r := s.PageBuy(t, id, v[b.label], b.user)
		e2etest.Check(t, r, e2etest.Want{Status: 202})
		bought[r.Str("order_id")] = [2]string{b.wantUser, b.wantLabel}
	}
	s.Settle(t, id)

	r := s.Call(t, "GET", "/api/v1/admin/items/"+e2etest.Itoa(id)+"/orders.csv", e2etest.AdminToken, nil)
	if r.Status != 200 {
		t.Fatalf("export: %d %s", r.Status, r.Raw)
	}
	rows, err := csv.NewReader(strings.NewReader(r.Raw)).ReadAll()
	if err != nil || len(rows) != len(bought)+1 {
		t.Fatalf("export: %v, %d rows in\n%s", err, len(rows), r.Raw)
	}
	for _, row := range rows[1:] {
		if w, ok := bought[row[0]]; !ok || row[1] != w[0] || row[3] != w[1] {
			t.Errorf("row %q, want user %q and label %q", row, w[0], w[1])
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(r.Raw, "\n"), "\n")[1:] {
		checkInertLine(t, line)
	}
}

// checkInertLine checks one exported row as the least careful spreadsheet
// reads it, splitting on every ",", ";" and tab and ignoring quotes and
// blanks: no piece starts a formula. The text cells are quoted (their
// quotes doubled), the numbers (variant id, quantity) bare.
func checkInertLine(t *testing.T, line string) {
	t.Helper()
	for _, piece := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' || r == '\t' }) {
		if p := []rune(strings.TrimLeft(piece, " \"\u00a0\u3000")); len(p) > 0 && strings.ContainsRune("=+-@\r\uff1d\uff0b\uff0d\uff20", p[0]) {
			t.Errorf("line %q: piece %q starts a formula", line, piece)
		}
	}
	cells, err := csv.NewReader(strings.NewReader(line)).Read()
	if err != nil {
		t.Fatal(err)
	}
	rest := line
	for i, cell := range cells {
		raw := `"` + strings.ReplaceAll(cell, `"`, `""`) + `"`
		if i == 2 || i == 4 {
			raw = cell
			if _, err := strconv.Atoi(cell); err != nil {
				t.Errorf("line %q: column %d is %q, want a number", line, i, cell)
			}
		}
		if !strings.HasPrefix(rest, raw) {
			t.Errorf("line %q: column %d is not written %s (numbers bare, text quoted)", line, i, raw)
			return
		}
		rest = strings.TrimPrefix(rest[len(raw):], ",")
	}
}

// TestOrdersCSVFailureBreaksTheTransfer: the export fails after its first
// row (the second order's variant id does not fit the int64 it is read
// into). The client gets the rows before the failure and then a broken
// transfer, not the clean end of a file that lacks an order; the server
// logs why.
func TestOrdersCSVFailureBreaksTheTransfer(t *testing.T) {
	t.Parallel()
	var buf e2etest.LockedBuffer
	s := e2etest.StartLogged(t, e2etest.NewClock(e2etest.T0), slog.New(slog.NewJSONHandler(&buf, nil)))
	id := s.Sale(t, 1, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	err := s.Db.Gorm.Transaction(func(tx *gorm.DB) error {
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

	req, _ := http.NewRequest("GET", s.URL("/api/v1/admin/items/"+e2etest.Itoa(id)+"/orders.csv"), nil)
	req.Header.Set("Authorization", "Bearer "+e2etest.AdminToken)
	resp, err := e2etest.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("export answered %d and ended with %v, want 200 and a broken transfer; body:\n%s", resp.StatusCode, err, body)
	}
	if lines := strings.Split(string(body), "\n"); len(lines) < 2 || !strings.HasPrefix(lines[1], `"T1","shopper1",`) {
		t.Fatalf("rows before the failure: %q", body)
	}
	if !testenv.Eventually(5*time.Second, func() bool { return strings.Contains(buf.String(), "orders export cut short") }) {
		t.Fatalf("no log of the failure in:\n%s", buf.String())
	}
}
