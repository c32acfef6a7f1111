package runner

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
	"github.com/seckill/seckill/internal/harness"
)

//go:embed shoppers.lua
var shoppersLua string

// runner holds what every measure of one run shares.
type runner struct {
	cfg      Config
	dir      string // scratch: logs, the wrk script, shopper files
	tag      string // names this run's databases and key prefixes
	rdb      *redis.Client
	progress io.Writer

	floor, ceiling       *harness.Proc
	floorURL, ceilingURL string
	seckill              *seckillServer
	shoppers             []shopper
	script               string
	redisPID, mysqlPID   int // 0 when not on this machine; for the CPU figures
}

// Run measures everything cfg asks for, prints the report to stdout, writes
// the raw figures to cfg.ResultsDir and, with cfg.Docs, the docs page.
func Run(ctx context.Context, cfg Config, stdout, progress io.Writer) error {
	began := time.Now()
	dir, err := os.MkdirTemp("", "seckill-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rdb := redis.NewClient(&redis.Options{Addr: cfg.RedisAddr})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis at %s does not answer (make services starts it): %w", cfg.RedisAddr, err)
	}
	r := &runner{cfg: cfg, dir: dir, tag: strconv.Itoa(os.Getpid()), rdb: rdb, progress: progress}
	res := report.Results{Started: began.UTC(), Machine: machine.Describe(ctx, cfg.MySQLDSN, cfg.Wrk, rdb, began), Settings: settingsOf(cfg, 0)}
	if cfg.Wants("purchase") || cfg.Wants("drop") || cfg.Wants("soldout") || cfg.Wants("latency") || cfg.Wants("conns") ||
		cfg.Wants("scaleout") || cfg.Wants("pages") {
		if err := r.serverMeasures(ctx, &res); err != nil {
			return err
		}
	}
	if cfg.Wants("replica") {
		if err := r.replicaMeasure(ctx); err != nil {
			return err
		}
	}
	if cfg.Wants("persist") {
		if err := r.persistRounds(ctx, &res); err != nil {
			return err
		}
	}
	if cfg.Wants("pow") {
		if err := r.powMeasure(ctx, &res); err != nil {
			return err
		}
	}
	res.Finished, res.Machine.LoadEnd = time.Now().UTC(), machine.LoadAverage()
	res.Summary, res.Notes = report.Summarize(res), report.Notes(res)
	report.WriteReport(stdout, res)
	path, err := report.WriteJSON(cfg.ResultsDir, res)
	if err != nil {
		return err
	}
	r.logf("raw figures: %s; took %s", path, time.Since(began).Round(time.Second))
	if cfg.Docs != "" {
		return report.WriteDocs(cfg.Docs, res)
	}
	return nil
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.progress, "bench: "+format+"\n", args...)
}

// serverMeasures runs measures 1, the drop, 2, 7, 3, 5, 8 and 6 against
// processes started once: floor, ceiling and the seckill server (and, for
// measure 7, a second instance at times). Scale-out comes before latency so
// the runs that hold many connections, pages and many-connections, last,
// are the only ones after the peak RSS reading.
func (r *runner) serverMeasures(ctx context.Context, res *report.Results) error {
	if err := r.startSystems(ctx); err != nil {
		return err
	}
	defer r.stopSystems(ctx)
	n := r.cfg.ShopperRate * int(r.cfg.Duration.Round(time.Second)/time.Second+1)
	r.logf("minting %s shopper tokens", report.Thousands(float64(n)))
	var err error
	if r.shoppers, err = mintShoppers(r.seckill.secret, "shopper-", n, 6*time.Hour); err != nil {
		return err
	}
	res.Settings = settingsOf(r.cfg, n)
	if err := r.throughputRounds(ctx, res); err != nil {
		return err
	}
	if r.cfg.Wants("scaleout") {
		if err := r.scaleOutRounds(ctx, res); err != nil {
			return err
		}
	}
	if err := r.latencyAndConns(ctx, res); err != nil {
		return err
	}
	return nil
}

func (r *runner) startSystems(ctx context.Context) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r.script = filepath.Join(r.dir, "shoppers.lua")
	if err := os.WriteFile(r.script, []byte(shoppersLua), 0o644); err != nil {
		return err
	}
	r.logf("starting floor, ceiling and %s serve", r.cfg.Seckill)
	if r.floor, r.floorURL, err = r.startBaseline(ctx, self, "floor",
		"-redis", r.cfg.RedisAddr, "-key", "seckill-bench-"+r.tag+":floor:stock"); err != nil {
		return err
	}
	if r.ceiling, r.ceilingURL, err = r.startBaseline(ctx, self, "ceiling"); err != nil {
		return err
	}
	r.redisPID, r.mysqlPID = machine.RedisPID(ctx, r.rdb, r.cfg.RedisAddr), machine.MySQLPID(ctx, r.cfg.MySQLDSN)
	r.seckill, err = startSeckill(ctx, r.cfg, r.rdb, r.dir, r.tag)
	return err
}

func (r *runner) startBaseline(ctx context.Context, self, kind string, args ...string) (*harness.Proc, string, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, "", err
	}
	argv := append([]string{self, kind, "-addr", addr}, args...)
	c := harness.NewProc(kind, filepath.Join(r.dir, kind+".log"), os.Environ(), argv...)
	if err := c.Start(); err != nil {
		return nil, "", err
	}
	// The baselines answer no GET route: a connection accepted means ready.
	if err := c.WaitReady(ctx, 30*time.Second, harness.Listening(addr)); err != nil {
		c.Stop(5 * time.Second)
		return nil, "", err
	}
	return c, "http://" + addr, nil
}

func (r *runner) stopSystems(ctx context.Context) {
	for _, c := range []*harness.Proc{r.floor, r.ceiling} {
		if c != nil {
			c.Stop(10 * time.Second)
		}
	}
	if r.seckill != nil {
		r.seckill.close(ctx)
	}
}

// shopperFiles writes this sale's shopper files and returns their prefix;
// variant, if not nil, names the variant each shopper asks for.
func (r *runner) shopperFiles(name string, item int64, variant func(int) int64) (string, error) {
	prefix := filepath.Join(r.dir, name)
	return prefix, writeShopperFiles(prefix, r.shoppers, r.cfg.Threads, r.seckill.secret, item, time.Hour, variant)
}

func (r *runner) removeShopperFiles(prefix string) {
	for t := range r.cfg.Threads {
		os.Remove(prefix + "." + strconv.Itoa(t))
	}
}

// wrk runs the throughput generator at base+path, each request a shopper
// from the files at prefix; more are shoppers.lua's further arguments.
func (r *runner) wrk(ctx context.Context, base, path, prefix string, more ...string) (wrk.Result, error) {
	busy := machine.Settle(ctx)
	w, _, err := wrk.Cmd{Bin: r.cfg.Wrk, Threads: r.cfg.Threads, Connections: r.cfg.Connections,
		Duration: r.cfg.Duration, Script: r.script, Args: append([]string{prefix, path}, more...), URL: base}.Run(ctx)
	w.BusyBefore = busy
	return w, err
}

// errExhausted stops a run that sent more purchases than it had shoppers:
// the repeats would be counted as new shoppers.
var errExhausted = errors.New("runner: the shopper list ran out")

func itemPath(item int64) string { return "/api/v1/items/" + strconv.FormatInt(item, 10) }

// settingsOf is the knobs of cfg the figures depend on, for the report.
func settingsOf(c Config, shoppers int) report.Settings {
	s := report.Settings{Rounds: c.Rounds, Duration: c.Duration.String(), Threads: c.Threads, Connections: c.Connections,
		Shoppers: shoppers, LatencyFor: c.LatencyFor.String(), PersistOrders: c.PersistOrders,
		ManyConns: c.ManyConns, ManyConnsFor: c.ManyConnsFor.String(), SeckillEnv: seckillEnv}
	if c.Wants("drop") {
		s.DropDemand = dropMix(len(dropSizes))
	}
	if c.Wants("pages") {
		s.HeldPages, s.HeldFor, s.FollowShoppers, s.FollowSpread = c.HeldPages, c.HeldFor.String(), c.Followers, followSpread.String()
	}
	return s
}
