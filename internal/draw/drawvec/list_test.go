package drawvec_test

import (
	"slices"
	"strings"
	"time"
)

// vectors are the draw vectors by file name: honest draws a check must
// pass, and one tampered draw per way a forger or a bug could spoil one.
func vectors() map[string]vector {
	duringEntries := closes.Add(-time.Minute)
	honest, rank := drawn(seed, shoppers)
	winner, backfilled, waiting := rank[41][0], rank[41][3], rank[41][5]
	good := func(about, u string) vector {
		return vector{about: about, commitment: commitment, shopper: shopper(u), expect: pass(standing(rank, u)), draw: honest}
	}
	vs := map[string]vector{
		"good-winner":                  good("An honest draw; the shopper won a unit of EU 41.", winner),
		"good-backfilled":              good("An honest draw; the shopper was passed a unit a winner left: backfilled, at place 4.", backfilled),
		"good-waitlist":                good("An honest draw; the shopper is on EU 41's waitlist.", waiting),
		"good-more-units-than-entries": good("An honest draw; EU 43 has more units than entries, so both its shoppers won.", rank[43][1]),
		"good-entry-id-only": {about: "An honest draw, checked by an entry id alone (a legacy entry, or a shopper who kept only the id).",
			commitment: commitment, shopper: entryOnly(rank[42][2]), expect: pass(standing(rank, rank[42][2])), draw: honest},
		"good-no-commitment-kept": {about: "An honest draw checked on a device that kept no commitment: it holds, but its seed " +
			"could not be checked against one seen before the close.", shopper: shopper(winner),
			expect: unconfirmed(standing(rank, winner)), draw: honest},
		"good-entries-open": {about: "Entries are open: the commitment is the one shown when the shopper entered.",
			commitment: commitment, checkedAt: &duringEntries, shopper: shopper(winner), expect: pass(nil), draw: open()},
		"good-entries-open-no-commitment-kept": {about: "Entries are open, and nothing was kept to compare the commitment with.",
			expect: unconfirmed(nil), draw: open()},
		"good-nothing-passed-on": {about: "An honest draw before any unit was passed on: backfilled is an empty list.",
			commitment: commitment, expect: pass(nil), draw: spoiled(honest, func(d doc) { d["backfilled"] = []any{} })},
		"good-no-entries": {about: "An honest draw nobody entered.", commitment: commitment, expect: pass(nil), draw: noEntries()},
	}
	moved, reranked := drawnUnder(seed, salt, shoppers, map[string]int64{winner: 42})
	vs["moved-entry"] = vector{about: "The shopper's entry moved from EU 41 to EU 42, the draw otherwise consistent with it there: " +
		"only the size kept at entry shows it.", commitment: commitment, shopper: shopper(winner), expect: fail("variant_mismatch"), draw: moved}
	vs["moved-entry-no-size-kept"] = vector{about: "The moved entry, checked on a device that kept no size: it is found, where it was moved.",
		commitment: commitment, shopper: noSize(winner), expect: pass(standing(reranked, winner)), draw: moved}
	afterClose := closes.Add(time.Minute)
	vs["withheld-drawing"] = vector{about: "Entries closed and the draw not published (phase drawing): the shopper's entry cannot " +
		"be checked yet, which is no pass.", commitment: commitment, shopper: shopper(winner), expect: notDrawn(), draw: withheld("drawing")}
	vs["withheld-ended"] = vector{about: "The sale ended without a published draw, the shopper entered: not drawn, not a pass.",
		commitment: commitment, shopper: shopper(winner), expect: notDrawn(), draw: withheld("ended")}
	vs["withheld-still-open-after-close"] = vector{about: "Checked after entries_close_at, the server still calling its draw open: " +
		"not drawn.", commitment: commitment, checkedAt: &afterClose, shopper: shopper(winner), expect: notDrawn(), draw: open()}
	vs["good-drawing-nobody-checked"] = vector{about: "Entries closed, not drawn yet, and no entry asked for: the commitment holds so far.",
		commitment: commitment, expect: pass(nil), draw: withheld("drawing")}
	resalted, reranked := drawnUnder(seed, resalt, shoppers, nil)
	vs["resalted"] = vector{about: "Re-salted after the seed was public by someone who knows every secret (the database): every " +
		"entry id recomputed under the new salt, the rankings with them; only the salt kept at entry shows it.",
		commitment: commitment, shopper: shopper(winner), expect: fail("salt_mismatch"), draw: resalted}
	vs["resalted-no-salt-kept"] = vector{about: "The re-salted draw, checked with the shopper's secret but no salt kept: " +
		"their entry is found under the new salt, but the salt was checked against nothing: not a pass.",
		commitment: commitment, shopper: keptNoSalt(winner), expect: unconfirmed(standing(reranked, winner)), draw: resalted}
	vs["resalted-entry-id-kept"] = vector{about: "The re-salted draw, checked with the entry id kept at entry: the id is not " +
		"among the re-salted entries.", commitment: commitment, shopper: entryOnly(winner), expect: fail("entry_missing"), draw: resalted}
	vs["good-no-salt-kept"] = vector{about: "An honest draw checked with the shopper's secret but no salt kept: consistent, " +
		"but the salt was not checked.", commitment: commitment, shopper: keptNoSalt(waiting),
		expect: unconfirmed(standing(rank, waiting)), draw: honest}
	reseeded, _ := drawn(reseed, shoppers)
	vs["reseeded"] = vector{about: "The seed re-rolled after the close, published with its own matching seed_sha256 and the " +
		"rankings it gives: only the commitment kept from before the close shows it.", commitment: commitment,
		shopper: shopper(winner), expect: fail("commitment_mismatch"), draw: reseeded}
	vs["reseeded-while-open"] = vector{about: "While entries are open the server serves a commitment other than the one the shopper saw.",
		commitment: commitment, expect: fail("commitment_mismatch"),
		draw: spoiled(open(), func(d doc) { d["seed_sha256"] = hexOf(sum(string(reseed))) })}
	dropped, _ := drawn(seed, slices.DeleteFunc(slices.Clone(shoppers), func(u string) bool { return u == waiting }))
	vs["dropped-shopper-entry"] = vector{about: "The checking shopper's entry left out, and the draw otherwise consistent without it.",
		commitment: commitment, shopper: shopper(waiting), expect: fail("entry_missing"), draw: dropped}
	vs["dropped-shopper-entry-no-commitment-kept"] = vector{about: "The checking shopper's entry left out, on a device that " +
		"kept no commitment: a failure still, not a note.", shopper: shopper(waiting), expect: fail("entry_missing"), draw: dropped}
	vs["seed-not-committed"] = tampered("The seed changed, seed_sha256 left as it was.", "seed_mismatch",
		func(d doc) { d["seed"] = hexOf(reseed) })
	vs["draw-not-an-object"] = vector{about: "A document that is a string, not a draw.", commitment: commitment,
		expect: fail("malformed"), draw: "this is not a draw"}
	for name, c := range crafted(waiting) {
		vs[name] = c
	}
	for name, t := range tamperings() {
		vs[name] = tampered(t.about, t.problem, t.spoil)
	}
	return vs
}

type tampering struct {
	about, problem string
	spoil          func(d doc)
}

// tamperings spoil the honest draw, each in one way.
func tamperings() map[string]tampering {
	other := hexOf(sum("nobody entered this"))
	appendTo := func(name string, t doc) func(d doc) {
		return func(d doc) { d[name] = append(list(d, name), t) }
	}
	return map[string]tampering{
		"missing-backfilled": {"A drawn draw without backfilled.", "malformed", func(d doc) { delete(d, "backfilled") }},
		"backfilled-null":    {"A drawn draw whose backfilled is null.", "malformed", func(d doc) { d["backfilled"] = nil }},
		"missing-entries":    {"A drawn draw without entries.", "malformed", func(d doc) { delete(d, "entries") }},
		"repeated-variant": {"EU 41 listed twice.", "malformed",
			func(d doc) { d["variants"] = append(list(d, "variants"), list(d, "variants")[0]) }},
		"negative-stock-total": {"A variant with stock_total -1.", "malformed",
			func(d doc) { list(d, "variants")[2].(doc)["stock_total"] = -1 }},
		"stock-total-not-whole": {"A variant with stock_total 1.5.", "malformed",
			func(d doc) { list(d, "variants")[0].(doc)["stock_total"] = 1.5 }},
		"variant-id-a-string": {"An entry whose variant_id is the string \"41\".", "malformed",
			func(d doc) { ticket(d, "entries", 0)["variant_id"] = "41" }},
		"duplicate-winner": {"A winner listed twice.", "malformed",
			func(d doc) { d["winners"] = append(list(d, "winners"), list(d, "winners")[0]) }},
		"duplicate-backfilled": {"A backfilled entry listed twice.", "malformed",
			func(d doc) { d["backfilled"] = append(list(d, "backfilled"), list(d, "backfilled")[0]) }},
		"duplicate-entry": {"An entry listed twice, entry_count counting it.", "malformed", func(d doc) {
			d["entries"], d["entry_count"] = append(list(d, "entries"), list(d, "entries")[0]), 13
		}},
		"winner-under-unlisted-variant":     {"A winner under variant 99, which the draw does not list.", "malformed", appendTo("winners", doc{"entry_id": other, "variant_id": 99})},
		"backfilled-under-unlisted-variant": {"A backfilled entry under variant 99.", "malformed", appendTo("backfilled", doc{"entry_id": other, "variant_id": 99})},
		"entry-under-unlisted-variant": {"An entry under variant 99, entry_count counting it.", "malformed", func(d doc) {
			d["entries"], d["entry_count"] = append(list(d, "entries"), doc{"entry_id": other, "variant_id": 99}), 13
		}},
		"variant-unlisted": {"EU 43 left out of variants, its entries and winners kept.", "malformed",
			func(d doc) { d["variants"] = list(d, "variants")[:2] }},
		"backfill-out-of-order": {"EU 41's two units passed on, listed in the wrong order.", "backfill_wrong", func(d doc) {
			b := list(d, "backfilled")
			b[0], b[2] = b[2], b[0]
		}},
		"backfill-skips-a-place": {"A unit passed to EU 41's fifth, skipping the fourth.", "backfill_wrong",
			func(d doc) { d["backfilled"] = list(d, "backfilled")[2:] }},
		"backfill-to-a-winner": {"A unit passed to one of EU 41's winners.", "backfill_wrong",
			func(d doc) { list(d, "backfilled")[0] = ticket(d, "winners", 0) }},
		"backfill-to-a-stranger": {"A unit passed to an entry that never entered.", "backfill_wrong",
			appendTo("backfilled", doc{"entry_id": other, "variant_id": 41})},
		"winner-swapped": {"EU 41's first winner replaced by a shopper its ranking did not draw.", "winners_wrong",
			func(d doc) { list(d, "winners")[0] = loser(d, 41) }},
		"winner-missing": {"One winner left out.", "winners_wrong", func(d doc) { d["winners"] = list(d, "winners")[1:] }},
		"winner-extra":   {"A winner too many.", "winners_wrong", func(d doc) { d["winners"] = append(list(d, "winners"), loser(d, 41)) }},
		"winner-a-stranger": {"A winner who never entered.", "winners_wrong",
			func(d doc) { ticket(d, "winners", 0)["entry_id"] = other }},
		"winner-of-another-size": {"An EU 41 winner listed as winning EU 42.", "winners_wrong",
			func(d doc) { ticket(d, "winners", 0)["variant_id"] = 42 }},
		"seed-bad-hex": {"A seed that is not hex.", "malformed", func(d doc) { d["seed"] = "zz" + d["seed"].(string)[2:] }},
		"seed-uppercase": {"The seed in uppercase hex, a spelling the server never publishes.", "malformed",
			func(d doc) { d["seed"] = strings.ToUpper(d["seed"].(string)) }},
		"seed-a-number": {"A seed that is a number.", "malformed", func(d doc) { d["seed"] = 7 }},
		"entry-id-uppercase": {"An entry id in uppercase: a second spelling of an id could list it twice unnoticed.", "malformed",
			func(d doc) {
				ticket(d, "entries", 0)["entry_id"] = strings.ToUpper(ticket(d, "entries", 0)["entry_id"].(string))
			}},
		"entry-id-short":     {"An entry id of 31 bytes.", "malformed", func(d doc) { ticket(d, "entries", 0)["entry_id"] = other[:62] }},
		"salt-short":         {"A salt of 15 bytes.", "malformed", func(d doc) { d["salt"] = d["salt"].(string)[:30] }},
		"commitment-missing": {"A drawn draw without seed_sha256.", "malformed", func(d doc) { delete(d, "seed_sha256") }},
		"entry-count-wrong":  {"entry_count one more than the entries listed.", "malformed", func(d doc) { d["entry_count"] = 13 }},
		"unknown-phase":      {"A phase no draw has.", "malformed", func(d doc) { d["phase"] = "finished" }},
		"seed-while-open": {"A draw still taking entries that publishes its seed.", "malformed", func(d doc) {
			d["phase"] = "entries_open"
			delete(d, "entries")
			delete(d, "winners")
			delete(d, "backfilled")
		}},
	}
}
