package ops

import (
	"context"
	"net"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/testenv"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestServersOnOneHostHaveTheirOwnConsumers: two servers in one process on
// one host read a sale's stream under names of their own, hostname:port and
// the worker's index, so neither ever takes the other's entries for its own
// at start; the name holds nothing that changes on a restart (no pid).
func TestServersOnOneHostHaveTheirOwnConsumers(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	a := e2etest.Start(t, clk)
	b := a.Twin(t, clk)
	id := a.Sale(t, 10, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	host, _ := os.Hostname()
	var want []string
	for _, s := range []*e2etest.Server{a, b} {
		_, port, _ := net.SplitHostPort(s.Addr)
		want = append(want, net.JoinHostPort(host, port)+"/0", net.JoinHostPort(host, port)+"/1")
	}
	sort.Strings(want)

	ctx := context.Background()
	rdb, err := redisconn.Open(ctx, a.Cfg.Redis, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	stream := keyspace.New(a.Cfg.RedisPrefix).Item(id).Stream()
	var got []string
	ok := testenv.Eventually(10*time.Second, func() bool {
		got = got[:0]
		cs, err := rdb.XInfoConsumers(ctx, stream, keyspace.Group).Result()
		for _, c := range cs {
			got = append(got, c.Name)
		}
		sort.Strings(got)
		return err == nil && reflect.DeepEqual(got, want)
	})
	if !ok {
		t.Fatalf("consumers of the sale's stream: %q, want %q", got, want)
	}
}
