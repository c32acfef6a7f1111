package fault

import (
	"context"
	"testing"
	"time"
)

// TestThreeInstances runs three server processes on one database and one
// Redis Cluster, as three instances behind a load balancer, and spreads a
// storm over them. Every invariant holds; each instance's stream workers
// persist a share of the orders (the consumer group splits the work); and
// the singleton jobs, the sweeper and the reconciliation, ticking on all
// three, run at most once per period in the whole fleet, not once per
// instance.
func TestThreeInstances(t *testing.T) {
	jobs := map[string]time.Duration{"sweeper": 200 * time.Millisecond, "reconcile": 300 * time.Millisecond}
	s := NewSetup(t, env)
	s.Extra = []string{"SECKILL_SWEEP_INTERVAL=" + jobs["sweeper"].String(), "SECKILL_RECONCILE_INTERVAL=" + jobs["reconcile"].String()}
	red := env.Redises()[1].Redis
	began := time.Now() // before the first server: its runs while the others start count too
	var servers []*Server
	var urls []string
	for _, name := range []string{"server-a", "server-b", "server-c"} {
		srv := StartServer(t, s, name, red)
		servers, urls = append(servers, srv), append(urls, srv.URL)
	}
	db := s.OpenDB(t)
	id := createSale(t, servers[0].API, 1500, 2)
	cfg := StormConfig{ItemID: id, Shoppers: 1200, Requests: 3000, Workers: 32, Rate: 1000,
		MaxQty: 2, Secret: s.JWTSecret, Seed: 9}
	res := StartStorm(t, cfg, NewTargets(urls...)).Wait()
	logStorm(t, cfg, res)
	rep := Verify(t, db, servers[0].API, id, res)

	var persisted float64
	runs := map[string]float64{}
	for _, srv := range servers {
		p := metric(t, srv, "seckill_orders_persisted_total")
		t.Logf("%s persisted %v orders", srv.Name(), p)
		if p == 0 {
			t.Errorf("%s persisted nothing: the consumer group did not split the work", srv.Name())
		}
		persisted += p
		for job := range jobs {
			runs[job] += metric(t, srv, `seckill_job_runs_total{job="`+job+`"}`)
		}
	}
	if int(persisted) != rep.Rows {
		t.Errorf("the instances persisted %v orders in all, MySQL holds %d", persisted, rep.Rows)
	}
	elapsed := time.Since(began)
	for job, every := range jobs {
		// +1: the period under way when the clock started and the one now.
		periods := elapsed.Seconds()/every.Seconds() + 1
		t.Logf("%s: %v runs in %.1f periods of %v on 3 instances", job, runs[job], periods, every)
		if runs[job] < 1 || runs[job] > periods+1 {
			t.Errorf("%s ran %v times in %.1f periods: want at most one run per period in all", job, runs[job], periods)
		}
	}
}

// metric reads a sample of the server's /metrics, 0 if it has none yet.
func metric(t *testing.T, srv *Server, name string) float64 {
	t.Helper()
	v, err := metricOf(context.Background(), srv.API, name)
	if err != nil {
		t.Logf("%s: %v", srv.Name(), err)
	}
	return v
}
