package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"github.com/seckill/seckill/internal/sync/lock"
)

// Delivery is one event on its way to one endpoint.
type Delivery struct {
	Seq           int64
	EventID       string
	Endpoint      string
	Type          string
	Subject       string
	Body          []byte
	State         string
	Attempts      int
	CreatedAt     time.Time
	NextAttemptAt time.Time
	GiveUpAt      time.Time
	DeliveredAt   *time.Time
	LastStatus    *int
	LastError     *string
}

// Errors of the outbox's admin side.
var (
	ErrNotFound  = errors.New("webhook: delivery not found")      // no delivery has that seq
	ErrNotFailed = errors.New("webhook: delivery has not failed") // Resend of a pending or delivered one
)

// Store reads and changes the outbox.
type Store struct{ db *gorm.DB }

// NewStore returns the outbox over db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// due returns up to limit pending deliveries to endpoint whose next
// attempt is due at now, each the oldest pending one of its subject: a
// later event of an order waits until the earlier ones are delivered or
// failed, so the receiver sees them in order.
func (s *Store) due(ctx context.Context, endpoint string, now time.Time, limit int) ([]Delivery, error) {
	var ds []Delivery
	err := s.db.WithContext(ctx).Raw(`SELECT o.* FROM outbox o
		WHERE o.state = ? AND o.endpoint = ? AND o.next_attempt_at <= ?
		AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.subject = o.subject AND p.seq < o.seq
			AND p.endpoint = o.endpoint AND p.state = ?)
		ORDER BY o.next_attempt_at, o.seq LIMIT ?`, StatePending, endpoint, now, StatePending, limit).Scan(&ds).Error
	if err != nil {
		return nil, fmt.Errorf("read due deliveries: %w", err)
	}
	return ds, nil
}

// endpoints lists the endpoints that have deliveries pending.
func (s *Store) endpoints(ctx context.Context) ([]string, error) {
	var eps []string
	err := s.db.WithContext(ctx).Raw("SELECT DISTINCT endpoint FROM outbox WHERE state = ?", StatePending).Scan(&eps).Error
	if err != nil {
		return nil, fmt.Errorf("list endpoints: %w", err)
	}
	return eps, nil
}

// delivered records that the receiver took the deliveries with seqs,
// answering status.
func (s *Store) delivered(ctx context.Context, seqs []int64, status int, at time.Time) error {
	err := s.db.WithContext(ctx).Exec("UPDATE outbox SET state = ?, delivered_at = ?, attempts = attempts + 1, last_status = ?, last_error = NULL "+
		"WHERE seq IN ? AND state = ?", StateDelivered, at, status, seqs, StatePending).Error
	if err != nil {
		return fmt.Errorf("record %d deliveries: %w", len(seqs), err)
	}
	return nil
}

// attemptFailed records a failed attempt: retried at next, or failed for
// good when next is past the delivery's give-up time. The later pending
// rows of its subject wait for it, so they are moved to next as well:
// left due, every round would read them again only to find them blocked,
// and a receiver down during a sale holds thousands of them.
func (s *Store) attemptFailed(ctx context.Context, d Delivery, status int, msg string, next time.Time) error {
	state := StatePending
	if next.After(d.GiveUpAt) {
		state, next = StateFailed, d.GiveUpAt
	}
	var st *int
	if status != 0 {
		st = &status
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Exec("UPDATE outbox SET state = ?, attempts = attempts + 1, next_attempt_at = ?, last_status = ?, last_error = ? "+
			"WHERE seq = ? AND state = ?", state, next, st, clip(msg, 255), d.Seq, StatePending).Error
		if err != nil || state != StatePending {
			return err
		}
		return tx.Exec("UPDATE outbox SET next_attempt_at = ? WHERE subject = ? AND seq > ? AND endpoint = ? AND state = ? AND next_attempt_at < ?",
			next, d.Subject, d.Seq, d.Endpoint, StatePending, next).Error
	})
	if err != nil {
		return fmt.Errorf("record failed delivery %d: %w", d.Seq, err)
	}
	return nil
}

// clip makes a receiver's words fit a column: valid UTF-8 (a reason
// phrase may be anything; MySQL refuses bytes that are not), at most n
// bytes, cut between characters.
func clip(msg string, n int) string {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	if len(msg) <= n {
		return msg
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut]
}

// List returns up to limit deliveries in state (any state when ""), newest
// first, with seq below before (0: from the newest).
func (s *Store) List(ctx context.Context, state string, before int64, limit int) ([]Delivery, error) {
	q := s.db.WithContext(ctx).Table("outbox")
	if state != "" {
		q = q.Where("state = ?", state)
	}
	if before > 0 {
		q = q.Where("seq < ?", before)
	}
	var ds []Delivery
	if err := q.Order("seq DESC").Limit(limit).Find(&ds).Error; err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return ds, nil
}

// Get returns the delivery with seq, or ErrNotFound.
func (s *Store) Get(ctx context.Context, seq int64) (Delivery, error) {
	var d Delivery
	err := s.db.WithContext(ctx).Table("outbox").Take(&d, "seq = ?", seq).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Delivery{}, ErrNotFound
	}
	if err != nil {
		return Delivery{}, fmt.Errorf("get delivery %d: %w", seq, err)
	}
	return d, nil
}

// Resend puts a failed delivery back on its way now, with another full
// period of retries, and returns it. It returns ErrNotFound for no such
// delivery, and ErrNotFailed, changing nothing, for a pending or delivered
// one: re-sending what the receiver took would only make it dedupe, and
// the caller (an admin's click) must learn that nothing was re-sent.
func (s *Store) Resend(ctx context.Context, seq int64, now time.Time, giveUp time.Duration) (Delivery, error) {
	res := s.db.WithContext(ctx).Exec("UPDATE outbox SET state = ?, next_attempt_at = ?, give_up_at = ? WHERE seq = ? AND state = ?",
		StatePending, now, now.Add(giveUp), seq, StateFailed)
	if res.Error != nil {
		return Delivery{}, fmt.Errorf("resend delivery %d: %w", seq, res.Error)
	}
	d, err := s.Get(ctx, seq)
	if err == nil && res.RowsAffected == 0 {
		err = ErrNotFailed
	}
	return d, err
}

// Stats is the outbox at a glance.
type Stats struct {
	Pending       int
	OldestPending time.Time // zero when nothing is pending
	Failed        int
}

// Stats counts pending and failed deliveries and dates the oldest pending.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var r struct {
		Pending int
		Oldest  *time.Time
		Failed  int
	}
	err := s.db.WithContext(ctx).Raw(`SELECT
		(SELECT COUNT(*) FROM outbox WHERE state = ?) AS pending,
		(SELECT MIN(created_at) FROM outbox WHERE state = ?) AS oldest,
		(SELECT COUNT(*) FROM outbox WHERE state = ?) AS failed`, StatePending, StatePending, StateFailed).Scan(&r).Error
	if err != nil {
		return Stats{}, fmt.Errorf("outbox stats: %w", err)
	}
	st := Stats{Pending: r.Pending, Failed: r.Failed}
	if r.Oldest != nil {
		st.OldestPending = *r.Oldest
	}
	return st, nil
}

// Prune deletes up to limit deliveries delivered, or given up on, before
// before and returns how many it deleted: the receivers have the former,
// and the latter were listed on the dashboard for as long.
func (s *Store) Prune(ctx context.Context, before time.Time, limit int) (int64, error) {
	var n int64
	for _, state := range []string{StateDelivered, StateFailed} {
		// next_attempt_at is at most the delivery's time, and is the
		// give-up time of a failed one: the due index finds both.
		res := s.db.WithContext(ctx).Exec("DELETE FROM outbox WHERE state = ? AND next_attempt_at < ? LIMIT ?",
			state, before, limit-int(n))
		if res.Error != nil {
			return n, fmt.Errorf("prune %s events: %w", state, res.Error)
		}
		if n += res.RowsAffected; n >= int64(limit) {
			break
		}
	}
	return n, nil
}

// PruneJob deletes, every hour, deliveries made more than keep ago, so the
// outbox holds what is on its way and a week of history, not every event
// ever sent.
func (s *Store) PruneJob(keep time.Duration) lock.Job {
	return lock.Job{Name: "webhook-prune", Every: time.Hour, Run: func(ctx context.Context) error {
		for {
			n, err := s.Prune(ctx, time.Now().Add(-keep), 5000)
			if err != nil || n < 5000 {
				return err
			}
		}
	}}
}
