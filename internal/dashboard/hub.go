// Package dashboard computes the admin dashboard's live numbers once a second
// and fans them out to every open event stream. The work is done once per
// tick however many admins watch, and not at all when nobody does.
package dashboard

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/ctxtime"
	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/sync/stocksync"
)

// Source is what a snapshot is computed from.
type Source interface {
	ListRecent(ctx context.Context, endedAfter time.Time) ([]catalog.Item, error)
	Stats(ctx context.Context, itemID int64) (stocksync.Stats, error)
}

// Row is one sale on the dashboard: its stats plus what the table shows.
type Row struct {
	stocksync.Stats
	Name     string    `json:"name"`
	Status   string    `json:"status"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
	// Retired: the sale's Redis keys are gone, MySQL keeps everything.
	Retired bool `json:"retired"`
	// Mode tells draws apart; a draw's row also says where its draw stands,
	// which its status (upcoming until purchases open) does not.
	Mode           string      `json:"mode"`
	DrawPhase      *draw.Phase `json:"draw_phase"`
	EntriesOpenAt  *time.Time  `json:"entries_open_at"`
	EntriesCloseAt *time.Time  `json:"entries_close_at"`
}

// Snapshot is one event: every recent sale at one server time.
type Snapshot struct {
	ServerTime time.Time `json:"server_time"`
	Rows       []Row     `json:"rows"`
	// ComputeMS is how long the snapshot took, so the cost of the stream
	// is visible on the dashboard itself.
	ComputeMS float64 `json:"compute_ms"`
	// AuditHead is the id of the newest audit log entry, so the dashboard's
	// audit panel reloads only when something was recorded, on any server.
	AuditHead int64 `json:"audit_head"`
}

// Hub ticks, computes and broadcasts.
type Hub struct {
	src      Source
	now      func() time.Time
	interval time.Duration
	log      *slog.Logger
	head     func(ctx context.Context) (int64, error) // FollowAudit
	// lastHead is the audit head last read, carried while reading it
	// fails; headFailing is set from the first failure of a streak to the
	// next success, so a streak logs once.
	lastHead    atomic.Int64
	headFailing atomic.Bool

	mu     sync.Mutex
	subs   map[chan []byte]struct{}
	last   []byte
	sentAt time.Time // of the last broadcast
}

// New returns a hub that computes a snapshot every interval.
func New(src Source, now func() time.Time, interval time.Duration, log *slog.Logger) *Hub {
	return &Hub{src: src, now: now, interval: interval, log: log, subs: map[chan []byte]struct{}{}}
}

// FollowAudit has each snapshot carry head's answer, the newest audit log
// entry's id (audit.Store.Head). Call it before Run.
func (h *Hub) FollowAudit(head func(ctx context.Context) (int64, error)) { h.head = head }

// Subscribe returns a channel of encoded snapshots, starting with the latest
// one, and a function that ends the subscription. A slow reader misses
// intermediate snapshots rather than slowing the hub.
func (h *Hub) Subscribe() (<-chan []byte, func()) {
	ch := make(chan []byte, 1)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	if h.last != nil {
		ch <- h.last
	}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

// Run ticks until ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	return ctxtime.Every(ctx, h.interval, func() {
		if h.watched() {
			h.tick(ctx)
		}
	})
}

func (h *Hub) watched() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) == 0 {
		h.last = nil // a new watcher must not see stale numbers
	}
	return len(h.subs) > 0
}

func (h *Hub) tick(ctx context.Context) {
	snap, err := h.Compute(ctx)
	if err != nil {
		h.log.Warn("dashboard snapshot failed", "err", err)
		return
	}
	b, err := json.Marshal(snap)
	if err != nil {
		h.log.Error("dashboard snapshot encoding failed", "err", err)
		return
	}
	h.broadcast(b)
}

// broadcast sends b to every subscriber, never sooner than interval after
// the previous broadcast: a slow snapshot followed by a fast one must not
// put two updates closer than the promised one a second.
func (h *Hub) broadcast(b []byte) {
	if wait := h.interval - time.Since(h.sentAt); wait > 0 {
		time.Sleep(wait)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sentAt = time.Now()
	h.last = b
	for ch := range h.subs {
		select { // drop the unread older snapshot, keep the newest
		case <-ch:
		default:
		}
		ch <- b
	}
}

// recentWindow keeps a sale on the dashboard for a while after it ends, so
// its final numbers can be read.
const recentWindow = time.Hour

// Compute builds one snapshot of every sale that is open or ended within the
// last hour.
func (h *Hub) Compute(ctx context.Context) (Snapshot, error) {
	start := time.Now()
	now := h.now()
	items, err := h.src.ListRecent(ctx, now.Add(-recentWindow))
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{ServerTime: now.UTC(), Rows: make([]Row, 0, len(items))}
	for _, it := range items {
		st, err := h.src.Stats(ctx, it.ID)
		if err != nil {
			return Snapshot{}, err
		}
		left := it.Stock
		if st.StockRedis != nil {
			left = int(*st.StockRedis)
		}
		snap.Rows = append(snap.Rows, drawRow(Row{Stats: st, Name: it.Name, Status: it.Status(now, left),
			StartsAt: it.StartsAt.UTC(), EndsAt: it.EndsAt.UTC(), Retired: it.RetiredAt != nil, Mode: it.Mode}, it, now))
	}
	snap.AuditHead = h.auditHead(ctx)
	snap.ComputeMS = float64(time.Since(start).Microseconds()) / 1000
	return snap, nil
}

// drawRow adds a draw's phase and entry times to its row; a first-come
// sale's stay null.
func drawRow(r Row, it catalog.Item, now time.Time) Row {
	if !it.IsDraw() {
		return r
	}
	phase := draw.PhaseOf(it, now)
	opens, closes := it.EntriesOpenAt.UTC(), it.EntriesCloseAt.UTC()
	r.DrawPhase, r.EntriesOpenAt, r.EntriesCloseAt = &phase, &opens, &closes
	return r
}

// auditHead reads the audit head, or keeps the last one read when that
// fails: the audit panel then just stops refreshing, while the stock table,
// which needs nothing from the audit log, carries on. A failure is logged
// once per streak, not once a second, and its end once.
func (h *Hub) auditHead(ctx context.Context) int64 {
	if h.head == nil {
		return 0
	}
	head, err := h.head(ctx)
	if err != nil {
		if !h.headFailing.Swap(true) {
			h.log.Warn("dashboard: cannot read the audit head; snapshots keep the last one", "err", err)
		}
		return h.lastHead.Load()
	}
	if h.headFailing.Swap(false) {
		h.log.Info("dashboard: the audit head is readable again")
	}
	h.lastHead.Store(head)
	return head
}
