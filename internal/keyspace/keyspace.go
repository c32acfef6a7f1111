// Package keyspace names every Redis key the system uses. The stock package
// writes these keys and the order package reads the streams, so the layout
// lives in one small package both can import without importing each other.
//
// Every per-item key carries the hash tag {item:ID}, so all keys one Lua
// script touches hash to the same Redis Cluster slot.
package keyspace

import (
	"strconv"
	"strings"
)

// Space builds keys under one prefix; tests give each test its own prefix.
type Space struct{ prefix string }

// New returns the key space for prefix (for example "seckill").
func New(prefix string) Space { return Space{prefix: prefix} }

// Prefix is the prefix every key starts with.
func (s Space) Prefix() string { return s.prefix }

// ReturnsChannel is the pub/sub channel on which a server announces that
// stock came back to a sale (FormatReturn), so every server clears its
// sold-out mark for it.
func (s Space) ReturnsChannel() string { return s.prefix + ":stock-returned" }

// OrdersChannel is the pub/sub channel on which a server announces the ids
// of orders it changed (see package orderfeed).
func (s Space) OrdersChannel() string { return s.prefix + ":orders-changed" }

// RevokedSession marks an admin session signed out before its expiry (see
// package revoke); it expires with the session.
func (s Space) RevokedSession(id string) string { return s.prefix + ":revoked-session:" + id }

// PowRate counts the proofs of work accepted from one client network in
// one minute since the epoch (package pow's Pricer); it expires after the
// next minute, when it is no longer read.
func (s Space) PowRate(network string, minute int64) string {
	return s.prefix + ":pow:rate:" + network + ":" + strconv.FormatInt(minute, 10)
}

// PowAskers is a HyperLogLog of the members (shoppers of a network, or
// networks of a wider one) whose requests reached package pow's Pricer in
// one minute since the epoch; it expires after the next minute.
func (s Space) PowAskers(network string, minute int64) string {
	return s.prefix + ":pow:askers:" + network + ":" + strconv.FormatInt(minute, 10)
}

// PowShopperAsks counts the challenges a shopper was handed for the asking
// in one minute since the epoch (package pow's Pricer).
func (s Space) PowShopperAsks(user string, minute int64) string {
	return s.prefix + ":pow:asks:s:" + user + ":" + strconv.FormatInt(minute, 10)
}

// PowShopperFailures counts the refused proofs of a shopper, until none
// has come for a while (package pow's Pricer).
func (s Space) PowShopperFailures(user string) string { return s.prefix + ":pow:fail:s:" + user }

// PowFailingShoppers is a HyperLogLog of the members of a client network
// (shoppers, or a wider network's narrow ones) whose refused proofs had
// cost work, in one window of package pow's FailureMemory since the epoch.
// It replaced a key per network under ":pow:failing:n:", and before that a
// counter of all refusals under ":pow:fail:n:", whose old keys expire unread.
func (s Space) PowFailingShoppers(network string, window int64) string {
	return s.prefix + ":pow:failing:w:" + network + ":" + strconv.FormatInt(window, 10)
}

// Return is a ReturnsChannel message: stock came back to a sale, as its
// Count-th return, leaving Left available.
type Return struct{ ItemID, Count, Left int64 }

// String encodes r as "itemID:count:left".
func (r Return) String() string {
	return strconv.FormatInt(r.ItemID, 10) + ":" + strconv.FormatInt(r.Count, 10) + ":" + strconv.FormatInt(r.Left, 10)
}

// ParseReturn decodes a ReturnsChannel message.
func ParseReturn(msg string) (Return, bool) {
	parts := strings.Split(msg, ":")
	if len(parts) != 3 {
		return Return{}, false
	}
	var n [3]int64
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return Return{}, false
		}
		n[i] = v
	}
	return Return{ItemID: n[0], Count: n[1], Left: n[2]}, true
}

// Item returns the keys of one sale.
func (s Space) Item(id int64) Item {
	return Item{base: s.prefix + ":{item:" + strconv.FormatInt(id, 10) + "}:"}
}

// Registry is the set of item ids that have been warmed; stream workers read
// it to find the streams they must consume. It is never touched by a script,
// so it may live in any slot.
func (s Space) Registry() string { return s.prefix + ":items" }

// RegistryIDs are the sale ids among the Registry's members, which are
// decimal ids; a member that is not one is skipped.
func RegistryIDs(members []string) []int64 {
	ids := make([]int64, 0, len(members))
	for _, m := range members {
		if id, err := strconv.ParseInt(m, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// Item is the key set of one sale.
type Item struct{ base string }

// Pattern is a SCAN MATCH pattern of every key of the sale, those named
// here and any other under its base (the limit buckets, say): retiring a
// sale removes them all. Glob characters in the prefix are escaped.
func (k Item) Pattern() string {
	var b strings.Builder
	for _, r := range k.base {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String() + "*"
}

// Stock holds the available stock of the whole sale as an integer: the sum
// of VariantStock's values, which every script changes together with them,
// so the sale's figure costs one read where it is needed most (sold-out
// marks, the waiting room, listings).
func (k Item) Stock() string { return k.base + "stock" }

// VariantStock is a hash variant id -> available stock of that variant; a
// variant absent from it is not the sale's.
func (k Item) VariantStock() string { return k.base + "vstock" }

// ShopperLimit and ClientLimit are the GCRA buckets of a shopper's and of a
// client's (IP's) purchases in the sale, checked by the reserve script; each
// expires once it would be full again.
func (k Item) ShopperLimit(user string) string { return k.base + "limit:s:" + user }

// ClientLimit: see ShopperLimit.
func (k Item) ClientLimit(client string) string { return k.base + "limit:i:" + client }

// Meta is a hash with the sale window and per-user limit the reserve script
// enforces (starts_ms, ends_ms, limit, ...), and the unit price it takes each
// variant's orders at (price:<variant id>); lua/reserve.lua lists them all.
func (k Item) Meta() string { return k.base + "meta" }

// Buyers is a hash user id -> "orderID:quantity:createdMs:variantID:unitPriceCents"
// of active orders: one per shopper and sale, whatever the variant.
func (k Item) Buyers() string { return k.base + "buyers" }

// Idempotency is a hash "userID\nkey" -> the same value as Buyers.
func (k Item) Idempotency() string { return k.base + "idem" }

// Stream is the queue of reserved orders waiting to be written to MySQL.
func (k Item) Stream() string { return k.base + "orders" }

// DeadLetters records stream entries MySQL refused, with the reason.
func (k Item) DeadLetters() string { return k.base + "dead" }

// SpentChallenge marks a proof-of-work challenge used (package pow), until
// it would have expired anyway and a margin for clock skew.
func (k Item) SpentChallenge(id string) string { return k.base + "pow:" + id }

// Returns counts how many times stock has come back to the sale (cancels,
// admin additions, warms). A sold-out answer carries the count it saw, so a
// server can tell whether stock has returned since.
func (k Item) Returns() string { return k.base + "returns" }

// Replicated is a throwaway value a reservation batch writes when it
// acknowledges orders written earlier (a replay) and wrote nothing itself:
// Redis's WAIT only counts the replicas that have a connection's own last
// write, so the batch needs one after the order it vouches for. It expires
// by itself and goes with the sale's other keys.
func (k Item) Replicated() string { return k.base + "replicated" }

// DrawOffers is a draw sale's hash user id -> "variantID:deadlineMs", with
// ":bought" or ":expired" appended once settled: the units drawn or passed
// down to shoppers (lua/reserve.lua, package draw).
func (k Item) DrawOffers() string { return k.base + "offers" }

// ReserveKeys is KEYS for lua/reserve.lua, in its order: the sale's keys,
// then for each request its shopper's and its client's limit buckets.
func (k Item) ReserveKeys(users, clients []string) []string {
	keys := make([]string, 0, 9+2*len(users))
	keys = append(keys, k.Stock(), k.Meta(), k.Buyers(), k.Idempotency(), k.Stream(), k.Returns(), k.RoomHolding(),
		k.VariantStock(), k.DrawOffers())
	for i, u := range users {
		keys = append(keys, k.ShopperLimit(u), k.ClientLimit(clients[i]))
	}
	return keys
}
