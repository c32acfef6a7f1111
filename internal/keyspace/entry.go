package keyspace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Group is the consumer group of the persistence workers on every stream.
const Group = "persisters"

// ErrBadEntry is returned for a stream entry or buyer value that does not
// parse: a bug or foreign data, never a shopper's mistake.
var ErrBadEntry = errors.New("keyspace: malformed entry")

// Entry is one reserved order as lua/reserve.lua appends it to an item's
// stream (fields id, item, variant, user, qty, idem, ts, price).
type Entry struct {
	StreamID       string // Redis stream entry id "ms-seq"
	OrderID        string
	ItemID         int64
	VariantID      int64 // 0 in entries queued before sales had variants
	UserID         string
	Quantity       int
	IdempotencyKey string
	CreatedAt      time.Time
	// UnitPriceCents is the unit price the script took the order at; nil in
	// entries queued by a server from before prices travelled with the
	// reservation (or for a sale whose meta Redis holds without prices).
	UnitPriceCents *int64
}

// ParseEntry decodes a stream entry's fields.
func ParseEntry(streamID string, values map[string]any) (Entry, error) {
	str := func(k string) string { s, _ := values[k].(string); return s }
	e := Entry{StreamID: streamID, OrderID: str("id"), UserID: str("user"), IdempotencyKey: str("idem")}
	item, err1 := strconv.ParseInt(str("item"), 10, 64)
	qty, err2 := strconv.Atoi(str("qty"))
	ts, err3 := strconv.ParseInt(str("ts"), 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil || e.OrderID == "" || e.UserID == "" {
		return Entry{}, fmt.Errorf("%w: stream entry %s: %v", ErrBadEntry, streamID, values)
	}
	e.ItemID, e.Quantity, e.CreatedAt = item, qty, time.UnixMilli(ts).UTC()
	if v := str("variant"); v != "" {
		if e.VariantID, err1 = strconv.ParseInt(v, 10, 64); err1 != nil {
			return Entry{}, fmt.Errorf("%w: stream entry %s: %v", ErrBadEntry, streamID, values)
		}
	}
	if p := str("price"); p != "" {
		if e.UnitPriceCents, err1 = parsePrice(p); err1 != nil {
			return Entry{}, fmt.Errorf("%w: stream entry %s: %v", ErrBadEntry, streamID, values)
		}
	}
	return e, nil
}

// parsePrice reads a unit price in cents, which is never negative.
func parsePrice(s string) (*int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%w: price %q", ErrBadEntry, s)
	}
	return &n, nil
}

// StreamPos splits a stream id "ms-seq" into its two numbers.
func StreamPos(id string) (ms, seq uint64, err error) {
	a, b, ok := strings.Cut(id, "-")
	if !ok {
		return 0, 0, fmt.Errorf("%w: stream id %q", ErrBadEntry, id)
	}
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("%w: stream id %q", ErrBadEntry, id)
	}
	return ms, seq, nil
}

// Buyer is the value of an item's buyers hash:
// "orderID:quantity:createdMs:variantID:unitPriceCents".
type Buyer struct {
	OrderID   string
	Quantity  int
	CreatedAt time.Time
	VariantID int64 // 0 in values stored before sales had variants
	// UnitPriceCents is the unit price the order was taken at, so a replay
	// answers with it; nil in values stored before prices were kept there.
	UnitPriceCents *int64
}

// String encodes b as the scripts store it.
func (b Buyer) String() string {
	s := b.OrderID + ":" + strconv.Itoa(b.Quantity) + ":" + strconv.FormatInt(b.CreatedAt.UnixMilli(), 10) +
		":" + strconv.FormatInt(b.VariantID, 10)
	if b.UnitPriceCents != nil {
		s += ":" + strconv.FormatInt(*b.UnitPriceCents, 10)
	}
	return s
}

// ParseBuyer decodes a buyers hash value, in any of its forms: without a
// variant, without a price, or with both.
func ParseBuyer(v string) (Buyer, error) {
	parts := strings.Split(v, ":")
	if len(parts) < 3 || len(parts) > 5 {
		return Buyer{}, fmt.Errorf("%w: buyer %q", ErrBadEntry, v)
	}
	qty, err1 := strconv.Atoi(parts[1])
	ms, err2 := strconv.ParseInt(parts[2], 10, 64)
	var variant int64
	var price *int64
	var err3, err4 error
	if len(parts) >= 4 {
		variant, err3 = strconv.ParseInt(parts[3], 10, 64)
	}
	if len(parts) == 5 {
		price, err4 = parsePrice(parts[4])
	}
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return Buyer{}, fmt.Errorf("%w: buyer %q", ErrBadEntry, v)
	}
	return Buyer{OrderID: parts[0], Quantity: qty, CreatedAt: time.UnixMilli(ms).UTC(), VariantID: variant, UnitPriceCents: price}, nil
}
