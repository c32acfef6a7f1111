package main

import (
	"context"
	"encoding/hex"
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

// Exit statuses of verify-draw besides 0 (the draw holds, against the
// commitment given).
const (
	exitFails       = 1 // the draw does not hold, or could not be read
	exitUsage       = 2
	exitUnconfirmed = 3 // it holds, but its seed was checked against nothing kept from before the close
	exitNotDrawn    = 4 // entries closed, no draw published: the shopper's entry cannot be checked yet
)

// exitError is verify-draw's verdict when it is not "holds": main prints
// it as it is and exits with its status.
type exitError struct {
	status int
	err    error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exit(status int, err error) error { return &exitError{status: status, err: err} }

const verifyUsage = "usage: seckill verify-draw [-commitment HEX] [-salt HEX] [-variant ID] [-user ID -secret HEX | -entry HEX] URL " +
	"(URL: the sale page or /api/v1/items/{id}/draw)"

// verifyFlags are verify-draw's flags.
type verifyFlags struct {
	commitment, salt, user, secret, entry string
	variant                               int64
}

// verifyDraw is `seckill verify-draw`: it fetches a published draw (its
// API URL, or the sale page's), recomputes it by the README's rules and
// says whether it holds. The seed is held to -commitment, the commitment
// the shopper saw before the close: a forger who re-rolls the seed
// publishes a matching seed_sha256 with it, so the document's own
// commitment proves nothing. With -user and -secret (or -entry) it also
// finds that shopper's entry, and a draw without it fails; a draw not
// published once entries closed cannot show it, which is no pass. now is
// the clock that tells whether entries have closed.
func verifyDraw(ctx context.Context, args []string, out io.Writer, now func() time.Time) error {
	f, u, err := parseVerifyArgs(args, out)
	if err != nil {
		return exit(exitUsage, err)
	}
	p, err := fetchDraw(ctx, u)
	if err != nil {
		return exit(exitFails, err)
	}
	against := draw.Against{Commitment: f.commitment, Salt: f.salt, EntryID: f.entry, UserID: f.user, Secret: f.secret,
		VariantID: f.variant, Now: now()}
	c, err := draw.Verify(p, against)
	if errors.Is(err, draw.ErrNothingPublished) {
		return exit(exitFails, fmt.Errorf("nothing to check yet: %w", err))
	} else if err != nil {
		return exit(exitFails, fmt.Errorf("the draw does NOT check out: %w", err))
	}
	report(out, p, c, f)
	if c.Withheld {
		return exit(exitNotDrawn, fmt.Errorf("NOT DRAWN: your entry cannot be checked yet: entries closed at %s and no draw is published "+
			"(phase %q); run again once it is, and if it never is, the draw was withheld", p.EntriesCloseAt.Format(time.RFC3339), p.Phase))
	}
	if !c.CommitmentChecked {
		return exit(exitUnconfirmed, errors.New("NOT CONFIRMED: the seed was not checked against a commitment seen before the close; "+
			"a forger can publish a new seed with its own matching seed_sha256. Run again with -commitment, "+
			"the value the draw page and your entry answer showed while entries were open"))
	}
	if c.SaltUnchecked {
		return exit(exitUnconfirmed, errors.New("NOT CONFIRMED: your entry id was computed from the salt the draw publishes now, "+
			"which was not checked against one seen when you entered; whoever knows every entry secret can re-salt a drawn draw "+
			"until the rankings suit them. Run again with -salt, the value your entry answer and the draw page showed"))
	}
	return nil
}

func parseVerifyArgs(args []string, out io.Writer) (verifyFlags, string, error) {
	var f verifyFlags
	fs := flag.NewFlagSet("verify-draw", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&f.commitment, "commitment", "", "the draw's commitment (seed_sha256) as seen before the close of entries")
	fs.StringVar(&f.salt, "salt", "", "the draw's salt as seen when you entered (salt in the entry answer)")
	fs.Int64Var(&f.variant, "variant", 0, "the variant you entered for (variant_id in the entry answer): your entry must be under it")
	fs.StringVar(&f.user, "user", "", "your user id: with -secret, find your entry and its place")
	fs.StringVar(&f.secret, "secret", "", "your entry secret (entry_secret in the entry answer; kept by the draw page)")
	fs.StringVar(&f.entry, "entry", "", "an entry id to find, instead of -user and -secret")
	if err := fs.Parse(args); err != nil {
		return f, "", err
	}
	switch {
	case fs.NArg() != 1:
		return f, "", errors.New(verifyUsage)
	case f.commitment != "" && len(f.commitment) != 64:
		return f, "", fmt.Errorf("-commitment must be 64 hex digits, got %q", f.commitment)
	case f.entry != "" && f.user != "":
		return f, "", errors.New("give -entry or -user with -secret, not both")
	case (f.user == "") != (f.secret == ""):
		return f, "", errors.New("-user and -secret go together: the entry id is SHA-256(salt || secret || user id)")
	}
	if _, err := hex.DecodeString(f.commitment); err != nil {
		return f, "", fmt.Errorf("-commitment must be 64 hex digits, got %q", f.commitment)
	}
	if _, err := hex.DecodeString(f.salt); err != nil || (f.salt != "" && len(f.salt) != 32) {
		return f, "", fmt.Errorf("-salt must be 32 hex digits, got %q", f.salt)
	}
	if _, err := draw.ParseSecret(f.secret); f.secret != "" && err != nil {
		return f, "", fmt.Errorf("-secret: %w", err)
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return f, "", fmt.Errorf("not an http(s) URL: %q", fs.Arg(0))
	}
	if m := salePage.FindStringSubmatch(u.Path); m != nil {
		u.Path = "/api/v1/items/" + m[1] + "/draw"
	}
	return f, u.String(), nil
}

// report says what was checked: a draw that holds, or holds so far.
func report(out io.Writer, p draw.Proof, c draw.Check, f verifyFlags) {
	fmt.Fprintf(out, "draw of sale %d: %s\ncommitment (SHA-256 of the seed): %s\nsalt: %s\n", p.ItemID, p.Phase, *p.SeedSHA256, *p.Salt)
	against := "the commitment the draw publishes (NOT one seen before the close)"
	if c.CommitmentChecked {
		against = "the commitment you gave, seen before the close"
	}
	if !c.Drawn {
		fmt.Fprintf(out, "not drawn yet: %d entries so far; the commitment is checked against %s; run again after %s\n",
			c.Entries, against, p.EntriesCloseAt.Format(time.RFC3339))
	} else {
		fmt.Fprintf(out, "seed: %s\nOK: the seed matches %s, the %d winners are the first units of each variant's ranking of %d entries, "+
			"and the %d units passed on since went to the next places in order\n", *p.Seed, against, c.Winners, c.Entries, c.Passed)
	}
	if f.user != "" || f.entry != "" {
		fmt.Fprintln(out, mine(p, c, f))
	}
}

// mine says where the checked shopper's entry stands.
func mine(p draw.Proof, c draw.Check, f verifyFlags) string {
	who := "entry"
	if f.user != "" {
		who = "entry id of " + f.user
	}
	if c.Mine == nil {
		return who + ": the draw is not drawn yet, so the entries are not published"
	}
	m, label := c.Mine, ""
	for _, v := range p.Variants {
		if v.VariantID == m.VariantID {
			label = v.Label
		}
	}
	verdict := map[string]string{
		draw.OutcomeWon:        "drawn",
		draw.OutcomeBackfilled: "backfilled: offered a unit a winner left",
		draw.OutcomeWaitlist:   fmt.Sprintf("not drawn: %d on the waitlist", m.Place-m.Units),
	}[m.Outcome]
	return fmt.Sprintf("%s: %s\nplace %d of %d for %s (%d units): %s", who, m.EntryID, m.Place, m.Of, label, m.Units, verdict)
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
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return draw.Proof{}, fmt.Errorf("GET %s: %w", u, err)
	}
	// Read as the page reads it: strictly, so that one document cannot
	// verify as two different draws (internal/draw/strict.go).
	p, err := draw.DecodeProof(body)
	if err != nil {
		return draw.Proof{}, fmt.Errorf("the draw does NOT check out: GET %s: %w", u, err)
	}
	return p, nil
}
