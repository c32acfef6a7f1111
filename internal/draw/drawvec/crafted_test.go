package drawvec_test

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/seckill/seckill/internal/draw"
)

// crafted are documents one checker could read one way and another
// checker another (Go's decoder matches keys case-insensitively and keeps
// what an earlier duplicate decoded; JSON.parse matches exactly and keeps
// the last; Go refuses 1.0 for an integer, JavaScript does not): each must
// be malformed, or read the same way, in both. They are kept as the bytes
// served (text), which both checkers read as they are.
func crafted(waiting string) map[string]vector {
	honest, _ := drawn(seed, shoppers)
	text := string(marshal(honest))
	forged, _ := drawn(seed, slices.DeleteFunc(slices.Clone(shoppers), func(u string) bool { return u == waiting }))
	bad := func(about, text string) vector {
		return vector{about: about, commitment: commitment, expect: fail("malformed"), text: text}
	}
	firstEntry := (*honest.Entries)[0]
	noVariant := append([]any{map[string]any{"entry_id": firstEntry.EntryID}}, anys((*honest.Entries)[1:])...)
	vs := map[string]vector{
		"case-variant-keys": {about: "The honest entries and winners, then Entries, Winners, Backfilled and Entry_count of a draw without " +
			"the shopper: Go's decoder would read the later keys, JSON.parse the first.", commitment: commitment,
			shopper: shopper(waiting), expect: fail("malformed"), text: withKeys(text, `"Entries":`+string(marshal(forged.Entries))+
				`,"Winners":`+string(marshal(forged.Winners))+`,"Backfilled":`+string(marshal(forged.Backfilled))+`,"Entry_count":11`)},
		"key-long-s": bad("The seed under \"\u017feed\" (a long s), which Go's decoder would match to seed.",
			strings.Replace(text, `"seed":`, "\"\u017feed\":", 1)),
		"key-kelvin-sign": bad("backfilled under \"bac\u212afilled\" (a Kelvin sign), which Go's decoder would match to backfilled.",
			strings.Replace(text, `"backfilled":`, "\"bac\u212afilled\":", 1)),
		"duplicate-entries-key": bad("entries twice, the second list without one entry's variant_id: Go's decoder would keep the "+
			"variant of the first list's element, JSON.parse would have none.", withKeys(text, `"entries":`+string(marshal(noVariant)))),
		"duplicate-key-in-a-variant": bad("A variant whose variant_id is given twice, 42 then 41.",
			strings.Replace(text, `"variant_id":41,"label"`, `"variant_id":42,"variant_id":41,"label"`, 1)),
		"stock-total-1.0": bad("A stock_total spelled 3.0: Go refuses it for an integer, JavaScript reads 3.",
			strings.Replace(text, `"stock_total":3}`, `"stock_total":3.0}`, 1)),
		"stock-total-exponent": bad("A stock_total spelled 3e0.", strings.Replace(text, `"stock_total":3}`, `"stock_total":3e0}`, 1)),
		"item-id-beyond-2-53": bad("An item_id of 2^53+1, which JavaScript cannot hold exactly.",
			strings.Replace(text, `"item_id":7`, `"item_id":9007199254740993`, 1)),
		"trailing-data":           bad("The document followed by a second one.", text+"\n{}"),
		"leading-byte-order-mark": bad("The document after a byte order mark, which JSON does not allow.", "\ufeff"+text),
		"good-unknown-key-ignored": {about: "A key no draw has: both checkers ignore it.", commitment: commitment, expect: pass(nil),
			text: withKeys(text, `"note":"hello"`)},
	}
	for name, at := range map[string]string{"close-on-february-30": "2026-02-30T10:00:00Z", "close-at-hour-24": "2026-11-22T24:00:00Z",
		"close-offset-minute-61": "2026-11-22T10:00:00+00:61", "close-lowercase-t": "2026-11-22t10:00:00Z"} {
		vs[name] = bad("entries_close_at "+at+", which is no time.", strings.Replace(text, `"entries_close_at":"2026-11-22T10:00:00Z"`,
			`"entries_close_at":"`+at+`"`, 1))
	}
	// An offset is part of the time: 10:30+01:00 is 09:30Z, before the check at 09:59Z.
	early := string(marshal(open()))
	vs["withheld-close-with-an-offset"] = vector{about: "entries_close_at 10:30+01:00 (09:30Z), checked at 09:59Z, the draw still open: not drawn.",
		commitment: commitment, checkedAt: ptr(closes.Add(-time.Minute)), shopper: shopper(waiting), expect: notDrawn(),
		text: strings.Replace(early, `"entries_close_at":"2026-11-22T10:00:00Z"`, `"entries_close_at":"2026-11-22T10:30:00+01:00"`, 1)}
	vs["good-close-offset-24-hours"] = vector{about: "entries_close_at with an offset of +24:00, which Go reads (a day earlier): " +
		"checked a minute after the draw, a draw that holds.", commitment: commitment, expect: pass(nil),
		text: strings.Replace(text, `"entries_close_at":"2026-11-22T10:00:00Z"`, `"entries_close_at":"2026-11-22T10:00:00+24:00"`, 1)}
	for name, absent := range map[string]bool{"good-variant-id-null-read-as-0": false, "good-variant-id-absent-read-as-0": true} {
		vs[name] = vector{about: "An entry whose variant_id is null or absent is under variant 0, as Go's decoder reads it: " +
			"here a listed variant, which it wins.", commitment: commitment, expect: pass(nil), draw: variantZero(honest, absent)}
	}
	return vs
}

// variantZero is p with a variant 0 of one unit, won by its one entry,
// whose variant_id is null (or absent).
func variantZero(p draw.Proof, absent bool) doc {
	return spoiled(p, func(d doc) {
		id := hexOf(sum("the entry of variant 0"))
		e := doc{"entry_id": id, "variant_id": nil}
		if absent {
			delete(e, "variant_id")
		}
		d["variants"] = append(list(d, "variants"), doc{"variant_id": 0, "label": "EU 40", "stock_total": 1})
		d["entries"], d["entry_count"] = append(list(d, "entries"), e), 13
		d["winners"] = append(list(d, "winners"), doc{"entry_id": id, "variant_id": 0})
	})
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// withKeys is the JSON object text with more members at its end.
func withKeys(text, members string) string {
	return strings.TrimSuffix(text, "}") + "," + members + "}"
}

func anys(ts []draw.Ticket) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

func ptr[T any](v T) *T { return &v }
