package draw

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/catalog"
)

// entryRow is a row of draw_entries.
type entryRow struct {
	ItemID      int64
	EntryID     string
	UserID      string
	EntrySecret []byte // nil for an entry made before secrets (legacy id)
	VariantID   int64
	EnteredAt   time.Time
	Place       *int
	OfferState  *string
	OfferedAt   *time.Time
	Deadline    *time.Time
}

func (entryRow) TableName() string { return "draw_entries" }

// Offer states in draw_entries and, as suffixes, in Redis (lua/offer.lua).
const (
	offerOpen    = "open"
	offerBought  = "bought"
	offerExpired = "expired"
)

// Results of an entry after the draw.
const (
	ResultWon      = "won"      // offered a unit, at the draw or passed down
	ResultWaitlist = "waitlist" // a unit may still come back to it
	ResultLost     = "lost"     // the sale ended before a unit reached it
)

// Entry is a shopper's entry as they see it.
type Entry struct {
	EntryID   string
	VariantID int64
	EnteredAt time.Time
	// What the shopper needs to check their entry in the published draw:
	// their secret (hex; "" for a legacy entry), the draw's commitment and
	// its salt (hex).
	EntrySecret, Commitment, Salt string
	// After the draw: Result, and Position (for won, the place in the
	// variant's ranking; for waitlist, the place in the waitlist, 1 next).
	Result   string
	Position *int
	// Offer: open until Deadline, or bought, or expired.
	OfferState string
	Deadline   *time.Time
	OrderID    *string // the order bought with the offer, while it is active
}

// Enter enters user in draw sale itemID for variantID, or moves their entry
// to variantID. secret is the shopper's entry secret (32 bytes); nil keeps
// the one stored, or draws one for a first entry. A different secret
// replaces the stored one and so the entry id: nothing is ranked before the
// close. Entries are taken from entries_open_at until entries_close_at;
// the sale's row is read with a shared lock, which the draw's exclusive
// lock waits for, so no entry lands in a drawn sale.
func (s *Service) Enter(ctx context.Context, itemID int64, user string, variantID int64, secret []byte) (Entry, error) {
	var out Entry
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		it, err := s.stores.Catalog.WithTx(tx).GetShared(ctx, itemID)
		if err != nil {
			return err
		}
		if variantID, err = s.enterable(it, variantID); err != nil {
			return err
		}
		row, err := upsertEntry(tx, it, user, variantID, secret, s.now())
		if err != nil {
			return fmt.Errorf("enter draw %d: %w", itemID, err)
		}
		out = entryOf(it, row)
		return nil
	})
	return out, err
}

// Errors of entering, besides ErrNotADraw.
var (
	ErrEntriesNotOpen = errors.New("draw: entries are not open yet")
	ErrEntriesClosed  = errors.New("draw: entries are closed")
	// ErrEntryIDTaken: the entry secret gives an entry id that another
	// shopper's entry holds (a legacy id, which a chosen secret can
	// match); nothing is written.
	ErrEntryIDTaken = errors.New("draw: the entry id is another entry's")
	// ErrVariantRequired: the sale has several variants and none was named.
	ErrVariantRequired = errors.New("draw: the sale has several variants and none was named")
)

// enterable checks that sale it takes entries now, and names the variant
// to enter.
func (s *Service) enterable(it catalog.Item, variantID int64) (int64, error) {
	now := s.now()
	switch {
	case !it.IsDraw():
		return 0, ErrNotADraw
	case now.Before(*it.EntriesOpenAt):
		return 0, ErrEntriesNotOpen
	case it.DrawnAt != nil || !now.Before(*it.EntriesCloseAt) || !now.Before(it.EndsAt) || it.RetiredAt != nil:
		return 0, ErrEntriesClosed
	}
	if variantID == 0 && len(it.Variants) == 1 {
		return it.Variants[0].ID, nil
	} else if variantID == 0 {
		return 0, ErrVariantRequired
	}
	if _, ok := it.Variant(variantID); !ok {
		return 0, catalog.ErrVariantNotFound
	}
	return variantID, nil
}

// upsertEntry writes user's entry in one statement, so two entries of one
// shopper at once leave one row. Without a secret, a first entry gets a
// fresh one and a later entry keeps its own (a legacy entry, which has
// none, gets the fresh one and so an id that hides it).
func upsertEntry(tx *gorm.DB, it catalog.Item, user string, variantID int64, secret []byte, now time.Time) (entryRow, error) {
	keep := secret == nil
	if keep {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return entryRow{}, err
		}
	}
	id := EntryID(it.DrawSalt, secret, user)
	// The row a duplicate key finds may be another shopper's: a legacy id,
	// SHA-256(salt || user_id), is SHA-256(salt || secret || user_id') when
	// user_id is 32 chosen bytes followed by user_id'. Every assignment is
	// kept to the shopper's own row, and entered tells whether it was
	// reached. MySQL applies the assignments in order: entry_id reads the
	// secret stored before this statement.
	update := "entry_id = IF(" + mine + ", VALUES(entry_id), entry_id), entry_secret = IF(" + mine + ", VALUES(entry_secret), entry_secret), "
	if keep {
		update = "entry_id = IF(" + mine + " AND entry_secret IS NULL, VALUES(entry_id), entry_id), " +
			"entry_secret = IF(" + mine + ", IFNULL(entry_secret, VALUES(entry_secret)), entry_secret), "
	}
	err := tx.Exec("INSERT INTO draw_entries (item_id, entry_id, user_id, entry_secret, variant_id, entered_at) VALUES (?, ?, ?, ?, ?, ?) "+
		"ON DUPLICATE KEY UPDATE "+update+"variant_id = IF("+mine+", VALUES(variant_id), variant_id)",
		it.ID, id, user, secret, variantID, now.UTC().Truncate(time.Millisecond)).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		// The shopper's own row, given the new id, met another's.
		return entryRow{}, fmt.Errorf("entry id %s: %w", id, ErrEntryIDTaken)
	}
	if err != nil {
		return entryRow{}, err
	}
	var row entryRow
	err = tx.Take(&row, "item_id = ? AND user_id = ?", it.ID, user).Error
	if errors.Is(err, gorm.ErrRecordNotFound) || err == nil && !entered(row, id, secret, keep) {
		return entryRow{}, fmt.Errorf("entry id %s: %w", id, ErrEntryIDTaken)
	}
	return row, err
}

// mine holds in an upsert's assignments when the row the duplicate key
// found is the entering shopper's.
const mine = "user_id = VALUES(user_id)"

// entered tells whether the upsert wrote the shopper's row rather than
// meeting another's: the row has the new id, or, keeping its secret, has a
// secret of its own that is not the fresh one.
func entered(row entryRow, id string, fresh []byte, keep bool) bool {
	return row.EntryID == id || keep && row.EntrySecret != nil && !bytes.Equal(row.EntrySecret, fresh)
}

// entryOf is an entry as its shopper sees it before the draw.
func entryOf(it catalog.Item, row entryRow) Entry {
	e := Entry{EntryID: row.EntryID, VariantID: row.VariantID, EnteredAt: row.EnteredAt.UTC(),
		Commitment: commitmentOf(it), Salt: hex.EncodeToString(it.DrawSalt)}
	if row.EntrySecret != nil {
		e.EntrySecret = hex.EncodeToString(row.EntrySecret)
	}
	return e
}

// commitmentOf is the sale's commitment as its published draw shows it
// (seed_sha256).
func commitmentOf(it catalog.Item) string { return hex.EncodeToString(it.DrawCommitment) }
