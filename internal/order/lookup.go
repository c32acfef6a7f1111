package order

import (
	"cmp"
	"context"
	"errors"
	"sort"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/keyspace"
)

// Persisted reads the orders MySQL holds (Store).
type Persisted interface {
	Get(ctx context.Context, id string) (Order, error)
	ListByUser(ctx context.Context, userID string) ([]Order, error)
}

// Reserved finds reservations still in Redis, not yet in MySQL
// (stock.Store).
type Reserved interface {
	WarmItems(ctx context.Context) ([]int64, error)
	BuyerOf(ctx context.Context, itemIDs []int64, userID string) (map[int64]keyspace.Buyer, error)
}

// Sales names the variants of orders (catalog.Store).
type Sales interface {
	Get(ctx context.Context, id int64) (catalog.Item, error)
}

// Lookup finds a shopper's orders where they are: in MySQL once
// persisted, in Redis while still pending there.
type Lookup struct {
	persisted Persisted
	reserved  Reserved
	sales     Sales
}

// NewLookup reads persisted orders from p, pending ones from r, and names
// their variants from s.
func NewLookup(p Persisted, r Reserved, s Sales) Lookup {
	return Lookup{persisted: p, reserved: r, sales: s}
}

// Find is the shopper's order id from MySQL, or from Redis while it is
// still pending there. Another shopper's order is ErrNotFound, as if it
// did not exist; other errors are the stores'.
func (l Lookup) Find(ctx context.Context, user, id string) (View, error) {
	o, err := l.persisted.Get(ctx, id)
	switch {
	case err == nil && o.UserID == user:
		return o.View(), nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return View{}, err
	}
	p, found, err := l.pendingOne(ctx, user, id)
	switch {
	case err != nil:
		return View{}, err
	case !found:
		return View{}, ErrNotFound
	}
	return p, nil
}

// List merges the shopper's persisted orders with those still pending in
// Redis, newest first. MySQL is read first: an order persisted in between
// shows as pending once.
func (l Lookup) List(ctx context.Context, user string) ([]View, error) {
	stored, err := l.persisted.ListByUser(ctx, user)
	if err != nil {
		return nil, err
	}
	pending, err := l.pending(ctx, user)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(stored))
	out := make([]View, 0, len(stored)+len(pending))
	for _, o := range stored {
		seen[o.ID] = true
		out = append(out, o.View())
	}
	for _, p := range pending {
		if !seen[p.OrderID] {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

// Pending reports whether Redis holds the shopper's reservation id, not
// (yet) in MySQL: a pay or cancel that finds no row tells it apart from
// an order that does not exist.
func (l Lookup) Pending(ctx context.Context, user, id string) (bool, error) {
	_, found, err := l.pendingOne(ctx, user, id)
	return found, err
}

// Named fills in o's variant label and, if it was persisted before prices
// were kept, its price today: the paying and cancelling writes do not read
// them. Its errors are the catalog's.
func (l Lookup) Named(ctx context.Context, o Order) (Order, error) {
	if o.VariantLabel != "" && o.UnitPriceCents != nil {
		return o, nil
	}
	label, price, err := l.variantOf(ctx, o.ItemID, o.VariantID)
	o.VariantLabel, o.UnitPriceCents = cmp.Or(o.VariantLabel, label), cmp.Or(o.UnitPriceCents, price)
	return o, err
}

// pending returns the shopper's reservations in Redis whose rows may not
// exist yet; callers drop the ones MySQL already has. Only the sales in
// the registry are asked: a retired sale left it, its orders all in MySQL,
// so a shop's years of finished sales cost a lookup nothing.
func (l Lookup) pending(ctx context.Context, user string) ([]View, error) {
	items, err := l.reserved.WarmItems(ctx)
	if err != nil {
		return nil, err
	}
	held, err := l.reserved.BuyerOf(ctx, items, user)
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(held))
	for itemID, b := range held {
		o := View{OrderID: b.OrderID, ItemID: itemID, VariantID: b.VariantID, UserID: user,
			Quantity: b.Quantity, Status: StatusPending, CreatedAt: b.CreatedAt}
		label, price, err := l.variantOf(ctx, itemID, b.VariantID)
		if err != nil {
			return nil, err
		}
		// The price the script took the order at; a reservation queued
		// without one (by a server from before prices travelled with it)
		// is priced when persisted, at the price then: today's is the
		// best it can be told.
		o.VariantLabel = label
		o.UnitPrice, o.Amount = Amount(cmp.Or(b.UnitPriceCents, price), b.Quantity)
		out = append(out, o)
	}
	return out, nil
}

// variantOf names a variant of a sale and its price now (nil if the sale
// or variant is gone); a shopper holds few orders at once, so this costs a
// read or two.
func (l Lookup) variantOf(ctx context.Context, itemID, variantID int64) (string, *int64, error) {
	it, err := l.sales.Get(ctx, itemID)
	if errors.Is(err, catalog.ErrNotFound) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	v, ok := it.Variant(variantID)
	if !ok {
		return "", nil, nil
	}
	price := v.Price(it)
	return v.Label, &price, nil
}

// pendingOne is the shopper's reservation id in Redis, if it is there.
func (l Lookup) pendingOne(ctx context.Context, user, id string) (View, bool, error) {
	pending, err := l.pending(ctx, user)
	if err != nil {
		return View{}, false, err
	}
	for _, p := range pending {
		if p.OrderID == id {
			return p, true, nil
		}
	}
	return View{}, false, nil
}
