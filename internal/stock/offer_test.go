package stock_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// offerOf is an open offer's value: variant 1 until at.
func offerOf(at time.Time) string { return "1:" + strconv.FormatInt(at.UnixMilli(), 10) }

// TestOffers walks a draw sale's offers through the store: published at
// the draw, counted against free units, moved, expired, and never moved
// back once settled.
func TestOffers(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	warm(t, s, 1, sale(3, 1))
	due := t0.Add(10 * time.Minute)
	if err := s.PublishOffers(ctx, 1, map[string]string{"a": offerOf(due)}); err != nil {
		t.Fatal(err)
	}
	free := func(want int) {
		t.Helper()
		if n, err := s.FreeUnits(ctx, 1, 1, t0); err != nil || n != want {
			t.Fatalf("free units: %d, %v; want %d", n, err, want)
		}
	}
	free(2)
	if v, err := s.PublishOffer(ctx, 1, "b", offerOf(due)); err != nil || v != offerOf(due) {
		t.Fatalf("publish b: %q, %v", v, err)
	}
	free(1)
	steps := []struct {
		name string
		do   func() (string, error)
		want string
	}{
		{"expire before the deadline", func() (string, error) { return s.ExpireOffer(ctx, 1, "a", due.Add(-time.Second)) }, offerOf(due)},
		{"move the deadline", func() (string, error) { return s.PublishOffer(ctx, 1, "a", offerOf(due.Add(time.Minute))) }, offerOf(due.Add(time.Minute))},
		{"expire at the deadline", func() (string, error) { return s.ExpireOffer(ctx, 1, "a", due.Add(time.Minute)) }, offerOf(due.Add(time.Minute)) + ":expired"},
		{"a settled offer does not move", func() (string, error) { return s.PublishOffer(ctx, 1, "a", offerOf(due)) }, offerOf(due.Add(time.Minute)) + ":expired"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if v, err := st.do(); err != nil || v != st.want {
				t.Fatalf("got %q, %v; want %q", v, err, st.want)
			}
		})
	}
	free(2)
	held, err := s.Offers(ctx, 1)
	if err != nil || len(held) != 2 || held["b"] != offerOf(due) {
		t.Fatalf("offers: %v, %v", held, err)
	}
	if v, ok, err := s.OfferOf(ctx, 1, "b"); err != nil || !ok || v != offerOf(due) {
		t.Fatalf("offer of b: %q, %v, %v", v, ok, err)
	}
	if _, ok, err := s.OfferOf(ctx, 1, "c"); err != nil || ok {
		t.Fatalf("offer of c: %v, %v; want none", ok, err)
	}
	if _, err := s.ExpireOffer(ctx, 1, "c", due); !errors.Is(err, redis.Nil) {
		t.Fatalf("expire c: %v; want redis.Nil", err)
	}
}

func TestHoldsBuyer(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	warm(t, s, 1, sale(3, 1))
	batch(t, s, req("u", 1, t0.Add(time.Minute)))
	for user, want := range map[string]bool{"u": true, "v": false} {
		if got, err := s.HoldsBuyer(ctx, 1, user); err != nil || got != want {
			t.Errorf("holds buyer %s: %v, %v; want %v", user, got, err, want)
		}
	}
}
