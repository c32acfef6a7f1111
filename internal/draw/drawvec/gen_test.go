package drawvec_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"slices"
	"strings"
	"time"

	"github.com/seckill/seckill/internal/draw"
)

var update = flag.Bool("update", false, "write the draw vectors to internal/draw/testdata/vectors")

// The vectors' draw: twelve shoppers over three sizes, ranked here by the
// README's rules written out again (not by internal/draw, which the
// vectors test), with units passed on since to the next of two rankings.
var (
	seed      = sum("drawvec seed")
	reseed    = sum("drawvec seed, re-rolled")
	salt      = sum("drawvec salt")[:16]
	resalt    = sum("drawvec salt, re-rolled")[:16]
	shoppers  = []string{"ann", "bob", "cyd", "dee", "eve", "fay", "gus", "hal", "ivy", "jo", "kim", "lou"}
	sizeOf    = []int64{41, 42, 41, 41, 42, 41, 43, 42, 41, 42, 41, 43}
	sizes     = []draw.UnitsOf{{VariantID: 41, Label: "EU 41", StockTotal: 3}, {VariantID: 42, Label: "EU 42", StockTotal: 2}, {VariantID: 43, Label: "EU 43", StockTotal: 4}}
	passedOn  = []int64{41, 42, 41} // the variants that passed a unit on, in order
	opens     = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	closes    = opens.Add(time.Hour)
	drawnAt   = closes.Add(2 * time.Second)
	hexOf     = hex.EncodeToString
	secretsOf = func(user string) []byte { return sum("drawvec secret of " + user) }
)

func sum(parts ...string) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}

// entryID is hex(SHA-256(salt || secret || user id)).
func entryID(user string) string { return entryIDUnder(salt, user) }

func entryIDUnder(salt []byte, user string) string {
	return hexOf(sum(string(salt), string(secretsOf(user)), user))
}

// drawn is the published draw of the shoppers entered, drawn with seed:
// each size's entries ranked by hex(SHA-256(seed || ":" || entry id)), its
// first stock_total the winners, and passedOn's units gone to the next.
// rankings has each size's ranking by user.
func drawn(seed []byte, entered []string) (d draw.Proof, rankings map[int64][]string) {
	return drawnUnder(seed, salt, entered, nil)
}

// drawnUnder is drawn, every entry id made under salt, the shoppers in
// moved entered for the size it gives them.
func drawnUnder(seed, salt []byte, entered []string, moved map[string]int64) (d draw.Proof, rankings map[int64][]string) {
	entryID := func(u string) string { return entryIDUnder(salt, u) }
	rankings = map[int64][]string{}
	entries := []draw.Ticket{}
	for i, u := range shoppers {
		size := sizeOf[i]
		if to, ok := moved[u]; ok {
			size = to
		}
		if slices.Contains(entered, u) {
			entries = append(entries, draw.Ticket{EntryID: entryID(u), VariantID: size})
			rankings[size] = append(rankings[size], u)
		}
	}
	slices.SortFunc(entries, func(a, b draw.Ticket) int { return strings.Compare(a.EntryID, b.EntryID) })
	key := func(u string) string { return hexOf(sum(string(seed), ":"+entryID(u))) }
	winners, backfilled := []draw.Ticket{}, []draw.Ticket{}
	next := map[int64]int{}
	for _, v := range sizes {
		r := rankings[v.VariantID]
		slices.SortFunc(r, func(a, b string) int { return strings.Compare(key(a), key(b)) })
		next[v.VariantID] = min(v.StockTotal, len(r))
		for _, u := range r[:next[v.VariantID]] {
			winners = append(winners, draw.Ticket{EntryID: entryID(u), VariantID: v.VariantID})
		}
	}
	for _, v := range passedOn {
		if next[v] >= len(rankings[v]) {
			continue
		}
		backfilled = append(backfilled, draw.Ticket{EntryID: entryID(rankings[v][next[v]]), VariantID: v})
		next[v]++
	}
	sh, sd, at := hexOf(sum(string(seed))), hexOf(seed), drawnAt
	saltHex := hexOf(salt)
	return draw.Proof{ItemID: 7, Phase: draw.PhaseDrawn, EntriesOpenAt: opens, EntriesCloseAt: closes, DrawnAt: &at,
		SeedSHA256: &sh, Salt: &saltHex, Seed: &sd, EntryCount: len(entries), Variants: slices.Clone(sizes),
		Entries: &entries, Winners: &winners, Backfilled: &backfilled}, rankings
}

// open is the draw as published while entries are open.
func open() draw.Proof {
	sh, saltHex := hexOf(sum(string(seed))), hexOf(salt)
	return draw.Proof{ItemID: 7, Phase: draw.PhaseEntriesOpen, EntriesOpenAt: opens, EntriesCloseAt: closes,
		SeedSHA256: &sh, Salt: &saltHex, EntryCount: len(shoppers), Variants: slices.Clone(sizes)}
}

// doc is a published draw as JSON values, to tamper with.
type doc = map[string]any

func asDoc(p draw.Proof) doc {
	var d doc
	b, _ := json.Marshal(p)
	_ = json.Unmarshal(b, &d)
	return d
}

// list is one of a document's lists of entries.
func list(d doc, name string) []any { return d[name].([]any) }

func ticket(d doc, name string, i int) doc { return list(d, name)[i].(doc) }

// loser is an entry of variant v that did not win.
func loser(d doc, v float64) doc {
	won := map[any]bool{}
	for _, w := range list(d, "winners") {
		won[w.(doc)["entry_id"]] = true
	}
	for _, b := range list(d, "backfilled") {
		won[b.(doc)["entry_id"]] = true
	}
	for _, e := range list(d, "entries") {
		if e.(doc)["variant_id"] == v && !won[e.(doc)["entry_id"]] {
			return e.(doc)
		}
	}
	panic("no loser")
}

// spoiled is p as JSON values, changed by spoil.
func spoiled(p draw.Proof, spoil func(d doc)) doc {
	d := asDoc(p)
	spoil(d)
	return d
}

// noEntries is the draw drawn with nobody entered.
func noEntries() draw.Proof {
	p, _ := drawn(seed, nil)
	*p.Backfilled = []draw.Ticket{}
	return p
}
