package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/draw"
	"github.com/seckill/seckill/internal/draw/drawvec"
)

// serveDraw serves doc as sale 7's published draw.
func serveDraw(t *testing.T, doc []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/items/7/draw" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(doc)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// argsOf are the flags a shopper holding what v kept passes.
func argsOf(v drawvec.Vector) []string {
	var args []string
	if v.Commitment != "" {
		args = append(args, "-commitment", v.Commitment)
	}
	if s := v.Shopper; s != nil && s.Salt != "" {
		args = append(args, "-salt", s.Salt)
	}
	if s := v.Shopper; s != nil && s.VariantID != 0 {
		args = append(args, "-variant", strconv.FormatInt(s.VariantID, 10))
	}
	if s := v.Shopper; s != nil && s.EntryID != "" {
		args = append(args, "-entry", s.EntryID)
	} else if s != nil {
		args = append(args, "-user", s.UserID, "-secret", s.EntrySecret)
	}
	return args
}

// statusOf is the exit status verify-draw's error asks for.
func statusOf(err error) int {
	var ex *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ex):
		return ex.status
	}
	return -1
}

// TestVerifyDrawGivesEveryVectorItsVerdict runs seckill verify-draw on
// every test vector, served over HTTP from the sale page's URL: exit 0 for
// a draw that holds against the commitment given, 3 for one that holds
// with no commitment (or salt) to hold it to, 4 for one not published after
// the close when an entry is asked for, 1 for one that does not hold; a
// shopper's backfilled or waitlisted entry is said to be so, with its place.
func TestVerifyDrawGivesEveryVectorItsVerdict(t *testing.T) {
	vs, err := drawvec.Read()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{draw.VerdictPass: 0, draw.VerdictUnconfirmed: exitUnconfirmed, draw.VerdictNotDrawn: exitNotDrawn,
		draw.VerdictFail: exitFails}
	said := map[string]string{draw.OutcomeWon: ": drawn", draw.OutcomeBackfilled: ": backfilled", draw.OutcomeWaitlist: ": not drawn"}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			var out bytes.Buffer
			now := time.Now
			if v.CheckedAt != nil {
				now = func() time.Time { return *v.CheckedAt }
			}
			err := verifyDraw(context.Background(), append(argsOf(v), serveDraw(t, v.Doc())+"/sale/7"), &out, now)
			if statusOf(err) != want[v.Expect.Verdict] {
				t.Fatalf("%s\nexit status %d (%v), want %d (%s)\n%s", v.About, statusOf(err), err, want[v.Expect.Verdict], v.Expect, out.String())
			}
			if v.Expect.Verdict == draw.VerdictFail && !strings.Contains(err.Error(), "does NOT check out") {
				t.Errorf("a failing draw's message: %v", err)
			}
			if v.Expect.Verdict == draw.VerdictNotDrawn && !strings.Contains(err.Error(), "NOT DRAWN: your entry cannot be checked yet") {
				t.Errorf("a withheld draw's message: %v", err)
			}
			if sh := v.Shopper; v.Expect.Verdict == draw.VerdictUnconfirmed && v.Commitment != "" && sh != nil && sh.EntrySecret != "" && sh.Salt == "" &&
				!strings.Contains(err.Error(), "Run again with -salt") {
				t.Errorf("a check with no salt kept does not say so: %v", err)
			}
			s := v.Expect.Shopper
			if s != nil && (!strings.Contains(out.String(), "place "+strconv.Itoa(s.Place)+" of ") || !strings.Contains(out.String(), said[s.Outcome])) {
				t.Errorf("the shopper's entry (%s at place %d) is not said so:\n%s", s.Outcome, s.Place, out.String())
			}
		})
	}
}

// TestVerifyDrawUsage: flags that cannot be checked are refused before
// anything is fetched.
func TestVerifyDrawUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"no URL":                {"-commitment", strings.Repeat("a", 64)},
		"short commitment":      {"-commitment", "abc", "http://x/sale/7"},
		"-user without -secret": {"-user", "ann", "http://x/sale/7"},
		"bad secret":            {"-user", "ann", "-secret", "xyz", "http://x/sale/7"},
		"short salt":            {"-salt", "abcd", "http://x/sale/7"},
		"-entry and -user":      {"-entry", strings.Repeat("a", 64), "-user", "ann", "-secret", strings.Repeat("a", 64), "http://x/sale/7"},
		"not http":              {"ftp://x/sale/7"},
	} {
		var out bytes.Buffer
		if err := verifyDraw(context.Background(), args, &out, time.Now); statusOf(err) != exitUsage {
			t.Errorf("%s: exit status %d (%v), want %d", name, statusOf(err), err, exitUsage)
		}
	}
}
