package sale

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/seckill/seckill/internal/audit"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/order"
)

// SetAuditor has every admin change made here recorded with r (an
// audit.Store); nil, the default, records nothing.
func (s *Service) SetAuditor(r audit.Recorder) { s.auditor = r }

// record writes one audit entry for a change that has been made; a failure
// is logged loudly and never undoes the change (audit.Write).
func (s *Service) record(ctx context.Context, action string, itemID int64, before, after any) {
	audit.Write(ctx, s.auditor, s.log, action, itemID, before, after)
}

// fields are the values of a sale or a variant an audit entry shows, by
// the API's names.
type fields map[string]any

// saleFields are the settings of a sale an admin sets. Available stock is
// left out: purchases move it, not the admin.
func saleFields(it catalog.Item) fields {
	return fields{"name": it.Name, "description": it.Description, "image_url": it.ImageURL,
		"price_cents": it.PriceCents, "stock_total": it.StockTotal, "per_user_limit": it.PerUserLimit,
		"room_rate": it.RoomRate, "starts_at": it.StartsAt.UTC(), "ends_at": it.EndsAt.UTC(), "paused": it.Paused}
}

// createdFields are a new sale's settings with its variants.
func createdFields(it catalog.Item) fields {
	f := saleFields(it)
	vs := make([]fields, len(it.Variants))
	for i, v := range it.Variants {
		vs[i] = variantFields(v)
	}
	f["variants"] = vs
	return f
}

func variantFields(v catalog.Variant) fields {
	return fields{"variant_id": v.ID, "label": v.Label, "stock_total": v.StockTotal, "price_cents": v.PriceCents,
		"per_user_limit": v.PerUserLimit, "image_url": v.ImageURL}
}

// orderFields are what an audit entry shows of an order.
func orderFields(o order.Order) fields {
	f := fields{"order_id": o.ID, "user_id": o.UserID, "variant_id": o.VariantID, "quantity": o.Quantity, "status": o.Status}
	if o.Status == order.StatusCancelled {
		f["reason"] = order.EventReason(o.CancelReason)
	}
	return f
}

// changed keeps the fields whose values differ between before and after,
// compared as the JSON the log stores.
func changed(before, after fields) (fields, fields) {
	b, a := fields{}, fields{}
	for k, old := range before {
		x, _ := json.Marshal(old)
		y, _ := json.Marshal(after[k])
		if !bytes.Equal(x, y) {
			b[k], a[k] = old, after[k]
		}
	}
	return b, a
}
