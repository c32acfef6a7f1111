package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
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

// snapshot is one sale's JSON as every page gets it.
type snapshot struct {
	body []byte
	etag string // from the body, so an unchanged sale keeps its ETag across reads
	at   time.Time
}

// snapshots keep the sales' public JSON in memory, read from MySQL and
// Redis at most once per snapshotAge per sale however many pages ask
// (singleflight joins the askers of one read). The age is measured on the
// process's own monotonic clock, not the injectable one the sale statuses
// use, so a test's frozen clock cannot freeze the stock shown.
type snapshots struct {
	view  saleView
	mu    sync.Mutex
	items map[int64]snapshot
	list  snapshot // the first page of GET /items at the default limit, without server_time
	// gen counts forgets: a read begun before one must neither be stored
	// nor joined after it, or the change it missed would show again.
	gen   uint64
	reads singleflight.Group
}

func newSnapshots(v saleView) *snapshots {
	return &snapshots{view: v, items: map[int64]snapshot{}}
}

// forget drops every snapshot: after an admin change on this server its
// next reads show the change at once (other servers within snapshotAge).
func (s *snapshots) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.items)
	s.list = snapshot{}
	s.gen++
}

// shared runs read for key once however many ask at the same time, on a
// context no single asker can cancel, and stores its answer with store
// unless a forget came in between.
func (s *snapshots) shared(ctx context.Context, key string, read func(ctx context.Context) (any, error),
	store func(snapshot)) (snapshot, error) {
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	v, err, _ := s.reads.Do(key+"@"+strconv.FormatUint(gen, 10), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotTimeout)
		defer cancel()
		out, err := read(ctx)
		if err != nil {
			return snapshot{}, err
		}
		snap, err := encodeSnapshot(out)
		if err != nil {
			return snapshot{}, err
		}
		s.mu.Lock()
		if s.gen == gen {
			store(snap)
		}
		s.mu.Unlock()
		return snap, nil
	})
	return v.(snapshot), err
}

// item returns the sale's snapshot, read again when older than
// snapshotAge. A sale that does not exist is not remembered: made-up ids
// must not grow the map.
func (s *snapshots) item(ctx context.Context, id int64) (snapshot, error) {
	s.mu.Lock()
	snap, ok := s.items[id]
	s.mu.Unlock()
	if ok && time.Since(snap.at) < snapshotAge {
		return snap, nil
	}
	return s.shared(ctx, strconv.FormatInt(id, 10), func(ctx context.Context) (any, error) {
		it, err := s.view.catalog.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		levels, err := s.view.levels(ctx, []catalog.Item{it})
		if err != nil {
			return nil, err
		}
		return present(it, levels, s.view.now()), nil
	}, func(snap snapshot) { s.items[id] = snap })
}

// firstPage returns the list's first page at the default limit, shared
// like item: it is the page every shopper loads at the opening second.
func (s *snapshots) firstPage(ctx context.Context) (snapshot, error) {
	s.mu.Lock()
	snap := s.list
	s.mu.Unlock()
	if snap.body != nil && time.Since(snap.at) < snapshotAge {
		return snap, nil
	}
	return s.shared(ctx, "list", func(ctx context.Context) (any, error) {
		return s.view.presentPage(ctx, catalog.FirstPage(s.view.now()), defaultPageLimit)
	}, func(snap snapshot) { s.list = snap })
}

// page reads any other page of the list. It is not kept: a page past the
// first reads only its own few rows, and few shoppers ask for the same one
// at once; those who do share the read.
func (s *snapshots) page(ctx context.Context, cur *catalog.Cursor, limit int) (snapshot, error) {
	c := catalog.FirstPage(s.view.now())
	if cur != nil {
		c = *cur
	}
	key := "page." + strconv.Itoa(limit) + "." + encodeCursor(c)
	return s.shared(ctx, key, func(ctx context.Context) (any, error) { return s.view.presentPage(ctx, c, limit) },
		func(snapshot) {})
}

func encodeSnapshot(v any) (snapshot, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return snapshot{}, err
	}
	h := fnv.New64a()
	h.Write(body)
	return snapshot{body: body, etag: `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)) + `"`, at: time.Now()}, nil
}

// writeSnapshot answers with a sale's snapshot, or 304 when the client (or
// a proxy or CDN in front) already holds it: net/http's ServeContent reads
// If-None-Match against the ETag set here. public, max-age=1 lets a cache
// in front answer the once-a-second refreshes of every page.
func writeSnapshot(c *gin.Context, snap snapshot) {
	h := c.Writer.Header()
	h.Set("ETag", snap.etag)
	h.Set("Cache-Control", "public, max-age=1")
	h.Set("Content-Type", "application/json; charset=utf-8")
	http.ServeContent(c.Writer, c.Request, "", time.Time{}, bytes.NewReader(snap.body))
}
