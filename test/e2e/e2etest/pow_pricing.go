package e2etest

import (
	"fmt"
	"testing"
	"time"

	"github.com/seckill/seckill/internal/config"
	"github.com/seckill/seckill/internal/httpapi"
	"github.com/seckill/seckill/internal/pow"
)

// BehindProxy makes a server trust 127.0.0.1, as a load balancer, so a
// test names each request's client in X-Forwarded-For.
func BehindProxy(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} }

// From is the header naming ip as the client behind the trusted proxy.
func From(ip string, hdr ...string) []string { return append([]string{"X-Forwarded-For", ip}, hdr...) }

// Forge has accounts on the /24 of prefix (prefix+"1", prefix+"2", …) send
// proofs that cost nothing to sale id for a minute: at each of sixty ticks
// (tick moves the server's clock a second) every account sends one, of
// each kind in turn: garbage, a challenge under another key, a real
// challenge (the last refusal's) with an x that does not solve it, and
// another shopper's solved proof. Each is refused with a fresh challenge.
// Each account also asks free times for a challenge and joins free times
// without a proof at each tick.
func Forge(t *testing.T, s *Server, id int64, prefix string, accounts, free int, tick func()) {
	t.Helper()
	path := "/api/v1/items/" + Itoa(id) + "/room"
	ch, d := s.Challenge(t, id, MintToken(t, "solver"), From(prefix+"250")...)
	someoneElses := ch + ":" + pow.Solve(ch, d)
	other := httpapi.NewPowIssuer("another-secret-0123456789abcdef0123456789", time.Now)
	fresh := make([]string, accounts)
	for sec := range 60 {
		for i := range accounts {
			user, ip := fmt.Sprintf("forger%d", i), prefix+Itoa(int64(i+1))
			proof := map[int]string{0: "garbage:1", 1: other.Issue(user, prefix+"0/24", id, 0) + ":0", 3: someoneElses}[(sec+i)%4]
			if (sec+i)%4 == 2 {
				proof = "garbage:2"
				if fresh[i] != "" {
					proof = fresh[i] + ":" + Unsolved(fresh[i], TestPowBits)
				}
			}
			r := s.Call(t, "POST", path, MintToken(t, user), nil, From(ip, httpapi.ProofOfWorkHeader, proof)...)
			fresh[i], _ = Refusal(t, r)
			AskFree(t, s, id, user, ip, free)
		}
		tick()
	}
}

// AskFree has user at ip ask n times for a challenge to sale id and join
// its room n times without a proof: requests that cost no work.
func AskFree(t *testing.T, s *Server, id int64, user, ip string, n int) {
	t.Helper()
	tok := MintToken(t, user)
	for range n {
		s.Challenge(t, id, tok, From(ip)...)
		Refusal(t, s.Call(t, "POST", "/api/v1/items/"+Itoa(id)+"/room", tok, nil, From(ip)...))
	}
}
