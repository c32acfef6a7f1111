// Package persist is the benchmark's persistence measure: a backlog of
// reserved orders put into a sale's Redis stream exactly as the reserve
// script writes them and drained into MySQL by the project's own
// persisters (Drain), against the same rows written with nothing but
// multi-row INSERTs (Plain), and drained again with the outbox on
// (DrainWithEvents), to show what announcing every order costs.
package persist

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/internal/catalog"
	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/order"
	"github.com/seckill/seckill/internal/webhook"
)

// Run is one drain or one plain insert of the backlog.
type Run struct {
	Rows       int     `json:"rows"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	// MySQLCPU is what the MariaDB server spent in the timed window, 0 when
	// it does not run on this machine. The server may be shared, so it
	// holds whatever else was asked of it meanwhile.
	MySQLCPU float64 `json:"mysql_cpu_seconds"`
	// Events is the outbox rows the run wrote, counted after it (only a
	// drain with events writes any).
	Events int `json:"outbox_rows,omitempty"`
}

// MySQLmsPerRow is the MariaDB CPU milliseconds per row written.
func (r Run) MySQLmsPerRow() float64 {
	if r.Rows == 0 {
		return 0
	}
	return 1000 * r.MySQLCPU / float64(r.Rows)
}

// window times a run and meters the MariaDB server's CPU (pid; 0: not
// metered) over the same span.
type window struct {
	pid   int
	began time.Time
	cpu0  float64
}

func startWindow(pid int) window {
	return window{pid: pid, began: time.Now(), cpu0: mysqlCPU(pid)}
}

func (w window) end(rows int) Run {
	d, cpu := time.Since(w.began), mysqlCPU(w.pid)-w.cpu0
	return Run{Rows: rows, Seconds: d.Seconds(), RowsPerSec: float64(rows) / d.Seconds(), MySQLCPU: cpu}
}

// mysqlCPU is the server's CPU seconds so far; a server that cannot be
// read counts 0 rather than failing the run, as elsewhere in the bench.
func mysqlCPU(pid int) float64 {
	if pid == 0 {
		return 0
	}
	s, _ := machine.CPUSeconds(pid)
	return s
}

// Order is one reserved order of the backlog, the same rows for the
// persister and for the plain insert.
type Order struct {
	id, user string
	ms       int64
}

// Backlog is n orders of distinct shoppers, reserved now.
func Backlog(n int) []Order {
	now := time.Now().UnixMilli()
	out := make([]Order, n)
	for i := range out {
		out[i] = Order{id: ulid.Make().String(), user: "backlog-" + strconv.Itoa(i), ms: now}
	}
	return out
}

// serverDefaults are the settings a server started with no tuning runs its
// persistence workers with, so the drain measures what a deployment gets.
func serverDefaults() (config.Config, error) {
	return config.Load(func(name string) string {
		switch name {
		case "SECKILL_ADMIN_TOKEN", "SECKILL_JWT_SECRET":
			return "bench-placeholder-secret-0123456789abcdef"
		}
		return ""
	})
}

// Drain puts orders into a sale's stream exactly as lua/reserve.lua
// does and times the project's own persisters (as many and as configured as
// a default server runs) until MySQL holds every one, metering the CPU of
// the MariaDB server mysqlPID (0: none) meanwhile.
func Drain(ctx context.Context, rdb *redis.Client, dsn, prefix string, orders []Order, mysqlPID int) (Run, error) {
	return drain(ctx, rdb, dsn, prefix, orders, mysqlPID, nil)
}

// drain is Drain with the persisters' store writing its events through
// out (nil: none).
func drain(ctx context.Context, rdb *redis.Client, dsn, prefix string, orders []Order, mysqlPID int,
	out *webhook.Writer) (Run, error) {
	defaults, err := serverDefaults()
	if err != nil {
		return Run{}, err
	}
	db, item, err := openBacklog(ctx, dsn, len(orders), "backlog")
	if err != nil {
		return Run{}, err
	}
	defer closeGorm(db)
	keys := keyspace.New(prefix)
	if err := seedStream(ctx, rdb, keys, item.ID, item.Variants[0].ID, orders); err != nil {
		return Run{}, err
	}
	obs := &drainObserver{want: int64(len(orders)), done: make(chan struct{})}
	store, log := order.NewStore(db), slog.New(slog.DiscardHandler)
	store.UseOutbox(out)
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	win := startWindow(mysqlPID)
	for i := range defaults.Workers {
		p := order.NewPersister(rdb, keys, store, refuseRepair{}, obs, nil, order.PersisterConfig{
			Consumer: "bench-" + strconv.Itoa(i), Batch: defaults.BatchSize, Block: time.Second,
			ClaimIdle: defaults.ClaimIdle, ClaimEvery: max(defaults.ClaimIdle/2, 100*time.Millisecond),
			Linger: defaults.PersistLinger,
		}, log)
		wg.Go(func() { p.Run(wctx) })
	}
	err = obs.wait(ctx, 10*time.Minute)
	run := win.end(len(orders))
	stop()
	wg.Wait()
	if err != nil {
		return Run{}, err
	}
	if err := checkRows(ctx, db, item.ID, len(orders), 0); err != nil {
		return Run{}, err
	}
	if out.On() {
		if run.Events, err = checkEvents(ctx, db, len(orders)); err != nil {
			return Run{}, err
		}
	}
	return run, nil
}

func backlogItem(stock int) catalog.Item {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return catalog.Item{Name: "bench backlog", PriceCents: 100, StockTotal: stock, Stock: stock, PerUserLimit: 1,
		StartsAt: now.Add(-time.Minute), EndsAt: now.Add(6 * time.Hour)}
}

// seedStream writes the entries reserve.lua's XADD writes, each for the
// given variant of item, and registers the stream with its consumer group
// as warming a sale does.
func seedStream(ctx context.Context, rdb *redis.Client, keys keyspace.Space, item, variant int64, orders []Order) error {
	stream, itemID, variantID := keys.Item(item).Stream(), strconv.FormatInt(item, 10), strconv.FormatInt(variant, 10)
	if err := rdb.XGroupCreateMkStream(ctx, stream, keyspace.Group, "0").Err(); err != nil {
		return fmt.Errorf("create consumer group: %w", err)
	}
	if err := rdb.SAdd(ctx, keys.Registry(), itemID).Err(); err != nil {
		return fmt.Errorf("register stream: %w", err)
	}
	for start := 0; start < len(orders); start += 1000 {
		_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, o := range orders[start:min(start+1000, len(orders))] {
				p.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{
					"id", o.id, "item", itemID, "variant", variantID, "user", o.user, "qty", 1, "idem", "", "ts", o.ms}})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("seed stream: %w", err)
		}
	}
	return nil
}

// drainObserver counts what the persisters wrote; any rejection means the
// seeded backlog was wrong, and the run is void.
type drainObserver struct {
	want          int64
	got, rejected atomic.Int64
	done          chan struct{}
	once          sync.Once
}

func (o *drainObserver) Persisted(n int) {
	if o.got.Add(int64(n)) >= o.want {
		o.once.Do(func() { close(o.done) })
	}
}

func (o *drainObserver) Rejected(n int) {
	o.rejected.Add(int64(n))
	o.once.Do(func() { close(o.done) })
}

// Failed ignores failures: the drain's deadline reports a stuck run.
func (o *drainObserver) Failed(string) {}

func (o *drainObserver) wait(ctx context.Context, timeout time.Duration) error {
	select {
	case <-o.done:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(timeout):
		return fmt.Errorf("drain: %d of %d orders persisted after %s", o.got.Load(), o.want, timeout)
	}
	if n := o.rejected.Load(); n > 0 {
		return fmt.Errorf("drain: MySQL rejected %d seeded orders", n)
	}
	return nil
}

var errUnexpectedRepair = errors.New("persist: the persister asked for a repair")

// refuseRepair fails loudly: a seeded backlog never needs a repair.
type refuseRepair struct{}

func (refuseRepair) Repair(context.Context, int64, []keyspace.Entry) error {
	return errUnexpectedRepair
}
