package imagehit

import (
	"net/netip"
	"strings"
)

// ClientAddr returns the address a request comes from: peer, the
// connection's, unless peer is one of the trusted proxies; then the last
// address in the X-Forwarded-For lines xff that is not a trusted proxy's,
// looking back at most 16 hops, or peer when they name none.
func ClientAddr(peer string, xff []string, trusted []netip.Addr) string {
	p, err := netip.ParseAddr(peer)
	if err != nil || !Trusted(trusted, p.Unmap()) {
		return peer
	}
	hops := strings.Split(strings.Join(xff, ","), ",")
	for i := len(hops) - 1; i >= 0 && i >= len(hops)-16; i-- {
		h, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !Trusted(trusted, h.Unmap()) {
			return h.Unmap().String()
		}
	}
	return peer
}

// Trusted reports whether addr is one of the trusted proxies.
func Trusted(trusted []netip.Addr, addr netip.Addr) bool {
	for _, p := range trusted {
		if p == addr {
			return true
		}
	}
	return false
}
