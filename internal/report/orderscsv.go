package report

import (
	"io"
	"strconv"
	"time"

	"github.com/seckill/seckill/internal/order"
)

var ordersHeader = []string{"order_id", "user_id", "variant_id", "variant_label", "quantity", "status",
	"cancel_reason", "created_at", "updated_at", "paid_at", "cancelled_at"}

// ordersNumeric marks the columns of ordersHeader that hold numbers:
// variant_id and quantity stay numbers in a spreadsheet; every other cell
// is text.
var ordersNumeric = []bool{2: true, 4: true}

// OrdersCSV writes a sale's orders export, one order a row, every text cell
// made inert for spreadsheets (csvText). It buffers: the caller flushes
// after each page it reads, so memory holds one page whatever the sale's
// size.
type OrdersCSV struct {
	rows *csvRows
	rec  []string
}

// NewOrdersCSV returns the export writing to w, its header already
// buffered.
func NewOrdersCSV(w io.Writer) *OrdersCSV {
	o := &OrdersCSV{rows: newCSVRows(w, ordersNumeric), rec: make([]string, len(ordersHeader))}
	o.rows.header(ordersHeader)
	return o
}

// Write adds ord's row; it returns w's error, if the buffer had to go out.
func (o *OrdersCSV) Write(ord *order.Order) error { return o.rows.row(ordersRecord(o.rec, ord)) }

// Flush sends what is buffered, returning w's error.
func (o *OrdersCSV) Flush() error { return o.rows.flush() }

func ordersRecord(rec []string, o *order.Order) []string {
	rec[0], rec[1], rec[2], rec[3] = o.ID, o.UserID, strconv.FormatInt(o.VariantID, 10), o.VariantLabel
	rec[4], rec[5], rec[6] = strconv.Itoa(o.Quantity), o.Status, o.CancelReason
	rec[7], rec[8], rec[9], rec[10] = csvTime(o.CreatedAt), csvTime(o.UpdatedAt), csvTime(o.PaidAt), csvTime(o.CancelledAt)
	return rec
}

// csvTime is RFC 3339 in UTC with milliseconds, or empty for no time.
func csvTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
