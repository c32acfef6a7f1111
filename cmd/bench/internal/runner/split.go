package runner

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/seckill/seckill/cmd/bench/internal/machine"
	"github.com/seckill/seckill/cmd/bench/internal/report"
	"github.com/seckill/seckill/cmd/bench/internal/wrk"
)

// shoppersIn is how many of n shoppers the files of part p hold, file t
// holding every threads-th shopper from t (see writeShopperFiles): more
// purchases than that at one instance means its wrk went round its list
// again.
func shoppersIn(n, threads int, p wrk.Part) int64 {
	var sum int64
	for t := p.First; t < p.First+p.Threads && t < n; t++ {
		sum += int64((n - t + threads - 1) / threads)
	}
	return sum
}

// wrkAcross runs one wrk per url at the same time, each with its part of
// the configured threads and connections and its own shopper files, and
// returns their results and the share of all cores busy meanwhile. wrk has
// no multi-host mode, and one wrk per instance is what a load balancer
// splitting connections evenly would give each.
func (r *runner) wrkAcross(ctx context.Context, urls []string, path, prefix string) ([]wrk.Result, float64, error) {
	busy := machine.Settle(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, errs := make([]wrk.Result, len(urls)), make([]error, len(urls))
	b0, t0, _ := machine.CPU()
	var wg sync.WaitGroup
	for i, p := range wrk.Split(r.cfg.Threads, r.cfg.Connections, len(urls)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], _, errs[i] = wrk.Cmd{Bin: r.cfg.Wrk, Threads: p.Threads, Connections: p.Connections,
				Duration: r.cfg.Duration, Script: r.script, Args: []string{prefix, path, strconv.Itoa(p.First)},
				URL: urls[i]}.Run(ctx)
			out[i].BusyBefore = busy
			if errs[i] != nil {
				cancel() // the other half alone would measure nothing
			}
		}()
	}
	wg.Wait()
	b1, t1, _ := machine.CPU()
	return out, report.Ratio(float64(b1-b0), float64(t1-t0)), errors.Join(errs...)
}

// meter is a cpuMeter of servers (the system under test: seckill
// instances, or a baseline) beside this machine's Redis and MySQL.
func (r *runner) meter(servers ...int) cpuMeter {
	return cpuMeter{servers: servers, redis: r.redisPID, mysql: r.mysqlPID}
}

// cpuMeter reads the CPU time of the parts of the system under load. A pid
// of 0 (Redis or MySQL on another machine) reads as 0.
type cpuMeter struct {
	servers      []int
	redis, mysql int
}

func (m cpuMeter) read() (report.CPUSpent, error) {
	var c report.CPUSpent
	for _, pid := range m.servers {
		s, err := machine.CPUSeconds(pid)
		if err != nil {
			return c, err
		}
		c.Servers += s
	}
	// The services are not ours: if one cannot be read its share stays 0
	// rather than failing the run.
	if m.redis != 0 {
		c.Redis, _ = machine.CPUSeconds(m.redis)
	}
	if m.mysql != 0 {
		c.MySQL, _ = machine.CPUSeconds(m.mysql)
	}
	busy, _, err := machine.CPU()
	c.Machine = float64(busy) / machine.UserHZ
	return c, err
}

// spent runs f and returns the CPU seconds each part spent meanwhile.
func (m cpuMeter) spent(f func() error) (report.CPUSpent, error) {
	c0, err := m.read()
	if err != nil {
		return report.CPUSpent{}, err
	}
	if err := f(); err != nil {
		return report.CPUSpent{}, err
	}
	c1, err := m.read()
	return report.CPUSpent{Servers: c1.Servers - c0.Servers, Redis: c1.Redis - c0.Redis, MySQL: c1.MySQL - c0.MySQL,
		Machine: c1.Machine - c0.Machine}, err
}
