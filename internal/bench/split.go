package bench

import (
	"context"
	"errors"
	"strconv"
	"sync"
)

// wrkPart is one wrk process's share of a run split across instances.
type wrkPart struct {
	threads, connections int
	first                int // the shopper file of its first thread
}

// splitLoad divides threads and connections between n wrk processes, the
// first ones taking any remainder. Part i reads the shopper files after
// part i-1's, so together the parts send exactly the shoppers one wrk with
// every thread sends, none of them twice. It needs threads >= n.
func splitLoad(threads, connections, n int) []wrkPart {
	parts := make([]wrkPart, n)
	first := 0
	for i := range parts {
		t, c := threads/n, connections/n
		if i < threads%n {
			t++
		}
		if i < connections%n {
			c++
		}
		parts[i] = wrkPart{threads: t, connections: c, first: first}
		first += t
	}
	return parts
}

// shoppersIn is how many of n shoppers the files of part p hold, file t
// holding every threads-th shopper from t (see writeShopperFiles): more
// purchases than that at one instance means its wrk went round its list
// again.
func shoppersIn(n, threads int, p wrkPart) int64 {
	var sum int64
	for t := p.first; t < p.first+p.threads && t < n; t++ {
		sum += int64((n - t + threads - 1) / threads)
	}
	return sum
}

// wrkAcross runs one wrk per url at the same time, each with its part of
// the configured threads and connections and its own shopper files, and
// returns their results and the share of all cores busy meanwhile. wrk has
// no multi-host mode, and one wrk per instance is what a load balancer
// splitting connections evenly would give each.
func (r *runner) wrkAcross(ctx context.Context, urls []string, path, prefix string) ([]WrkResult, float64, error) {
	busy := settle(ctx, settleLimit)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, errs := make([]WrkResult, len(urls)), make([]error, len(urls))
	b0, t0, _ := machineCPU()
	var wg sync.WaitGroup
	for i, p := range splitLoad(r.cfg.Threads, r.cfg.Connections, len(urls)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], _, errs[i] = wrkRun{bin: r.cfg.Wrk, threads: p.threads, connections: p.connections,
				duration: r.cfg.Duration, script: r.script, args: []string{prefix, path, strconv.Itoa(p.first)},
				url: urls[i]}.run(ctx)
			out[i].BusyBefore = busy
			if errs[i] != nil {
				cancel() // the other half alone would measure nothing
			}
		}()
	}
	wg.Wait()
	b1, t1, _ := machineCPU()
	return out, ratio(float64(b1-b0), float64(t1-t0)), errors.Join(errs...)
}

// cpuMeter reads the CPU time of the parts of the system under load. A pid
// of 0 (Redis or MySQL on another machine) reads as 0.
type cpuMeter struct {
	servers      []int
	redis, mysql int
}

func (m cpuMeter) read() (CPUSpent, error) {
	var c CPUSpent
	for _, pid := range m.servers {
		s, err := cpuSeconds(pid)
		if err != nil {
			return c, err
		}
		c.Servers += s
	}
	// The services are not ours: if one cannot be read its share stays 0
	// rather than failing the run.
	if m.redis != 0 {
		c.Redis, _ = cpuSeconds(m.redis)
	}
	if m.mysql != 0 {
		c.MySQL, _ = cpuSeconds(m.mysql)
	}
	busy, _, err := machineCPU()
	c.Machine = float64(busy) / userHZ
	return c, err
}

// spent runs f and returns the CPU seconds each part spent meanwhile.
func (m cpuMeter) spent(f func() error) (CPUSpent, error) {
	c0, err := m.read()
	if err != nil {
		return CPUSpent{}, err
	}
	if err := f(); err != nil {
		return CPUSpent{}, err
	}
	c1, err := m.read()
	return CPUSpent{Servers: c1.Servers - c0.Servers, Redis: c1.Redis - c0.Redis, MySQL: c1.MySQL - c0.MySQL,
		Machine: c1.Machine - c0.Machine}, err
}

// per1000 is c per 1,000 answers.
func (c CPUSpent) per1000(n int64) CPUSpent {
	return CPUSpent{Servers: per1000(c.Servers, n), Redis: per1000(c.Redis, n), MySQL: per1000(c.MySQL, n),
		Wrk: per1000(c.Wrk, n), Machine: per1000(c.Machine, n)}
}
