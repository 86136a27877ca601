package counter

import (
	"encoding/binary"
	"net/netip"
	"strings"
)

// camoAgent starts the User-Agent of GitHub's image proxy, followed by its
// build: "github-camo (876de43e)".
const camoAgent = "github-camo"

// IsGitHubCamo reports whether a hit with userAgent from addr is GitHub's
// image proxy, which fetches README images on behalf of their readers:
// its User-Agent says so and it comes from GitHub's published addresses
// (githubcamo.txt). Anyone can send the User-Agent; a hit that sends it
// from elsewhere is an ordinary hit, judged by every rule.
//
// Every other User-Agent costs a prefix test; the proxy's, a binary
// search of a few ranges.
func IsGitHubCamo(userAgent string, addr netip.Addr) bool {
	return strings.HasPrefix(userAgent, camoAgent) && isGitHubProxyAddr(addr)
}

// isGitHubProxyAddr reports whether addr is in one of GitHub's ranges.
// IPv4 addresses are looked up in their IPv6-mapped form, as the table
// holds them, so ::ffff:140.82.112.1 is 140.82.112.1.
func isGitHubProxyAddr(addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	b := addr.Unmap().As16()
	x := u128{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
	// The first range that starts after x; x can only be in the one before.
	lo, hi := 0, len(camoRanges)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x.less(camoRanges[mid].first) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo > 0 && !camoRanges[lo-1].last.less(x)
}

// u128 is a 16-byte address as a number, its high half first.
type u128 struct{ hi, lo uint64 }

func (a u128) less(b u128) bool { return a.hi < b.hi || a.hi == b.hi && a.lo < b.lo }

// addrRange is the first and last address of a network.
type addrRange struct{ first, last u128 }
