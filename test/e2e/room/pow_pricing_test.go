package room

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/pow"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestProofOfWorkFreeRequestsCostOthersNothing: two accounts on one /24
// each ask for five challenges and join five times without a proof every
// second for a minute (1,200 requests that cost no work); another shopper
// on that /24 is asked the base and joins, and each account pays for its
// own requests. Before, those requests raised the /24 by five bits.
func TestProofOfWorkFreeRequestsCostOthersNothing(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.BehindProxy)
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	for range 60 {
		for i := range 2 {
			e2etest.AskFree(t, s, id, fmt.Sprintf("freeloader%d", i), "203.0.113."+e2etest.Itoa(int64(i+1)), 5)
		}
		clk.Add(time.Second)
	}
	carolJoinsAtBase(t, s, id, "freeloaders")
	// 600 asks in the minute just ended: six doublings beyond ten, on the account alone.
	if _, d := s.Challenge(t, id, e2etest.MintToken(t, "freeloader0"), e2etest.From("203.0.113.1")...); d != e2etest.TestPowBits+6 {
		t.Fatalf("a freeloader is asked %d bits, want %d: its own six more", d, e2etest.TestPowBits+6)
	}
}

// TestProofOfWorkForgedProofsCostOthersNothing: ten accounts on one /24
// send proofs that cost nothing for a minute (600 of them); each pays for
// it in its own difficulty, up to eight bits more, while another shopper
// on that /24 is asked the base and joins.
func TestProofOfWorkForgedProofsCostOthersNothing(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.BehindProxy)
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	e2etest.Forge(t, s, id, "203.0.113.", 10, 0, func() { clk.Add(time.Second) })
	carolJoinsAtBase(t, s, id, "forgers")
	if _, d := s.Challenge(t, id, e2etest.MintToken(t, "forger0"), e2etest.From("203.0.113.1")...); d != e2etest.TestPowBits+8 {
		t.Fatalf("a forger is asked %d bits, want %d: its own eight more", d, e2etest.TestPowBits+8)
	}
}

// TestProofOfWorkPaidFailures: a proof that cost work, resent once spent,
// counts its shopper among the network's failing ones: one shopper
// resending fifty times is one, ten are free, the eleventh raises the
// network's price a bit (one bit per doubling, to 20 bits at most: see
// internal/pow).
func TestProofOfWorkPaidFailures(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.BehindProxy)
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	path := "/api/v1/items/" + e2etest.Itoa(id) + "/room"
	spendTwice := func(user string, times int) {
		t.Helper()
		tok := e2etest.MintToken(t, user)
		ch, d := s.Challenge(t, id, tok, e2etest.From("198.51.100.7")...)
		proof := e2etest.From("198.51.100.7", httpapi.ProofOfWorkHeader, ch+":"+pow.Solve(ch, d))
		if r := s.Call(t, "POST", path, tok, nil, proof...); r.Status != 200 {
			t.Fatalf("%s's join: %d %s", user, r.Status, r.Raw)
		}
		for range times {
			r := s.Call(t, "POST", path, tok, nil, proof...)
			if e2etest.Refusal(t, r); !strings.Contains(r.Raw, "already used") {
				t.Fatalf("%s's proof resent: %s", user, r.Raw)
			}
		}
	}
	asked := func() int {
		t.Helper()
		_, d := s.Challenge(t, id, e2etest.MintToken(t, "carol"), e2etest.From("198.51.100.200")...)
		return d
	}
	spendTwice("mallory", 50)
	if d := asked(); d != e2etest.TestPowBits {
		t.Fatalf("after one shopper resent a spent proof 50 times, carol is asked %d, want the base %d", d, e2etest.TestPowBits)
	}
	for i := range 9 {
		spendTwice(fmt.Sprintf("shopper%d", i), 1)
	}
	if d := asked(); d != e2etest.TestPowBits {
		t.Fatalf("with ten failing shoppers carol is asked %d, want the base %d", d, e2etest.TestPowBits)
	}
	spendTwice("shopper9", 1)
	if d := asked(); d != e2etest.TestPowBits+1 {
		t.Fatalf("with eleven failing shoppers carol is asked %d, want %d", d, e2etest.TestPowBits+1)
	}
}

// TestProofOfWorkPricesA48: a farm asking for challenges from 600 /64s of
// one IPv6 /48 is asked the base from the first 400 (the /48 allows
// sixteen times a /64's 30 askers a minute, its askers being /64s, counted
// within about 1%), and is priced as that /48 beyond: a fresh /64 in it is
// asked a bit more, one of another /48 the base.
func TestProofOfWorkPricesA48(t *testing.T) {
	t.Parallel()
	clk := e2etest.NewClock(e2etest.T0)
	s := e2etest.Start(t, clk, e2etest.BehindProxy)
	id := e2etest.RoomSale(t, s, 10, 5, e2etest.T0.Add(time.Hour))
	for i := range 600 {
		if _, d := s.Challenge(t, id, e2etest.MintToken(t, fmt.Sprintf("bot%d", i)), e2etest.From(fmt.Sprintf("2001:db8:1:%x::1", i))...); i < 400 && d != e2etest.TestPowBits {
			t.Fatalf("the %dth /64 is asked %d, want the base while the /48 is within its allowance", i, d)
		}
	}
	if _, d := s.Challenge(t, id, e2etest.MintToken(t, "alice"), e2etest.From("2001:db8:1:ffff::7")...); d != e2etest.TestPowBits+1 {
		t.Fatalf("a fresh /64 of the farm's /48 is asked %d bits, want %d", d, e2etest.TestPowBits+1)
	}
	if _, d := s.Challenge(t, id, e2etest.MintToken(t, "alice"), e2etest.From("2001:db8:2:1::7")...); d != e2etest.TestPowBits {
		t.Fatalf("a /64 of another /48 is asked %d bits, want the base %d", d, e2etest.TestPowBits)
	}
}

// carolJoinsAtBase checks that carol, on the /24 (203.0.113.0) the crowd
// asked from, is asked the base difficulty and joins with it: what the
// crowd did cost her nothing.
func carolJoinsAtBase(t *testing.T, s *e2etest.Server, id int64, crowd string) {
	t.Helper()
	carol := e2etest.MintToken(t, "carol")
	ch, d := s.Challenge(t, id, carol, e2etest.From("203.0.113.99")...)
	if d != e2etest.TestPowBits {
		t.Fatalf("carol on the %s' /24 is asked %d bits, want the base %d", crowd, d, e2etest.TestPowBits)
	}
	r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/room", carol, nil, e2etest.From("203.0.113.99", httpapi.ProofOfWorkHeader, ch+":"+pow.Solve(ch, d))...)
	if r.Status != 200 || r.Str("state") != "waiting" {
		t.Fatalf("carol's join: %d %s", r.Status, r.Raw)
	}
}
