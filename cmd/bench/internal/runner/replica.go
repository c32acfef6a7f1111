package runner

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
	"github.com/seckill/seckill/internal/harness"
)

// replicaMode is one side of the replica measure: the primary alone; with a
// replica attached that the server does not wait for (asynchronous, as
// before SECKILL_REDIS_MIN_REPLICAS); or with one it waits for. On one
// machine the replica's own CPU is part of the second's cost; the third's
// extra over the second is what the guarantee costs.
type replicaMode struct {
	name     string
	attached bool
	wait     int
}

var replicaModes = []replicaMode{{"alone", false, 0}, {"async", true, 0}, {"wait", true, 1}}

// replicaPair is a private primary and replica, so attaching and detaching
// the replica disturbs no other measure's Redis.
type replicaPair struct {
	primary, replica       *harness.Proc
	primaryAddr, replAddr  string
	primaryRdb, replicaRdb *redis.Client
}

// replicaRounds runs the replica measure: per round, the purchase workload
// against one server on a private primary in each replicaMode; it logs
// each run and the medians' ratios.
func (r *runner) replicaRounds(ctx context.Context) error {
	pair, err := startReplicaPair(ctx, r.dir)
	if err != nil {
		return err
	}
	defer pair.stop()
	cfg := r.cfg
	cfg.RedisAddr = pair.primaryAddr
	s, err := startSeckill(ctx, cfg, pair.primaryRdb, r.dir, r.tag+"r")
	if err != nil {
		return err
	}
	defer s.close(ctx)
	n := r.cfg.ShopperRate * int(r.cfg.Duration.Round(time.Second)/time.Second+1)
	shoppers, err := mintShoppers(s.secret, "replica-shopper-", n, 6*time.Hour)
	if err != nil {
		return err
	}
	results := map[string][]replicaSample{}
	base := s.env
	for round := 1; round <= r.cfg.Rounds; round++ {
		// Each round starts with another mode, so a drift of the machine
		// does not favour one.
		for i := range replicaModes {
			m := replicaModes[(i+round)%len(replicaModes)]
			s.env = append(slices.Clone(base), "SECKILL_REDIS_MIN_REPLICAS="+strconv.Itoa(m.wait))
			smp, err := r.replicaRun(ctx, pair, s, shoppers, m, round)
			if err != nil {
				return fmt.Errorf("replica round %d, %s: %w", round, m.name, err)
			}
			results[m.name] = append(results[m.name], smp)
			r.logf("round %d replica, %s: %.0f purchases/s, p99 %.1f ms, %d not 2xx; CPU ms per purchase: seckill %.3f, "+
				"primary %.3f, replica %.3f", round, m.name, smp.rps(), smp.w.P99ms, smp.w.Non2xx, smp.perPurchase(smp.cpu.Servers),
				smp.perPurchase(smp.cpu.Redis), smp.perPurchase(smp.replicaCPU))
		}
	}
	rps := func(s replicaSample) float64 { return s.rps() }
	p99 := func(s replicaSample) float64 { return s.w.P99ms }
	cpu := func(s replicaSample) float64 { return s.perPurchase(s.cpu.Servers + s.cpu.Redis) }
	alone, async, waited := results["alone"], results["async"], results["wait"]
	r.logf("replica measure (medians of %d rounds): alone %.0f purchases/s p99 %.1f ms; replica not waited for %.0f/s p99 %.1f ms; "+
		"replica waited for %.0f/s p99 %.1f ms; throughput wait ÷ async %.2f (median of the rounds' ratios %.2f), wait ÷ alone %.2f; "+
		"seckill+primary CPU ms per purchase: alone %.3f, async %.3f, wait %.3f",
		r.cfg.Rounds, median(alone, rps), median(alone, p99), median(async, rps), median(async, p99), median(waited, rps),
		median(waited, p99), median(waited, rps)/median(async, rps), medianRatio(waited, async), median(waited, rps)/median(alone, rps),
		median(alone, cpu), median(async, cpu), median(waited, cpu))
	return nil
}

// replicaRun sets the pair up for m, restarts the server with its
// settings, and runs wrk at a fresh sale that cannot sell out.
func (r *runner) replicaRun(ctx context.Context, pair *replicaPair, s *seckillServer, shoppers []shopper, m replicaMode, round int) (replicaSample, error) {
	var smp replicaSample
	if err := pair.attach(ctx, m.attached); err != nil {
		return smp, err
	}
	s.Stop(20 * time.Second)
	if err := s.spawn(ctx, filepath.Join(r.dir, fmt.Sprintf("seckill-replica-%s-%d.log", m.name, round))); err != nil {
		return smp, err
	}
	item, err := s.createSale(ctx, fmt.Sprintf("bench replica %s %d", m.name, round), maxStock)
	if err != nil {
		return smp, err
	}
	prefix := filepath.Join(r.dir, fmt.Sprintf("replica-%s-%d", m.name, round))
	defer r.removeShopperFiles(prefix)
	if err := writeShopperFiles(prefix, shoppers, r.cfg.Threads, s.secret, item, time.Hour, nil); err != nil {
		return smp, err
	}
	// CPU from the start of the run until its orders are in MySQL, as the
	// purchase measure counts it: persisting them is part of the work.
	meter, replica := cpuMeter{servers: []int{s.Pid()}, redis: pair.primary.Pid()}, cpuMeter{servers: []int{pair.replica.Pid()}}
	r0, _ := replica.read()
	smp.cpu, err = meter.spent(func() error {
		var err error
		smp.w, _, err = wrk.Cmd{Bin: r.cfg.Wrk, Threads: r.cfg.Threads, Connections: r.cfg.Connections, Duration: r.cfg.Duration,
			Latency: true, Script: r.script, Args: []string{prefix, itemPath(item) + "/purchase"}, URL: s.url}.Run(ctx)
		if err != nil {
			return err
		}
		_, err = s.waitDrained(ctx, 5*time.Minute)
		return err
	})
	r1, _ := replica.read()
	smp.replicaCPU = r1.Servers - r0.Servers
	return smp, err
}

// replicaSample is one run of the replica measure.
type replicaSample struct {
	w          wrk.Result
	cpu        report.CPUSpent // Servers: seckill; Redis: the primary
	replicaCPU float64
}

// rps is purchases answered 2xx per second: a 503 replication_timeout is
// quick and sells nothing, and must not count as throughput.
func (s replicaSample) rps() float64 {
	if s.w.Seconds <= 0 {
		return 0
	}
	return float64(s.w.Requests-s.w.Non2xx) / s.w.Seconds
}

// perPurchase is cpu seconds as milliseconds per purchase answered 2xx.
func (s replicaSample) perPurchase(cpu float64) float64 {
	if n := s.w.Requests - s.w.Non2xx; n > 0 {
		return cpu * 1000 / float64(n)
	}
	return 0
}

// median is the median of f over runs.
func median(runs []replicaSample, f func(replicaSample) float64) float64 {
	v := make([]float64, len(runs))
	for i, w := range runs {
		v[i] = f(w)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// medianRatio is the median over rounds of a's throughput over b's in the
// same round: a drift of the machine between rounds cancels out.
func medianRatio(a, b []replicaSample) float64 {
	v := make([]float64, len(a))
	for i := range a {
		v[i] = a[i].rps() / b[i].rps()
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func startReplicaPair(ctx context.Context, dir string) (*replicaPair, error) {
	p := &replicaPair{}
	var err error
	if p.primary, p.primaryAddr, err = startRedisServer(ctx, dir, "primary"); err != nil {
		return nil, err
	}
	if p.replica, p.replAddr, err = startRedisServer(ctx, dir, "replica"); err != nil {
		p.primary.Stop(5 * time.Second)
		return nil, err
	}
	p.primaryRdb = redis.NewClient(&redis.Options{Addr: p.primaryAddr})
	p.replicaRdb = redis.NewClient(&redis.Options{Addr: p.replAddr})
	return p, nil
}

// startRedisServer starts a redis-server like the benchmark's own Redis (no
// append-only file) on a free port.
func startRedisServer(ctx context.Context, dir, name string) (*harness.Proc, string, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, "", err
	}
	_, port, _ := net.SplitHostPort(addr)
	data := filepath.Join(dir, "redis-"+name)
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, "", err
	}
	p := harness.NewProc("redis-"+name, filepath.Join(dir, "redis-"+name+".log"), os.Environ(), "redis-server",
		"--port", port, "--bind", "127.0.0.1", "--dir", data, "--save", "", "--appendonly", "no",
		"--repl-diskless-sync-delay", "0")
	if err := p.Start(); err != nil {
		return nil, "", err
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	if err := p.WaitReady(ctx, 30*time.Second, func(ctx context.Context) error { return c.Ping(ctx).Err() }); err != nil {
		p.Stop(5 * time.Second)
		return nil, "", err
	}
	return p, addr, nil
}

// attach makes the replica follow the primary and waits until a write on
// the primary reaches it, or detaches it.
func (p *replicaPair) attach(ctx context.Context, on bool) error {
	if !on {
		return p.replicaRdb.SlaveOf(ctx, "NO", "ONE").Err()
	}
	host, port, _ := net.SplitHostPort(p.primaryAddr)
	if err := p.replicaRdb.SlaveOf(ctx, host, port).Err(); err != nil {
		return err
	}
	return harness.Poll(ctx, time.Minute, 50*time.Millisecond, func() error {
		c := p.primaryRdb.Conn()
		defer c.Close()
		if err := c.Set(ctx, "seckill-bench-replica-probe", "1", time.Minute).Err(); err != nil {
			return err
		}
		if n, err := c.Wait(ctx, 1, 100*time.Millisecond).Result(); err != nil || n < 1 {
			return fmt.Errorf("replica not in sync yet (%d, %v)", n, err)
		}
		return nil
	})
}

func (p *replicaPair) stop() {
	p.primaryRdb.Close()
	p.replicaRdb.Close()
	p.replica.Stop(10 * time.Second)
	p.primary.Stop(10 * time.Second)
}

// replicaMeasure runs the replica measure on its own: it needs the wrk
// script the server measures write.
func (r *runner) replicaMeasure(ctx context.Context) error {
	r.script = filepath.Join(r.dir, "shoppers.lua")
	if err := os.WriteFile(r.script, []byte(shoppersLua), 0o644); err != nil {
		return err
	}
	return r.replicaRounds(ctx)
}
