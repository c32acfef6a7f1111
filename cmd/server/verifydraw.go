package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"time"

	"github.com/seckill/seckill/internal/draw"
)

// salePage matches a sale page's path, whose draw lives under the API.
var salePage = regexp.MustCompile(`^/sale/(\d+)/?$`)

// verifyDraw is `seckill verify-draw [-user ID] URL`: it fetches a published
// draw (its API URL, or the sale page's), recomputes it by the README's
// rules and says whether it holds; with -user, it also shows that shopper's
// entry id and place.
func verifyDraw(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("verify-draw", flag.ContinueOnError)
	fs.SetOutput(out)
	user := fs.String("user", "", "a shopper's user id: show their entry id, place and result")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: seckill verify-draw [-user ID] URL (the sale page or /api/v1/items/{id}/draw)")
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("not an http(s) URL: %q", fs.Arg(0))
	}
	if m := salePage.FindStringSubmatch(u.Path); m != nil {
		u.Path = "/api/v1/items/" + m[1] + "/draw"
	}
	p, err := fetchDraw(ctx, u.String())
	if err != nil {
		return err
	}
	c, err := draw.Verify(p)
	if err != nil {
		return fmt.Errorf("the draw does NOT check out: %w", err)
	}
	fmt.Fprintf(out, "draw of sale %d: %s\ncommitment (SHA-256 of the seed): %s\nsalt: %s\n", p.ItemID, p.Phase, *p.SeedSHA256, *p.Salt)
	if !c.Drawn {
		fmt.Fprintf(out, "not drawn yet: %d entries so far; run again after %s\n", c.Entries, p.EntriesCloseAt.Format(time.RFC3339))
	} else {
		fmt.Fprintf(out, "seed: %s\nOK: the seed matches the commitment, and the %d winners are the first units of each variant's ranking of %d entries\n",
			*p.Seed, c.Winners, c.Entries)
	}
	if *user != "" {
		salt, _ := hex.DecodeString(*p.Salt)
		id := draw.EntryID(salt, *user)
		fmt.Fprintf(out, "entry id of %s: %s\n", *user, id)
		if c.Drawn {
			fmt.Fprintln(out, placeOf(c, p, id))
		}
	}
	return nil
}

func placeOf(c draw.Check, p draw.Proof, id string) string {
	for _, v := range p.Variants {
		for i, t := range c.Ranking[v.VariantID] {
			if t.EntryID == id {
				verdict := "drawn"
				if i >= v.StockTotal {
					verdict = fmt.Sprintf("not drawn: %d on the waitlist", i+1-v.StockTotal)
				}
				return fmt.Sprintf("place %d of %d for %s (%d units): %s", i+1, len(c.Ranking[v.VariantID]), v.Label, v.StockTotal, verdict)
			}
		}
	}
	return "that entry id is not among the entries"
}

func fetchDraw(ctx context.Context, u string) (draw.Proof, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return draw.Proof{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return draw.Proof{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return draw.Proof{}, fmt.Errorf("GET %s: %s %s", u, resp.Status, body)
	}
	var p draw.Proof
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return draw.Proof{}, fmt.Errorf("GET %s: not a published draw: %w", u, err)
	}
	return p, nil
}
