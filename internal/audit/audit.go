// Package audit keeps the audit log in MySQL: every admin action that
// changes something, with when, who (a fingerprint of the admin's
// credential, never the credential itself), the request it came in, and the
// values before and after. Entries are only ever added.
package audit

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Actions the log records. The sale service records each after the change
// it names has been made; webhook_resend is an admin's re-send of a failed
// webhook delivery (no sale: item id 0).
const (
	ActionCreate          = "create"
	ActionUpdate          = "update"
	ActionVariantAdd      = "variant_add"
	ActionVariantUpdate   = "variant_update"
	ActionVariantDelete   = "variant_delete"
	ActionWarm            = "warm"
	ActionReconcileRepair = "reconcile_repair"
	ActionPause           = "pause"
	ActionResume          = "resume"
	ActionEnd             = "end"
	ActionRetire          = "retire"
	ActionWebhookResend   = "webhook_resend"
	ActionOrderCancel     = "order_cancel"
)

// System is the actor of changes no admin asked for in that request: the
// periodic reconciliation, for one.
const System = "system"

// ErrInvalid is returned by List for a limit below 1.
var ErrInvalid = errors.New("audit: invalid page request")

// Entry is one recorded action. Before and After are JSON (null when there
// was nothing before, as for a create, or nothing after, as for a delete).
type Entry struct {
	ID        int64           `json:"id"`
	At        time.Time       `json:"at"`
	Actor     string          `json:"actor"`
	RequestID string          `json:"request_id"`
	Action    string          `json:"action"`
	ItemID    *int64          `json:"item_id"`
	Before    json.RawMessage `json:"before" gorm:"column:before"`
	After     json.RawMessage `json:"after" gorm:"column:after"`
}

// TableName maps Entry onto the audit_log table.
func (Entry) TableName() string { return "audit_log" }

// Store writes and pages the audit log.
type Store struct {
	db  *gorm.DB
	now func() time.Time
}

// NewStore returns the log over db; now stamps the entries.
func NewStore(db *gorm.DB, now func() time.Time) *Store { return &Store{db: db, now: now} }

// Record adds an entry for action on sale itemID (0: no sale), taking who
// and the request id from ctx (WithActor; System when ctx carries none).
// before and after are encoded as JSON; nil stores NULL. It returns MySQL's
// errors and JSON encoding's.
func (s *Store) Record(ctx context.Context, action string, itemID int64, before, after any) error {
	e := Entry{At: s.now().UTC(), Action: action}
	e.Actor, e.RequestID = ActorFrom(ctx)
	if itemID != 0 {
		e.ItemID = &itemID
	}
	var err error
	if e.Before, err = encode(before); err != nil {
		return fmt.Errorf("audit %s of item %d: %w", action, itemID, err)
	}
	if e.After, err = encode(after); err != nil {
		return fmt.Errorf("audit %s of item %d: %w", action, itemID, err)
	}
	if err := s.db.WithContext(ctx).Create(&e).Error; err != nil {
		return fmt.Errorf("audit %s of item %d: %w", action, itemID, err)
	}
	return nil
}

func encode(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// Head returns the id of the newest entry, 0 for an empty log: a cheap way
// for a watcher to tell that something was recorded.
func (s *Store) Head(ctx context.Context) (int64, error) {
	var id *int64
	if err := s.db.WithContext(ctx).Raw("SELECT MAX(id) FROM audit_log").Scan(&id).Error; err != nil {
		return 0, fmt.Errorf("audit head: %w", err)
	}
	if id == nil {
		return 0, nil
	}
	return *id, nil
}

// Fingerprint names an admin credential without revealing it: kind, a colon
// and the first 12 hex digits of the secret's HMAC-SHA256 under key (the
// server's JWT secret). The same secret always gives the same fingerprint;
// the key keeps anyone who reads the log from testing guesses of a weak
// admin token against it offline.
func Fingerprint(key []byte, kind, secret string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(kind + "\x00" + secret))
	return kind + ":" + hex.EncodeToString(mac.Sum(nil))[:12]
}

type actorKey struct{}

type actor struct{ who, requestID string }

// WithActor returns ctx carrying who acts (a Fingerprint) and the id of the
// request they act in, for Record.
func WithActor(ctx context.Context, who, requestID string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor{who, requestID})
}

// ActorFrom returns who acts in ctx and their request id; System and "" when
// ctx carries none.
func ActorFrom(ctx context.Context) (who, requestID string) {
	if a, ok := ctx.Value(actorKey{}).(actor); ok && a.who != "" {
		return a.who, a.requestID
	}
	return System, ""
}
