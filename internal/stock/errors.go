// Package stock is the Redis side of a sale: it warms stock from MySQL,
// reserves it for shoppers with one atomic Lua script that also enqueues the
// order, releases reservations, and reads live stock. It also holds the
// offers of draw sales (offer.go), which a purchase takes with a unit.
package stock

import (
	"errors"
	"time"

	"github.com/seckill/seckill/internal/keyspace"
)

// Errors a reservation or stock change can end with.
var (
	ErrNotWarmed           = errors.New("stock: sale not warmed in redis")
	ErrNotStarted          = errors.New("stock: sale not started")
	ErrEnded               = errors.New("stock: sale ended")
	ErrNotAdmitted         = errors.New("stock: the sale has a waiting room and the shopper was not admitted")
	ErrOverLimit           = errors.New("stock: quantity above the per-user limit")
	ErrAlreadyPurchased    = errors.New("stock: shopper already holds an order for this item")
	ErrSoldOut             = errors.New("stock: sold out")
	ErrIdempotencyConflict = errors.New("stock: idempotency key reused with a different quantity or variant")
	ErrStockConflict       = errors.New("stock: change would take back stock already sold")
	ErrBusy                = errors.New("stock: sale kept changing while warming; try again")
	ErrVariantNotFound     = errors.New("stock: the sale has no such variant")
	ErrVariantRequired     = errors.New("stock: the sale has several variants and none was named")
	ErrRateLimited         = errors.New("stock: over the purchase rate limit")
	ErrPaused              = errors.New("stock: an admin paused the sale")
	ErrNoOffer             = errors.New("stock: a draw sale, and the shopper holds no open offer for this variant")
	// ErrReplicationTimeout: the reservation is on the primary but fewer
	// replicas than required had it in time, so it may not survive a
	// failover; a retry with the same Idempotency-Key finds it if it did.
	ErrReplicationTimeout = errors.New("stock: the reservation did not reach enough redis replicas in time")
	// ErrInvalidQuantity and ErrInvalidArgument are a script refusing
	// arguments the server should never have sent: the scripts trust no
	// caller.
	ErrInvalidQuantity = errors.New("stock: quantity must be a whole number of at least 1")
	ErrInvalidArgument = errors.New("stock: malformed script argument")
)

// RateLimitedError says how long until the purchase rate limit that
// refused would allow a request. It matches ErrRateLimited with errors.Is.
type RateLimitedError struct{ Wait time.Duration }

func (e *RateLimitedError) Error() string {
	return ErrRateLimited.Error() + "; retry in " + e.Wait.String()
}

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *RateLimitedError) Is(target error) bool { return target == ErrRateLimited }

// AlreadyPurchasedError carries the order the shopper already holds. It
// matches ErrAlreadyPurchased with errors.Is.
type AlreadyPurchasedError struct{ Existing keyspace.Buyer }

func (e *AlreadyPurchasedError) Error() string {
	return ErrAlreadyPurchased.Error() + ": order " + e.Existing.OrderID
}

// Is makes errors.Is(err, ErrAlreadyPurchased) true.
func (e *AlreadyPurchasedError) Is(target error) bool { return target == ErrAlreadyPurchased }

// SoldOutError says how much stock the variant (Left) and the whole sale
// (SaleLeft) had when a quantity did not fit, which variants still had some
// (Available), and how many times stock had come back to the sale by then
// (see keyspace.Item.Returns).
type SoldOutError struct {
	Left, SaleLeft, Returns int64
	Available               []int64
}

func (e *SoldOutError) Error() string { return ErrSoldOut.Error() }

// Is makes errors.Is(err, ErrSoldOut) true.
func (e *SoldOutError) Is(target error) bool { return target == ErrSoldOut }

// Refused reports whether err is the reserve script refusing a request for
// a sale Redis knows, as opposed to a sale it does not know or a failure to
// ask it.
func Refused(err error) bool {
	for _, e := range []error{ErrNotStarted, ErrEnded, ErrOverLimit, ErrNotAdmitted, ErrNoOffer, ErrVariantNotFound,
		ErrVariantRequired, ErrAlreadyPurchased, ErrSoldOut, ErrIdempotencyConflict, ErrRateLimited, ErrInvalidQuantity, ErrPaused} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
