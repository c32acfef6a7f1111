package catalog

// The rules of a whole sale, and what a draw adds to them; Input.NewItem
// and the update handler check with them before anything is stored.

// draw fills in the draw fields of a new sale. A draw's purchases open at
// the close of its entries unless starts_at says later, and each shopper
// may hold one unit.
func (in Input) draw(it *Item) error {
	it.Mode = ModeFirstCome
	if in.Mode != nil {
		it.Mode = *in.Mode
	}
	switch it.Mode {
	case ModeFirstCome:
		if in.EntriesOpenAt != nil || in.EntriesCloseAt != nil || in.PurchaseWindowSeconds != nil {
			return fieldErr("mode", `entries_open_at, entries_close_at and purchase_window_seconds are a draw's: set "mode": "draw"`)
		}
		return nil
	case ModeDraw:
	default:
		return fieldErr("mode", `mode must be "first_come" or "draw"`)
	}
	var err error
	if it.EntriesOpenAt, err = parseTime("entries_open_at", in.EntriesOpenAt); err != nil {
		return err
	}
	if it.EntriesCloseAt, err = parseTime("entries_close_at", in.EntriesCloseAt); err != nil {
		return err
	}
	switch {
	case it.EntriesOpenAt == nil:
		return fieldErr("entries_open_at", "a draw needs entries_open_at")
	case it.EntriesCloseAt == nil:
		return fieldErr("entries_close_at", "a draw needs entries_close_at")
	case !it.EntriesCloseAt.After(*it.EntriesOpenAt):
		return fieldErr("entries_close_at", "entries_close_at must be after entries_open_at")
	}
	window := int(DefaultPurchaseWindow.Seconds())
	if in.PurchaseWindowSeconds != nil {
		window = *in.PurchaseWindowSeconds
	}
	if window < 10 || window > 7*24*3600 {
		return fieldErr("purchase_window_seconds", "purchase_window_seconds must be from 10 to 604800 (a week)")
	}
	it.PurchaseWindowSeconds = &window
	if in.StartsAt == nil {
		it.StartsAt = *it.EntriesCloseAt
	}
	if in.PerUserLimit != nil && *in.PerUserLimit != 1 {
		return fieldErr("per_user_limit", "a draw gives each shopper one unit: per_user_limit is 1")
	}
	it.PerUserLimit = 1
	return nil
}

// Check checks a whole sale, as created or as it would be after an update.
// It returns a *FieldError naming the first field that breaks a rule.
func (it Item) Check() error {
	switch {
	case len(it.Name) == 0 || len(it.Name) > 200:
		return fieldErr("name", "name is required, at most 200 characters")
	case len(it.Description) > 10000:
		return fieldErr("description", "description is at most 10000 characters")
	case !ValidImageURL(it.ImageURL):
		return fieldErr("image_url", ImageURLRule)
	case it.PriceCents < 0 || it.PriceCents > 1e12:
		return fieldErr("price_cents", "price_cents must be a whole number from 0 to 10^12")
	case it.StockTotal < 1 || it.StockTotal > 10_000_000:
		return fieldErr("stock_total", "stock_total must be from 1 to 10000000")
	case it.PerUserLimit < 1 || it.PerUserLimit > it.StockTotal:
		return fieldErr("per_user_limit", "per_user_limit must be from 1 to stock_total")
	case it.RoomRate < 0 || it.RoomRate > 100_000:
		return fieldErr("room_rate", "room_rate must be from 0 (no waiting room) to 100000 shoppers per second")
	case it.StartsAt.IsZero():
		return fieldErr("starts_at", "starts_at is required")
	case it.EndsAt.IsZero():
		return fieldErr("ends_at", "ends_at is required")
	case !it.EndsAt.After(it.StartsAt):
		return fieldErr("ends_at", "ends_at must be after starts_at")
	}
	return it.checkDraw()
}

// checkDraw checks what a draw adds to Check.
func (it Item) checkDraw() error {
	switch {
	case !it.IsDraw():
		return nil
	case it.RoomRate != 0:
		return fieldErr("room_rate", "a draw has no waiting room: its winners are drawn, not queued")
	case it.PerUserLimit != 1:
		return fieldErr("per_user_limit", "a draw gives each shopper one unit: per_user_limit is 1")
	case it.StartsAt.Before(*it.EntriesCloseAt):
		return fieldErr("starts_at", "a draw's purchases start at entries_close_at or later")
	}
	return nil
}
