package pow

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/netip"
	"time"
)

// serverKind derives the challenges' key from the JWT secret, as the token
// kinds do (internal/token): no token verifies as a challenge.
const serverKind = "seckill proof of work"

// ServerTTL is how long a challenge the server hands out may be solved and
// spent. A browser solves in well under a second; a slow phone or a tab in
// the background takes longer, and a shopper who came back too late is
// handed a fresh challenge with the refusal.
const ServerTTL = 2 * time.Minute

// IssuerFor returns the issuer of the challenges that a server whose JWT
// secret is jwtSecret hands out and accepts, dated by now (the wall clock):
// the server's own, and what tests and load tools use to make challenges.
func IssuerFor(jwtSecret string, now func() time.Time) *Issuer {
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte(serverKind))
	return NewIssuer(mac.Sum(nil), ServerTTL, now)
}

// NetworkOf is the network the proof of work prices a request from ip:
// networkKey, and for IPv6 also the /48 it lies in, which one site or one
// tunnel customer commonly holds whole: 65,536 /64s that would otherwise
// each start at the base price.
func NetworkOf(ip string) Network {
	n := Network{Narrow: networkKey(ip)}
	if addr, err := netip.ParseAddr(ip); err == nil && !addr.Unmap().Is4() {
		if p, err := addr.Prefix(48); err == nil {
			n.Wide = p.String()
		}
	}
	return n
}

// networkKey is the client network a challenge is bound to and its
// difficulty follows: the /24 of an IPv4 address, the /64 of an IPv6 one,
// about what one customer of a host or a carrier holds, so a farm of bots
// renting neighbouring addresses still counts as one. It lives here, not
// with the rate limits' client key, because only the proof of work binds
// to it.
func networkKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr, bits := addr.Unmap(), 64
	if addr.Is4() {
		bits = 24
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return ip
	}
	return p.String()
}
