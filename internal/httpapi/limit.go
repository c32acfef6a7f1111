package httpapi

import (
	"math"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/ratelimit"
)

// limit counts the request against the limits of action. It runs before
// the handler, so a refused request costs a Redis round trip and nothing
// else. The shopper's own limit is checked first and the client IP's only
// charged when that passes: one account hammering must not use up the
// allowance of everyone behind the same IP (an office, a carrier's NAT). If
// Redis cannot be asked, the request goes on: the limits protect the shop,
// they must not take it down.
func (g *guards) limit(action string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if g.limiter == nil {
			return
		}
		for _, check := range g.checks(c, action) {
			v := g.limiter.AllowOne(c.Request.Context(), check)
			if v.Err != nil {
				g.log.WarnContext(c.Request.Context(), "rate limit unavailable; request let through", "err", v.Err)
				return
			}
			if !v.OK {
				c.Header("Retry-After", retryAfter(v.Wait))
				g.fail(c, errRateLimited)
				return
			}
		}
	}
}

// retryAfter is a wait as Retry-After's whole seconds, at least one.
func retryAfter(wait time.Duration) string {
	return strconv.Itoa(int(math.Ceil(max(wait.Seconds(), 1))))
}

// clientKeyKey is where purchaseLimit leaves the client key for the
// reserve script's limits.
const clientKeyKey = "seckill.client_key"

// purchaseLimit leaves a purchase's rate limits to the reserve script once
// this server has seen Redis answer for the sale: the script checks them
// in the round trip it makes anyway, which saves the purchase two round
// trips (the shopper's limit, then the client's). A sale not seen yet (the
// first purchases after a start, a made-up id) is checked here too, as
// every other action is, so made-up ids cannot reach MySQL's warm-on-miss
// unchecked; the script still counts what passes, so those first requests
// cannot open a second burst in the script's buckets.
func (g *guards) purchaseLimit() gin.HandlerFunc {
	checked := g.limit("purchase")
	return func(c *gin.Context) {
		if g.limiter == nil {
			return
		}
		c.Set(clientKeyKey, ratelimit.ClientKey(c.ClientIP()))
		if id, err := strconv.ParseInt(c.Param("id"), 10, 64); err != nil || g.front == nil || !g.front.ScriptLimited(id) {
			checked(c)
		}
	}
}

// checks lists the limits of an action, the shopper's first.
func (g *guards) checks(c *gin.Context, action string) []ratelimit.Check {
	ip := ratelimit.ClientKey(c.ClientIP())
	switch action {
	case "login", "admin-login":
		return []ratelimit.Check{{Key: g.limiter.Key("ip", ip, action), Rate: g.rates.Login}}
	}
	return []ratelimit.Check{
		{Key: g.limiter.Key("shopper", userOf(c), action), Rate: g.rates.Shopper},
		{Key: g.limiter.Key("ip", ip, action), Rate: g.rates.IP},
	}
}
