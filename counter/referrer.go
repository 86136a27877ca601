package counter

import "strings"

// MaxReferrers is how many distinct referring hosts are kept per counter.
// Hits from further hosts are added up under OtherReferrers, so that
// referrer spam cannot grow the database without bound.
const MaxReferrers = 100

// OtherReferrers is the host under which hits from hosts beyond
// MaxReferrers are counted. It cannot be a real host name.
const OtherReferrers = "(other)"

// maxHostLen bounds a stored host; real sites rarely need half of it.
const maxHostLen = 100

// refererWindow bounds the work spent on one Referer header: only its
// first bytes are read. A host ends well within them, however long the
// path and query after it (search results and tracking parameters make
// URLs of several kilobytes).
const refererWindow = 512

// ReferrerHost returns the host of an http or https Referer header value,
// lowercased and without port or user information, or "" when the value
// names no host worth counting.
func ReferrerHost(referer string) string {
	// Cut to the window, but never inside the host: if the authority does
	// not end within it, the host is not known.
	cut := len(referer) > refererWindow
	if cut {
		referer = referer[:refererWindow]
	}
	rest, ok := cutPrefixFold(referer, "https://")
	if !ok {
		if rest, ok = cutPrefixFold(referer, "http://"); !ok {
			return ""
		}
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	} else if cut {
		return ""
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	host := rest
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return ""
		}
		host = rest[:end+1]
	} else if i := strings.IndexByte(rest, ':'); i >= 0 {
		host = rest[:i]
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" || len(host) > maxHostLen || !validReferrerHost(host) {
		return ""
	}
	return host
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// validReferrerHost accepts lowercase DNS names (IDNs arrive as punycode) and
// bracketed IPv6 literals, nothing that could carry markup.
func validReferrerHost(h string) bool {
	if h[0] == '[' {
		for i := 1; i < len(h)-1; i++ {
			c := h[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == ':' || c == '.') {
				return false
			}
		}
		return len(h) > 2
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}
