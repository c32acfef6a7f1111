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

func newPair(tb testing.TB, replicaArgs ...string) pair {
	tb.Helper()
	addr := testenv.PrivateRedis(tb, "--repl-diskless-sync-delay", "0")
	host, port, _ := strings.Cut(addr, ":")
	replicaArgs = append([]string{"--replicaof", host, port}, replicaArgs...)
	p := pair{primary: redis.NewClient(&redis.Options{Addr: addr}), primaryAddr: addr,
		replica: redis.NewClient(&redis.Options{Addr: testenv.PrivateRedis(tb, replicaArgs...)})}
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
		return err == nil && got == n && (n == 0 || p.acks(ctx))
	}, "primary never counted %d replicas in sync", n)
}

// acks reports whether a write on the primary reaches its replica: after
// a resync, the primary streams to it only once it has acknowledged.
func (p pair) acks(ctx context.Context) bool {
	c := p.primary.Conn()
	defer c.Close()
	if err := c.Set(ctx, "durable:probe", "1", 0).Err(); err != nil {
		return false
	}
	n, err := c.Wait(ctx, 1, 100*time.Millisecond).Result()
	return err == nil && n == 1
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

// A reservation is acknowledged only once the replica has it: cut off, an
// answer that names an order (new, replayed, or already purchased) is
// ErrReplicationTimeout, a refusal stands, a primary known to lack its
// replica takes no stock, and the retry with the same key finds the order
// once the replica is back.
func TestReserveWaitsForReplica(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	keys := keyspace.New("durable")
	durable := func() *stock.Store {
		s := stock.NewStore(p.primary, keys)
		s.SetDurability(stock.Durability{MinReplicas: 1, Timeout: 50 * time.Millisecond})
		return s
	}
	s := durable()
	warm(t, s, 1, sale(3, 1))
	ctx, open := context.Background(), t0.Add(time.Minute)
	keyed := func(user, key string) stock.Request { r := req(user, 1, open); r.IdempotencyKey = key; return r }

	if res, err := s.Reserve(ctx, keyed("u1", "k1")); err != nil || res.OrderID != "order-u1" {
		t.Fatalf("with the replica attached: %+v, %v", res, err)
	}
	if v, err := p.replica.HGet(ctx, keys.Item(1).Buyers(), "u1").Result(); err != nil || !strings.HasPrefix(v, "order-u1:") {
		t.Fatalf("replica's buyer of u1 right after the answer = %q, %v", v, err)
	}

	p.cut(t)
	cases := []struct {
		name string
		req  stock.Request
		want error
	}{
		{"replay", keyed("u1", "k1"), stock.ErrReplicationTimeout},
		{"already", req("u1", 1, open), stock.ErrReplicationTimeout},
		{"refusal", req("u9", 1, t0.Add(-time.Millisecond)), stock.ErrNotStarted},
		{"new", keyed("u2", "k2"), stock.ErrReplicationTimeout},
	}
	for _, c := range cases {
		s = durable() // one that has not seen the replica missing yet
		if _, err := s.Reserve(ctx, c.req); !errors.Is(err, c.want) {
			t.Errorf("%s without a replica: err = %v, want %v", c.name, err, c.want)
		}
	}
	// s saw its WAIT fall short and the replica is still gone: it runs no
	// script, so u3 takes nothing.
	if _, err := s.Reserve(ctx, keyed("u3", "k3")); !errors.Is(err, stock.ErrReplicationTimeout) {
		t.Errorf("u3 on a primary known short of replicas: err = %v, want ErrReplicationTimeout", err)
	}
	if lv, err := s.Levels(ctx, []int64{1}); err != nil || lv[1].Total != 1 {
		t.Errorf("stock after u1 and u2 = %+v, %v; want 1 (u3 took nothing)", lv, err)
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

// A persister's batch may have been read from a primary that died since:
// the entries the primary the WAIT ran on lacks were never acknowledged and
// are left out, and a primary without its replica holds the batch back.
func TestReplicatedEntriesDropsEntriesThePrimaryLacks(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	keys := keyspace.New("durentries")
	s := stock.NewStore(p.primary, keys)
	s.SetDurability(stock.Durability{MinReplicas: 1, Timeout: 50 * time.Millisecond})
	warm(t, s, 1, sale(3, 1))
	ctx := context.Background()
	if _, err := s.Reserve(ctx, req("u1", 1, t0.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	msgs, err := p.primary.XRange(ctx, keys.Item(1).Stream(), "-", "+").Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("stream = %v, %v; want one entry", msgs, err)
	}
	onPrimary := keyspace.Entry{StreamID: msgs[0].ID, ItemID: 1, UserID: "u1"}
	fromOldPrimary := keyspace.Entry{StreamID: "1-1", ItemID: 1, UserID: "u9"}

	kept, err := s.ReplicatedEntries(ctx, []keyspace.Entry{fromOldPrimary, onPrimary})
	if err != nil || len(kept) != 1 || kept[0].StreamID != onPrimary.StreamID {
		t.Fatalf("ReplicatedEntries = %+v, %v; want only %s", kept, err, onPrimary.StreamID)
	}
	p.cut(t)
	if _, err := s.ReplicatedEntries(ctx, []keyspace.Entry{onPrimary}); !errors.Is(err, stock.ErrReplicationTimeout) {
		t.Fatalf("without the replica: err = %v, want ErrReplicationTimeout", err)
	}
}

// A stalled replica stays connected (until repl-timeout): once a WAIT fell
// short, the next batch must not take stock on the strength of
// connected_slaves, and once the replica answers again the sale sells.
func TestStalledReplicaTakesNoStock(t *testing.T) {
	t.Parallel()
	p := newPair(t, "--enable-debug-command", "yes")
	keys := keyspace.New("durstall")
	s := stock.NewStore(p.primary, keys)
	s.SetDurability(stock.Durability{MinReplicas: 1, Timeout: 50 * time.Millisecond})
	warm(t, s, 1, sale(3, 1))
	ctx, open := context.Background(), t0.Add(time.Minute)

	asleep := make(chan error, 1)
	go func() { asleep <- p.replica.Do(ctx, "debug", "sleep", "3").Err() }()
	probe := redis.NewClient(&redis.Options{Addr: p.replica.Options().Addr, ReadTimeout: 50 * time.Millisecond, MaxRetries: -1})
	defer probe.Close()
	testenv.WaitFor(t, 5*time.Second, func() bool { return probe.Ping(ctx).Err() != nil }, "replica never stalled")

	if _, err := s.Reserve(ctx, req("u1", 1, open)); !errors.Is(err, stock.ErrReplicationTimeout) {
		t.Fatalf("u1 with the replica stalled: err = %v, want ErrReplicationTimeout", err)
	}
	if _, err := s.Reserve(ctx, req("u2", 1, open)); !errors.Is(err, stock.ErrReplicationTimeout) {
		t.Fatalf("u2 with the replica stalled: err = %v, want ErrReplicationTimeout", err)
	}
	if lv, err := s.Levels(ctx, []int64{1}); err != nil || lv[1].Total != 2 {
		t.Errorf("stock after u1 and u2 = %+v, %v; want 2 (u2 took nothing)", lv, err)
	}
	if err := <-asleep; err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, func() bool {
		_, err := s.Reserve(ctx, req("u3", 1, open))
		return err == nil
	}, "the sale never sold again once the replica woke")
}

// A primary whose replicas cannot be counted (INFO denied to the server's
// user) still runs its batches once a WAIT fell short: its WAIT decides,
// and the mark does not stick once the replica is back.
func TestShortMarkClearsWithoutInfo(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	ctx := context.Background()
	if err := p.primary.Do(ctx, "acl", "setuser", "noinfo", "on", ">pw", "~*", "&*", "+@all", "-info").Err(); err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: p.primaryAddr, Username: "noinfo", Password: "pw"})
	defer c.Close()
	s := stock.NewStore(c, keyspace.New("durnoinfo"))
	s.SetDurability(stock.Durability{MinReplicas: 1, Timeout: 50 * time.Millisecond})
	warm(t, s, 1, sale(3, 1))
	open := t0.Add(time.Minute)

	p.cut(t)
	if _, err := s.Reserve(ctx, req("u1", 1, open)); !errors.Is(err, stock.ErrReplicationTimeout) {
		t.Fatalf("u1 without the replica: err = %v, want ErrReplicationTimeout", err)
	}
	p.reattach(t)
	if _, err := s.Reserve(ctx, req("u2", 1, open)); err != nil {
		t.Fatalf("u2 with the replica back: %v", err)
	}
}
