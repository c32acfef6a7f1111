package stock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/redisconn"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

// pair is a private primary and its replica.
type pair struct {
	primary, replica *redis.Client
	primaryAddr      string
}

func newPair(tb testing.TB) pair {
	tb.Helper()
	addr := testenv.PrivateRedis(tb, "--repl-diskless-sync-delay", "0")
	host, port, _ := strings.Cut(addr, ":")
	p := pair{primary: redis.NewClient(&redis.Options{Addr: addr}), primaryAddr: addr,
		replica: redis.NewClient(&redis.Options{Addr: testenv.PrivateRedis(tb, "--replicaof", host, port)})}
	tb.Cleanup(func() { p.primary.Close(); p.replica.Close() })
	p.waitReplicas(tb, 1)
	return p
}

// waitReplicas waits until the primary counts n replicas.
func (p pair) waitReplicas(tb testing.TB, n int) {
	tb.Helper()
	ctx := context.Background()
	testenv.WaitFor(tb, 10*time.Second, func() bool {
		got, err := redisconn.Replicas(ctx, p.primary)
		info := p.replica.Info(ctx, "replication").Val()
		synced := strings.Contains(info, "master_link_status:up")
		return err == nil && got == n && synced == (n > 0)
	}, "primary never counted %d replicas in sync", n)
}

// cut stops the replica replicating: the primary then has none.
func (p pair) cut(tb testing.TB) {
	tb.Helper()
	if err := p.replica.SlaveOf(context.Background(), "NO", "ONE").Err(); err != nil {
		tb.Fatal(err)
	}
	p.waitReplicas(tb, 0)
}

// reattach makes the replica follow the primary again.
func (p pair) reattach(tb testing.TB) {
	tb.Helper()
	host, port, _ := strings.Cut(p.primaryAddr, ":")
	if err := p.replica.SlaveOf(context.Background(), host, port).Err(); err != nil {
		tb.Fatal(err)
	}
	p.waitReplicas(tb, 1)
}

func TestReplicasCounted(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	p.cut(t) // waits for 0
	p.reattach(t)
}

// A reservation is acknowledged only once the replica has it: cut off, its
// answer (new, replayed, or already purchased) is ErrReplicationTimeout and
// the retry with the same key finds the order once the replica is back.
// Refusals are answered as ever.
func TestReserveWaitsForReplica(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	keys := keyspace.New("durable")
	s := stock.NewStore(p.primary, keys)
	s.SetDurability(stock.Durability{MinReplicas: 1, Timeout: 50 * time.Millisecond})
	warm(t, s, 1, sale(2, 1))
	ctx, open := context.Background(), t0.Add(time.Minute)
	keyed := func(user, key string) stock.Request { r := req(user, 1, open); r.IdempotencyKey = key; return r }

	if res, err := s.Reserve(ctx, keyed("u1", "k1")); err != nil || res.OrderID != "order-u1" {
		t.Fatalf("with the replica attached: %+v, %v", res, err)
	}
	if v, err := p.replica.HGet(ctx, keys.Item(1).Buyers(), "u1").Result(); err != nil || !strings.HasPrefix(v, "order-u1:") {
		t.Fatalf("replica's buyer of u1 right after the answer = %q, %v", v, err)
	}

	p.cut(t)
	for name, r := range map[string]stock.Request{"new": keyed("u2", "k2"), "replay": keyed("u1", "k1"), "already": req("u1", 1, open)} {
		if _, err := s.Reserve(ctx, r); !errors.Is(err, stock.ErrReplicationTimeout) {
			t.Errorf("%s without a replica: err = %v, want ErrReplicationTimeout", name, err)
		}
	}
	// u2's unit was taken on the primary: the sale is sold out there, and
	// a refusal promises nothing, so it needs no replica.
	if _, err := s.Reserve(ctx, keyed("u3", "k3")); !errors.Is(err, stock.ErrSoldOut) {
		t.Errorf("sold out without a replica: err = %v, want ErrSoldOut", err)
	}

	p.reattach(t)
	res, err := s.Reserve(ctx, keyed("u2", "k2"))
	if err != nil || !res.Replayed || res.OrderID != "order-u2" {
		t.Fatalf("retry once the replica is back: %+v, %v; want the replayed order-u2", res, err)
	}
}

// Off (the default), the store acknowledges what the primary holds, with
// or without replicas.
func TestReserveWithoutDurability(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	s := stock.NewStore(p.primary, keyspace.New("nodurable"))
	warm(t, s, 1, sale(2, 1))
	p.cut(t)
	if _, err := s.Reserve(context.Background(), req("u1", 1, t0.Add(time.Minute))); err != nil {
		t.Fatalf("reserve: %v", err)
	}
}
