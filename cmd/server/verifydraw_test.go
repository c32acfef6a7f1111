package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
)

func hexSHA(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// publishedDraw builds a drawn sale's published draw by the README's rules,
// written out here: 7 shoppers over two sizes of 2 and 1 units.
func publishedDraw() map[string]any {
	seed, salt := strings.Repeat("\x07", 32), strings.Repeat("\x2a", 16)
	type ticket struct {
		EntryID   string `json:"entry_id"`
		VariantID int64  `json:"variant_id"`
	}
	var entries []ticket
	byVariant := map[int64][]string{}
	for i := range 7 {
		v := int64(1 + i%2)
		id := hexSHA(salt, fmt.Sprintf("shopper-%d", i))
		entries = append(entries, ticket{id, v})
		byVariant[v] = append(byVariant[v], id)
	}
	units := map[int64]int{1: 2, 2: 1}
	var winners []ticket
	for v, ids := range byVariant {
		sort.Slice(ids, func(i, j int) bool { return hexSHA(seed, ":"+ids[i]) < hexSHA(seed, ":"+ids[j]) })
		for _, id := range ids[:units[v]] {
			winners = append(winners, ticket{id, v})
		}
	}
	return map[string]any{"item_id": 7, "phase": "drawn", "seed_sha256": hexSHA(seed), "salt": hex.EncodeToString([]byte(salt)),
		"seed": hex.EncodeToString([]byte(seed)), "entry_count": len(entries), "entries": entries, "winners": winners,
		"entries_open_at": "2026-11-22T09:00:00Z", "entries_close_at": "2026-11-22T10:00:00Z",
		"variants": []map[string]any{{"variant_id": 1, "label": "EU 41", "stock_total": 2}, {"variant_id": 2, "label": "EU 42", "stock_total": 1}}}
}

func serveDraw(t *testing.T, d map[string]any) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/items/7/draw" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(d)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestVerifyDraw checks an honest draw, from the sale page's URL too, and
// refuses one whose seed does not match its commitment or whose winners are
// not the top of the rankings.
func TestVerifyDraw(t *testing.T) {
	honest := publishedDraw()
	base := serveDraw(t, honest)
	for _, u := range []string{base + "/api/v1/items/7/draw", base + "/sale/7"} {
		var out bytes.Buffer
		if err := verifyDraw(context.Background(), []string{"-user", "shopper-3", u}, &out); err != nil {
			t.Fatalf("honest draw at %s refused: %v\n%s", u, err, out.String())
		}
		if !strings.Contains(out.String(), "OK: the seed matches") || !strings.Contains(out.String(), "entry id of shopper-3: "+
			hexSHA(strings.Repeat("\x2a", 16), "shopper-3")) || !strings.Contains(out.String(), "for EU 42") {
			t.Fatalf("output:\n%s", out.String())
		}
	}

	reseeded := publishedDraw()
	reseeded["seed"] = hex.EncodeToString(bytes.Repeat([]byte{8}, 32))
	// A loser of EU 41 in place of its first winner.
	swapped := publishedDraw()
	var ws, entries []map[string]any
	roundTrip(swapped["winners"], &ws)
	roundTrip(swapped["entries"], &entries)
	won := map[string]bool{}
	for _, x := range ws {
		won[x["entry_id"].(string)] = true
	}
	for i, x := range ws {
		if x["variant_id"] == 1.0 {
			for _, e := range entries {
				if e["variant_id"] == 1.0 && !won[e["entry_id"].(string)] {
					ws[i] = e
					break
				}
			}
			break
		}
	}
	swapped["winners"] = ws
	for name, d := range map[string]map[string]any{"reseeded": reseeded, "swapped winner": swapped} {
		var out bytes.Buffer
		err := verifyDraw(context.Background(), []string{serveDraw(t, d) + "/sale/7"}, &out)
		if err == nil || !strings.Contains(err.Error(), "does NOT check out") {
			t.Errorf("%s draw: %v\n%s", name, err, out.String())
		}
	}
}

// roundTrip reads v as JSON into out, as a client of the API would see it.
func roundTrip(v, out any) {
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, out)
}
