// Package baseline serves the benchmark's two reference systems, each in a
// process of its own like the real server: the floor, a bare Gin handler
// doing one Redis round trip per purchase, and the ceiling, a bare Gin
// handler answering a constant. The benchmark reports the server's figures
// as ratios to these, measured in the same run on the same machine.
package baseline

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
)

//go:embed deduct.lua
var deductSource string

var deduct = redis.NewScript(deductSource)

// PurchasePath is the route every system under test answers, so wrk sends
// the same bytes to each.
const PurchasePath = "/api/v1/items/:id/purchase"

// ItemPath is the sale page's refresh, which the ceiling answers too: the
// pages measure sets the server's answer against a constant one.
const ItemPath = "/api/v1/items/:id"

// floorStock is far more than any run can sell, so the floor never sells out.
const floorStock = int64(1) << 50

// Serve runs the floor or the ceiling baseline until ctx ends. Both
// are bare gin.New() engines with no middleware, in a process of their own
// like the real server: the floor does one EVALSHA per purchase (HTTP plus
// one Redis round trip), the ceiling answers constant JSON.
func Serve(ctx context.Context, kind string, args []string) error {
	fs := flag.NewFlagSet(kind, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	redisAddr := fs.String("redis", "127.0.0.1:6379", "Redis address (floor only)")
	key := fs.String("key", "seckill-bench:floor:stock", "stock key (floor only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	switch kind {
	case "ceiling":
		engine.POST(PurchasePath, ceiling)
		engine.GET(ItemPath, ceilingItem)
	case "floor":
		// The server's own pool size, so neither side waits on a smaller pool.
		rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, PoolSize: 64})
		defer rdb.Close()
		if err := rdb.Set(ctx, *key, floorStock, 0).Err(); err != nil {
			return fmt.Errorf("floor: set stock: %w", err)
		}
		defer rdb.Del(context.WithoutCancel(ctx), *key)
		if err := deduct.Load(ctx, rdb).Err(); err != nil {
			return fmt.Errorf("floor: load script: %w", err)
		}
		engine.POST(PurchasePath, floor(rdb, *key))
	default:
		return fmt.Errorf("baseline: unknown kind %q", kind)
	}
	return serve(ctx, *addr, engine)
}

// soldOutBody is encoded once: the ceiling is the least work a Gin handler
// can do for an answer, and encoding a constant on every request is not
// that least.
var soldOutBody = []byte(`{"error":{"code":"sold_out","message":"sold out"}}`)

func ceiling(c *gin.Context) { c.Data(http.StatusGone, jsonType, soldOutBody) }

// ItemBody is the ceiling's sale, pre-encoded: the shape the server gives
// for a one-variant sale that is open, with stock figures as long as the
// pages measure's, so both send about the same bytes.
var ItemBody = []byte(`{"id":101,"name":"bench pages","description":"","image_url":"","price_cents":100,` +
	`"stock_total":10000000,"stock_left":10000000,"per_user_limit":1,"room_rate":0,` +
	`"starts_at":"2026-11-24T16:12:00.123456789Z","ends_at":"2026-11-24T22:13:00.123456789Z","status":"open",` +
	`"variants":[{"id":101,"label":"","price_cents":100,"per_user_limit":1,"image_url":"",` +
	`"stock_total":10000000,"stock_left":10000000,"status":"open"}]}`)

// ceilingItem answers the sale page's refresh with ItemBody and the
// headers the server sends with it (a constant ETag), always in full: the
// least work a Gin handler can do for that answer.
func ceilingItem(c *gin.Context) {
	h := c.Writer.Header()
	h["Etag"] = itemETag
	h["Cache-Control"] = itemCacheControl
	c.Data(http.StatusOK, jsonType, ItemBody)
}

var (
	itemETag         = []string{`"bench-ceiling"`}
	itemCacheControl = []string{"public, max-age=1"}
)

const jsonType = "application/json; charset=utf-8"

func floor(rdb *redis.Client, key string) gin.HandlerFunc {
	return func(c *gin.Context) {
		var body struct {
			Quantity int `json:"quantity"`
		}
		if err := json.NewDecoder(c.Request.Body).Decode(&body); err != nil || body.Quantity < 1 {
			c.JSON(http.StatusBadRequest, gin.H{"error": gin.H{"code": "invalid_request"}})
			return
		}
		left, err := deduct.Run(c.Request.Context(), rdb, []string{key}, body.Quantity).Int64()
		switch {
		case err != nil:
			c.JSON(http.StatusServiceUnavailable, gin.H{"error": gin.H{"code": "unavailable"}})
		case left < 0:
			c.Data(http.StatusGone, jsonType, soldOutBody)
		default:
			c.JSON(http.StatusAccepted, gin.H{"status": "pending", "stock_left": left})
		}
	}
}

// serve runs h on addr like the real server's http.Server until ctx ends.
func serve(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
