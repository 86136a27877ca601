package counter

import "strings"

// Sources are where readers came from: the host of the page a reader
// followed a link on (the page's own document.referrer, which only a
// script sees), where the referrers are the hosts of the pages that show
// the counter. They are kept as the referrers are: by host alone, never a
// path or a query string (which can carry a search's words or a token),
// at most MaxSources hosts, those past them added up under OtherSources.

// MaxSources is how many distinct sources are kept per counter, as
// MaxReferrers referrers.
const MaxSources = MaxReferrers

// OtherSources is the source under which views from sources past
// MaxSources are counted. It cannot be a host, nor a group's name.
const OtherSources = OtherReferrers

// TopSources is how many sources the statistics show.
const TopSources = TopReferrers

// A sourceGroup puts the many hosts of one search engine or social site
// under one name, so that google.de and www.google.com are one row and a
// single site takes one of the MaxSources places. Its name starts with a
// capital letter, which no stored host has (ReferrerHost lowercases).
type sourceGroup struct {
	name, kind string
	// hosts are the group's domains, each matching itself and every
	// host under it; one ending in ".*" matches that name under any
	// country's suffix ("google.*": google.de, www.google.co.uk).
	hosts []string
}

// sourceGroups is a small table of the search engines and social sites
// that send most readers to small sites, kept short on purpose: a host
// not in it is shown as itself, which is never wrong, only less grouped.
var sourceGroups = [...]sourceGroup{
	{"Google", "search", []string{"google.*"}},
	{"Bing", "search", []string{"bing.com"}},
	{"DuckDuckGo", "search", []string{"duckduckgo.com"}},
	{"Yandex", "search", []string{"yandex.*", "ya.ru"}},
	{"Baidu", "search", []string{"baidu.com"}},
	{"Ecosia", "search", []string{"ecosia.org"}},
	{"Yahoo", "search", []string{"yahoo.*"}},
	{"Brave Search", "search", []string{"search.brave.com"}},
	{"Startpage", "search", []string{"startpage.com"}},
	{"Qwant", "search", []string{"qwant.com"}},
	{"Kagi", "search", []string{"kagi.com"}},
	{"Naver", "search", []string{"naver.com"}},
	{"Seznam", "search", []string{"seznam.cz"}},
	{"Twitter/X", "social", []string{"t.co", "twitter.com", "x.com"}},
	{"Facebook", "social", []string{"facebook.com", "fb.com"}},
	{"Instagram", "social", []string{"instagram.com"}},
	{"Reddit", "social", []string{"reddit.com"}},
	{"Hacker News", "social", []string{"news.ycombinator.com"}},
	{"Lobsters", "social", []string{"lobste.rs"}},
	{"LinkedIn", "social", []string{"linkedin.com", "lnkd.in"}},
	{"Mastodon", "social", []string{"mastodon.social", "mastodon.online", "mstdn.social", "fosstodon.org", "hachyderm.io", "infosec.exchange"}},
	{"Bluesky", "social", []string{"bsky.app"}},
	{"YouTube", "social", []string{"youtube.com", "youtu.be"}},
}

// SourceKey is the key under which a view from a page on host counts in
// the sources: its group's name, or the host itself, lowercased; "" when
// host is no host ReferrerHost would keep. A group's name is its own key.
func SourceKey(host string) string {
	if host == "" {
		return ""
	}
	if SourceKind(host) != "" {
		return host
	}
	h := ReferrerHost("https://" + host + "/")
	if h == "" || h != strings.TrimSuffix(strings.ToLower(host), ".") {
		return ""
	}
	for _, g := range sourceGroups {
		for _, pattern := range g.hosts {
			if matchSourceHost(pattern, h) {
				return g.name
			}
		}
	}
	return h
}

// SourceKind is "search" or "social" for a group's name, "" for a host.
func SourceKind(key string) string {
	for _, g := range sourceGroups {
		if g.name == key {
			return g.kind
		}
	}
	return ""
}

// matchSourceHost reports whether host is pattern's domain or under it;
// a pattern "name.*" takes any suffix of one or two short labels after
// name (de, com, co.uk, com.br), so that google.example.com is not
// Google's.
func matchSourceHost(pattern, host string) bool {
	name, any := strings.CutSuffix(pattern, ".*")
	if !any {
		return host == pattern || strings.HasSuffix(host, "."+pattern)
	}
	labels := strings.Split(host, ".")
	for i, l := range labels {
		if l != name {
			continue
		}
		rest := labels[i+1:]
		if len(rest) < 1 || len(rest) > 2 {
			continue
		}
		short := true
		for _, r := range rest {
			short = short && len(r) >= 2 && len(r) <= 3
		}
		if short {
			return true
		}
	}
	return false
}

// Source is the source key of a view of a page on pageHost reached from a
// page on host: "" when either is unknown, or when host is one of the
// counter's own (the page's host, a site's hosts, the hosts of its
// referrers= list), which is a reader going from page to page, not
// coming in.
func (s Settings) Source(host, pageHost string) string {
	key := SourceKey(host)
	if key == "" || key == pageHost {
		return ""
	}
	if s.Site != nil && s.Site.IsSiteHost(key) || len(s.Referrers) > 0 && matchHost(s.Referrers, key) {
		return ""
	}
	return key
}
