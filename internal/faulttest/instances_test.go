package faulttest_test

import (
	"context"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/faulttest"
)

// TestThreeInstances runs three server processes on one database and one
// Redis Cluster, as three instances behind a load balancer, and spreads a
// storm over them. Every invariant holds; each instance's stream workers
// persist a share of the orders (the consumer group splits the work); and
// the singleton sweeper, ticking every 200 ms on all three, runs once per
// period in the whole fleet, not once per instance.
func TestThreeInstances(t *testing.T) {
	const sweepEvery = 200 * time.Millisecond
	s := faulttest.NewSetup(t, env)
	s.Extra = []string{"SECKILL_SWEEP_INTERVAL=" + sweepEvery.String()}
	red := env.Redises()[1].Redis
	var servers []*faulttest.Server
	var urls []string
	for _, name := range []string{"server-a", "server-b", "server-c"} {
		srv := faulttest.StartServer(t, s, name, red)
		servers, urls = append(servers, srv), append(urls, srv.URL)
	}
	began := time.Now()
	db := s.OpenDB(t)
	id := servers[0].API.CreateSale(t, 1500, 2)
	cfg := faulttest.StormConfig{ItemID: id, Shoppers: 1200, Requests: 3000, Workers: 32, Rate: 1000,
		MaxQty: 2, Secret: s.JWTSecret, Seed: 9}
	res := faulttest.StartStorm(t, cfg, faulttest.NewTargets(urls...)).Wait()
	logStorm(t, cfg, res)
	rep := faulttest.Verify(t, db, servers[0].API, id, res)

	var persisted, sweeps float64
	for _, srv := range servers {
		p := metric(t, srv, "seckill_orders_persisted_total")
		n := metric(t, srv, `seckill_job_runs_total{job="sweeper"}`)
		t.Logf("%s persisted %v orders and ran the sweeper %v times", srv.Name(), p, n)
		if p == 0 {
			t.Errorf("%s persisted nothing: the consumer group did not split the work", srv.Name())
		}
		persisted, sweeps = persisted+p, sweeps+n
	}
	if int(persisted) != rep.Rows {
		t.Errorf("the instances persisted %v orders in all, MySQL holds %d", persisted, rep.Rows)
	}
	periods := time.Since(began).Seconds() / sweepEvery.Seconds()
	t.Logf("sweeper: %v runs in %.0f periods of %v on 3 instances", sweeps, periods, sweepEvery)
	if sweeps < 1 || sweeps > periods+2 {
		t.Errorf("the sweeper ran %v times in %.0f periods: want at most one run per period in all", sweeps, periods)
	}
}

// metric reads a sample of the server's /metrics, 0 if it has none yet.
func metric(t *testing.T, srv *faulttest.Server, name string) float64 {
	t.Helper()
	v, err := srv.API.Metric(context.Background(), name)
	if err != nil {
		t.Logf("%s: %v", srv.Name(), err)
	}
	return v
}
