package runner

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/seckill/seckill/internal/token"
)

// shopper is one simulated person: a user id and the JWT the server accepts.
type shopper struct {
	user string
	jwt  string
}

// mintShoppers signs n shopper JWTs the way the server does (the shop's own
// login would). They are minted once per run and reused for every sale:
// purchase tokens are bound to a sale, JWTs are not.
func mintShoppers(secret, prefix string, n int, ttl time.Duration) ([]shopper, error) {
	tokens := token.NewSession(secret, ttl, time.Now)
	out := make([]shopper, n)
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				user := prefix + strconv.Itoa(i)
				jwt, _, err := tokens.Issue(user)
				if err != nil {
					errs[w] = fmt.Errorf("mint token for %s: %w", user, err)
					return
				}
				out[i] = shopper{user: user, jwt: jwt}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// writeShopperFiles writes the lines shoppers.lua reads: file <prefix>.<t>
// holds every threads-th shopper from t, as "jwt purchase-token", or, with
// variant, "jwt purchase-token variant-id", shopper i asking for variant(i).
// The token is minted for item, valid from now.
func writeShopperFiles(prefix string, shoppers []shopper, threads int, secret string, item int64, ttl time.Duration,
	variant func(int) int64) error {
	mint := purchaseTokens(secret, item, ttl)
	for t := range threads {
		if err := writeSlice(prefix+"."+strconv.Itoa(t), shoppers, t, threads, mint, variant); err != nil {
			return err
		}
	}
	return nil
}

func writeSlice(path string, shoppers []shopper, from, step int, token func(string) string, variant func(int) int64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write shoppers: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := from; i < len(shoppers); i += step {
		w.WriteString(shoppers[i].jwt)
		w.WriteByte(' ')
		w.WriteString(token(shoppers[i].user))
		if variant != nil {
			w.WriteByte(' ')
			w.WriteString(strconv.FormatInt(variant(i), 10))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write shoppers: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write shoppers: %w", err)
	}
	return nil
}

// purchaseTokens mints the purchase tokens the server accepts for item, each
// valid for ttl from now, the way the server does: a load run must not fetch
// one per simulated shopper.
func purchaseTokens(secret string, item int64, ttl time.Duration) func(user string) string {
	p, exp := token.NewPurchase(secret, ttl), time.Now().Add(ttl)
	return func(user string) string { return p.IssueUntil(user, item, exp) }
}
