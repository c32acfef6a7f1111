package httpapi

import (
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill/seckill/internal/ratelimit"
)

var errRateLimited = apiErr(http.StatusTooManyRequests, "rate_limited", "too many requests; slow down and retry after the time in Retry-After")

// limit counts the request against the limits of action: per client IP, and
// per shopper for purchases. It runs before the handler, so a refused
// request costs one Redis round trip and nothing else. If Redis cannot be
// asked, the request goes on: the limits protect the shop, they must not
// take it down.
func (s *Server) limit(action string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.Limiter == nil {
			return
		}
		checks := s.checks(c, action)
		ok, wait, err := s.Limiter.Allow(c.Request.Context(), checks...)
		if err != nil {
			slog.WarnContext(c.Request.Context(), "rate limit unavailable; request let through", "err", err)
			return
		}
		if !ok {
			c.Header("Retry-After", strconv.Itoa(int(math.Ceil(max(wait.Seconds(), 1)))))
			if action == "purchase" {
				s.Metrics.purchases.WithLabelValues("rate_limited").Inc()
			}
			writeError(c, errRateLimited)
		}
	}
}

func (s *Server) checks(c *gin.Context, action string) []ratelimit.Check {
	ip := c.ClientIP()
	if action == "login" {
		return []ratelimit.Check{{Key: s.Limiter.Key("ip", ip, action), Rate: s.Rates.Login}}
	}
	return []ratelimit.Check{
		{Key: s.Limiter.Key("ip", ip, action), Rate: s.Rates.IP},
		{Key: s.Limiter.Key("shopper", userOf(c), action), Rate: s.Rates.Shopper},
	}
}
