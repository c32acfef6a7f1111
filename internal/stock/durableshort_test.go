package stock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill/seckill/internal/keyspace"
	"github.com/seckill/seckill/internal/stock"
	"github.com/seckill/seckill/internal/testenv"
)

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
