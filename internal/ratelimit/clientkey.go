package ratelimit

import "net/netip"

// ClientKey is the unit an IP limit counts: the address for IPv4, the /64
// for IPv6, since one IPv6 client commonly holds a whole /64. Anything that
// is not an address counts as itself.
func ClientKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil || addr.Is4() || addr.Is4In6() {
		return ip
	}
	p, err := addr.Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}
