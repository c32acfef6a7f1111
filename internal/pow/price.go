package pow

import (
	"math/bits"
	"time"
)

// Policy is how the difficulty adapts. Everyone pays Base. A client network
// pays one bit more, twice the work, for each doubling beyond NetworkFree
// of its proofs accepted a minute (each cost its solver work), or beyond
// NetworkAskersFree of its distinct shoppers asking a minute, whichever is
// more, since that is what a farm of bots looks like from the server; and
// one per doubling of its shoppers with paid failures (OutcomeOf) beyond
// NetworkFailuresFree, in this window of FailureMemory or the last. A shopper counts once among a network's askers
// however often they ask, so free requests raise a network's price only by
// bringing more accounts; together those network terms raise no one above
// NetworkCeiling. A shopper pays one bit more per proof of theirs refused
// lately, paid or not, and per doubling of the challenges they were handed
// for the asking a minute beyond ShopperAsksFree: up to ShopperMax in all.
// A shopper's refusals count until FailureMemory passes without one.
//
// An IPv6 network is priced at two levels, its /64 and its /48, and the
// higher term applies: a /48 holds 65,536 /64s, so priced per /64 alone it
// could spread a farm over fresh networks at the base price. The /48's
// members are its /64s, not its shoppers, and it has no rate of accepted
// proofs, so one /64's accounts alone cannot raise the rest of its /48:
// it counts the /64s asking a minute and the /64s with paid failures, with
// allowances WideScale times the /64's, since one /48 is also one site's
// or one carrier pool's many honest customers.
type Policy struct {
	Base                int
	NetworkFree         int64 // proofs accepted a minute
	NetworkAskersFree   int64 // distinct shoppers asking a minute
	NetworkFailuresFree int64 // distinct shoppers with paid failures
	NetworkCeiling      int
	WideScale           int64
	ShopperAsksFree     int64 // challenges asked for a minute
	ShopperMax          int64
	FailureMemory       time.Duration
}

// DefaultCeiling is the highest difficulty a network's terms raise a
// shopper to. A challenge lives two minutes (httpapi's powTTL). The work of
// a solve at d bits is geometric with mean 2^d hashes, so a solve takes
// longer than t with probability exp(-t·r/2^d) at r hashes a second: its
// p90 is ln(10)·2^d/r. This machine's headless Chromium hashes at about
// 174,000 a second (docs/benchmarks.md: median 163 ms at 15 bits):
//
//	d = 20: 2^20 = 1,048,576 hashes, mean 6.0 s, median 4.2 s, p90 13.9 s, p99 27.8 s
//	d = 21: mean 12.1 s, p90 27.8 s, p99 55.5 s
//	d = 22: p90 55.5 s; d = 23: p90 111 s, about a challenge's life
//	d = 24 (what ten accounts sending garbage reached before): p90 222 s
//
// At 20 bits the p90 is a ninth of a challenge's life, and a phone four
// times slower than this machine still solves nine times in ten within
// 56 s; at 21 that phone's p90 would be the whole two minutes.
const DefaultCeiling = 20

// DefaultPolicy is Policy at base difficulty base. Thirty shoppers a
// minute is a busy office or carrier NAT at a sale's opening, and sixty
// joins a minute each of them joining twice; ten shoppers of one network
// each resending a proof already spent in ten minutes is more than double
// clicks make. A page asks for one challenge a join, and once more for
// each refusal: ten a minute is a shopper retrying every six seconds. A
// /48 is allowed sixteen /64s' worth.
func DefaultPolicy(base int) Policy {
	return Policy{Base: base, NetworkFree: 60, NetworkAskersFree: 30, NetworkFailuresFree: 10, NetworkCeiling: DefaultCeiling,
		WideScale: 16, ShopperAsksFree: 10, ShopperMax: 8, FailureMemory: 10 * time.Minute}
}

// Network is where a request comes from, at the levels it is priced at:
// Narrow is what a challenge is bound to (an IPv4 /24, an IPv6 /64); Wide,
// when not empty, is the block Narrow lies in (an IPv6 /48).
type Network struct{ Narrow, Wide string }

// Load is what a pricer counted of one level of a network. A minute's
// count is the larger of this minute's and the last one's.
type Load struct {
	Rate    int64 // proofs accepted a minute
	Askers  int64 // distinct members asking a minute: shoppers, or a /48's /64s
	Failing int64 // distinct members with paid failures a window of FailureMemory
}

// Own is what a pricer counted of one shopper.
type Own struct {
	Asks     int64 // challenges handed out for the asking a minute
	Failures int64 // proofs refused until FailureMemory passes without one
}

// Difficulty is what the policy asks of a shopper whose own counts are own
// on a network whose levels carry narrow and wide; at most MaxDifficulty.
func (p Policy) Difficulty(narrow, wide Load, own Own) int {
	net := max(p.steps(narrow, 1), p.steps(wide, max(p.WideScale, 1)))
	net = min(net, max(p.NetworkCeiling-p.Base, 0))
	self := min(max(own.Failures, 0)+int64(Steps(own.Asks, p.ShopperAsksFree)), p.ShopperMax)
	return min(max(p.Base+net+int(self), 0), MaxDifficulty)
}

// steps is the network terms of a level whose allowances are scale times
// the policy's. Accepted proofs and askers measure the same crowd, so the
// larger of their terms counts, not both.
func (p Policy) steps(l Load, scale int64) int {
	return max(Steps(l.Rate, p.NetworkFree*scale), Steps(l.Askers, p.NetworkAskersFree*scale)) +
		Steps(l.Failing, p.NetworkFailuresFree*scale)
}

// Steps is how many times n has doubled beyond free: 0 up to free, 1 up to
// twice free, 2 up to four times, and so on.
func Steps(n, free int64) int {
	if free < 1 || n <= free {
		return 0
	}
	return bits.Len64(uint64((n - 1) / free))
}
