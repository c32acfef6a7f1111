package purchase

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/ratelimit"
	"github.com/seckill/seckill/test/e2e/e2etest"
)

// TestOneShopperFlooding: 1,000 purchase requests from one shopper within a
// second. All but the burst are refused with 429 and Retry-After before the
// reserve script runs, and at most one order exists.
func TestOneShopperFlooding(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, &e2etest.LiveClock{}, func(c *config.Config) {
		c.RateShopper = ratelimit.Rate{PerSecond: 5, Burst: 10}
		c.RateIP = ratelimit.Rate{PerSecond: 50, Burst: 100} // one office: the bot and alice share it
	})
	id := s.Sale(t, 10, 1, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	tok := e2etest.MintToken(t, "bot")
	var limited, other atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for range 20 {
		wg.Go(func() {
			for range 50 {
				r := s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", tok, nil)
				if r.Status == 429 {
					if r.ErrCode() != "rate_limited" || r.Header.Get("Retry-After") == "" {
						t.Errorf("429 without the code or Retry-After: %v %s", r.Header, r.Raw)
					}
					limited.Add(1)
				} else {
					other.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	allowedMax := int64(10 + 5*elapsed.Seconds() + 1)
	t.Logf("1000 requests in %v: %d refused with 429, %d reached the reserve script", elapsed.Round(time.Millisecond), limited.Load(), other.Load())
	if other.Load() > allowedMax {
		t.Fatalf("%d requests got past the limit, want at most %d", other.Load(), allowedMax)
	}
	if st := s.Settle(t, id); st.Body["sold"].(float64) != 1 {
		t.Fatalf("one shopper flooding holds %v units, want 1", st.Body["sold"])
	}
	// Refused requests must not have spent the IP's allowance.
	e2etest.Check(t, s.Call(t, "POST", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase", e2etest.MintToken(t, "alice"), nil), e2etest.Want{Status: 202})
}

// slowLogin refills slowly. With the server's clock standing still, the
// refill is not what is tested, but a limit's Redis key expires by Redis's
// own clock once its bucket would be full again (100s at 0.1/s burst 10,
// 500s here): slow rates keep the keys for however long a loaded machine
// takes over the test's requests.
var slowLogin = ratelimit.Rate{PerSecond: 0.01, Burst: 5}

// TestTokenAndAdminSignInFlooding: the purchase-token endpoint (which bots
// poll up to the opening) and admin sign-in (token guessing) are limited too.
func TestTokenAndAdminSignInFlooding(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) {
		c.RateShopper = ratelimit.Rate{PerSecond: 0.1, Burst: 10}
		c.RateIP = ratelimit.Rate{PerSecond: 10000, Burst: 10000}
		c.RateLogin = slowLogin
	})
	id := s.Sale(t, 5, 1, e2etest.T0, e2etest.T0.Add(time.Hour))
	tok := e2etest.MintToken(t, "poller")
	codes := map[int]int{}
	for range 50 {
		codes[s.Call(t, "GET", "/api/v1/items/"+e2etest.Itoa(id)+"/purchase-token", tok, nil).Status]++
	}
	if codes[429] < 35 {
		t.Fatalf("50 token requests from one shopper: %v, want most refused", codes)
	}
	guesses := map[int]int{}
	for i := range 30 {
		guesses[s.Call(t, "POST", "/api/v1/admin/session", "", `{"token":"guess-`+strconv.Itoa(i)+`-0123456789"}`).Status]++
	}
	if guesses[429] < 20 {
		t.Fatalf("30 admin token guesses from one IP: %v, want most refused", guesses)
	}
}

// TestLoginFlooding: the demo login is limited per client IP.
func TestLoginFlooding(t *testing.T) {
	t.Parallel()
	s := e2etest.Start(t, e2etest.NewClock(e2etest.T0), func(c *config.Config) { c.RateLogin = slowLogin })
	codes := map[int]int{}
	for i := range 20 {
		codes[s.Call(t, "POST", "/api/v1/session", "", `{"user_id":"u`+strconv.Itoa(i)+`"}`).Status]++
	}
	if codes[200] > 6 || codes[429] < 14 {
		t.Fatalf("20 logins from one IP: %v, want at most 6 allowed", codes)
	}
}
