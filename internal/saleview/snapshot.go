package saleview

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/seckill/seckill/internal/catalog"
)

// snapshotAge is how long a sale's encoded JSON is shared before it is
// read again: every open sale page asks once a second, and on the day that
// is the storm that decides how many servers a drop needs, not the
// purchases. A page is then at most this much plus its own second behind.
const snapshotAge = 250 * time.Millisecond

// snapshotTimeout bounds a shared read: it runs for every page waiting on
// it, so no one page's departure may cancel it.
const snapshotTimeout = 5 * time.Second

// Snapshot is one sale's (or one page's) JSON as every page gets it.
type Snapshot struct {
	Body []byte
	ETag string // from the body, so an unchanged sale keeps its ETag across reads
	At   time.Time
}

// Snapshots keep the sales' public JSON in memory, read from MySQL and
// Redis at most once per snapshotAge per sale however many pages ask
// (singleflight joins the askers of one read). The age is measured on the
// process's own monotonic clock, not the injectable one the sale statuses
// use, so a test's frozen clock cannot freeze the stock shown.
type Snapshots struct {
	view  View
	mu    sync.Mutex
	items map[int64]Snapshot
	list  Snapshot // the first page of the list at the default limit, without server_time
	// gen counts forgets: a read begun before one must neither be stored
	// nor joined after it, or the change it missed would show again.
	gen   uint64
	reads singleflight.Group
}

// NewSnapshots shares the reads of v.
func NewSnapshots(v View) *Snapshots {
	return &Snapshots{view: v, items: map[int64]Snapshot{}}
}

// Forget drops every snapshot: after an admin change on this server its
// next reads show the change at once (other servers within snapshotAge).
func (s *Snapshots) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.items)
	s.list = Snapshot{}
	s.gen++
}

// shared runs read for key once however many ask at the same time, on a
// context no single asker can cancel, and stores its answer with store
// unless a forget came in between.
func (s *Snapshots) shared(ctx context.Context, key string, read func(ctx context.Context) (any, error),
	store func(Snapshot)) (Snapshot, error) {
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	v, err, _ := s.reads.Do(key+"@"+strconv.FormatUint(gen, 10), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotTimeout)
		defer cancel()
		out, err := read(ctx)
		if err != nil {
			return Snapshot{}, err
		}
		snap, err := encodeSnapshot(out)
		if err != nil {
			return Snapshot{}, err
		}
		s.mu.Lock()
		if s.gen == gen {
			store(snap)
		}
		s.mu.Unlock()
		return snap, nil
	})
	return v.(Snapshot), err
}

// Item returns the sale's snapshot, read again when older than
// snapshotAge. A sale that does not exist is not remembered: made-up ids
// must not grow the map. Its errors are View.Sale's.
func (s *Snapshots) Item(ctx context.Context, id int64) (Snapshot, error) {
	s.mu.Lock()
	snap, ok := s.items[id]
	s.mu.Unlock()
	if ok && time.Since(snap.At) < snapshotAge {
		return snap, nil
	}
	return s.shared(ctx, strconv.FormatInt(id, 10), func(ctx context.Context) (any, error) {
		return s.view.Sale(ctx, id)
	}, func(snap Snapshot) { s.items[id] = snap })
}

// FirstPage returns the list's first page at the default limit, shared
// like Item: it is the page every shopper loads at the opening second.
func (s *Snapshots) FirstPage(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	snap := s.list
	s.mu.Unlock()
	if snap.Body != nil && time.Since(snap.At) < snapshotAge {
		return snap, nil
	}
	return s.shared(ctx, "list", func(ctx context.Context) (any, error) {
		return s.view.Page(ctx, catalog.FirstPage(s.view.now()), DefaultPageLimit)
	}, func(snap Snapshot) { s.list = snap })
}

// Page reads any other page of the list (cur nil: the first). It is not
// kept: a page past the first reads only its own few rows, and few
// shoppers ask for the same one at once; those who do share the read.
func (s *Snapshots) Page(ctx context.Context, cur *catalog.Cursor, limit int) (Snapshot, error) {
	c := catalog.FirstPage(s.view.now())
	if cur != nil {
		c = *cur
	}
	key := "page." + strconv.Itoa(limit) + "." + EncodeCursor(c)
	return s.shared(ctx, key, func(ctx context.Context) (any, error) { return s.view.Page(ctx, c, limit) },
		func(Snapshot) {})
}

func encodeSnapshot(v any) (Snapshot, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return Snapshot{}, err
	}
	h := fnv.New64a()
	h.Write(body)
	return Snapshot{Body: body, ETag: `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)) + `"`, At: time.Now()}, nil
}
