package e2etest

import (
	"testing"
	"time"

	"github.com/seckill/seckill/internal/webhook"
)

// CallbackAt is callback signed at the provider's time at.
func (s *Server) CallbackAt(tb testing.TB, at time.Time, body []byte) Reply {
	tb.Helper()
	return s.Call(tb, "POST", CallbackPath, "", body, webhook.SignatureHeader, webhook.Sign([]byte(PaymentSecret), at, body))
}
