package counter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A site is one counter for every page of a static site: the one tag in
// the site's template counts the page that showed it, and the site's
// total. Pages are made by hits, within bounds the owner sets.

// DefaultMaxPages is how many pages a site's hits may make unless the site
// says otherwise.
const DefaultMaxPages = 10_000

// MaxMaxPages bounds the page cap an owner may set.
const MaxMaxPages = 1_000_000

// OtherPages is the row of a site that counts the hits on new pages past
// its cap and, in the history of a day that is over, the views of the
// pages past the day's most viewed (the store keeps a bounded number of
// rows a day). It cannot be a page: every page starts with "/".
const OtherPages = "(other pages)"

// Image says what the image of a site counts.
type Image uint8

const (
	// PageImage shows the count of the page that showed the image.
	PageImage Image = iota
	// SiteImage shows the site's total.
	SiteImage
)

func (i Image) String() string {
	if i == SiteImage {
		return "site"
	}
	return "page"
}

// ParseImage reads "page" or "site".
func ParseImage(s string) (Image, bool) {
	switch s {
	case "page":
		return PageImage, true
	case "site":
		return SiteImage, true
	}
	return PageImage, false
}

// Site holds the settings of a site counter; a plain counter has none.
type Site struct {
	// Hosts lists the hosts whose pages the site counts, an entry
	// "*.example.org" standing for every host under example.org. A hit
	// from a page elsewhere is foreign; only a hit from one of these may
	// make a page. Never empty on a site.
	Hosts []string
	// MaxPages is how many pages hits may make; hits on further new
	// pages count under OtherPages.
	MaxPages int
	// KeepQuery lists the query keys that tell pages apart ("p" for
	// "/?p=123"); every other query key is dropped.
	KeepQuery []string
	// Image is what the site's image shows unless the tag says.
	Image Image
	// PublicPages lets any page read the site's most viewed pages
	// (NAME.json?top=N): a list of its pages is more than its image
	// shows, so the owner turns it on. A password on the statistics
	// keeps the list private all the same (PageListPublic).
	PublicPages bool
}

// ErrNotSite reports a site's setting or command used on a plain counter.
var ErrNotSite = errors.New("not a site")

// NewSite returns the settings of a new site counting the pages of hosts,
// given as Set takes them ("blog.example,www.blog.example").
func NewSite(hosts string) (Settings, error) {
	s := DefaultSettings()
	list, err := editList(nil, '=', hosts, parseHostPattern, func(a, b string) bool { return a == b })
	if err == nil && len(list) == 0 {
		err = errors.New("a site needs at least one host, like -hosts blog.example,www.blog.example")
	}
	if err != nil {
		return s, fmt.Errorf("%w: hosts: %w", ErrSetting, err)
	}
	s.Site = &Site{Hosts: list, MaxPages: DefaultMaxPages}
	return s, nil
}

// IsSite reports whether the settings are a site's.
func (s Settings) IsSite() bool { return s.Site != nil }

// siteKeys are the keys of Settings.Set that only a site has.
var siteKeys = [...]string{"hosts", "max-pages", "keep-query", "image", "public-pages"}

// setSite applies one of the siteKeys. The site is copied first, so that
// settings read from the store are never changed behind a caller's back.
func (s *Settings) setSite(key string, op byte, value string) error {
	if s.Site == nil {
		return fmt.Errorf("%w: %s is a site's setting; make a site with create NAME -site -hosts HOST,...", ErrNotSite, key)
	}
	site := s.Site.clone()
	var err error
	switch key {
	case "hosts":
		site.Hosts, err = editList(site.Hosts, op, value, parseHostPattern, func(a, b string) bool { return a == b })
		if err == nil && len(site.Hosts) == 0 {
			err = errors.New("a site needs at least one host")
		}
	case "max-pages":
		n, perr := strconv.Atoi(value)
		if op != '=' || perr != nil || n < 1 || n > MaxMaxPages {
			return fmt.Errorf("max-pages takes a whole number from 1 to %d", MaxMaxPages)
		}
		site.MaxPages = n
	case "keep-query":
		site.KeepQuery, err = editList(site.KeepQuery, op, value, parseQueryKey, func(a, b string) bool { return a == b })
	case "image":
		var ok bool
		if site.Image, ok = ParseImage(value); !ok || op != '=' {
			return errors.New("image takes page or site")
		}
	case "public-pages":
		var ok bool
		if site.PublicPages, ok = parseOnOff(value); !ok || op != '=' {
			return errors.New("public-pages takes on or off")
		}
	}
	if err != nil {
		return err
	}
	s.Site = &site
	return nil
}

// parseOnOff reads a switch: on or off.
func parseOnOff(v string) (on, ok bool) {
	switch v {
	case "on":
		return true, true
	case "off":
		return false, true
	}
	return false, false
}

// onOff writes a switch as parseOnOff reads it.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// PageListPublic reports whether a stranger may read the list of the
// counter's pages (its most viewed): only a site's, only when its owner
// turned public-pages on, and never when its statistics have a password,
// whose owner keeps every list but the figures its images show private.
func (i Info) PageListPublic() bool {
	return i.Settings.Site != nil && i.Settings.Site.PublicPages && !i.Protected()
}

func (site *Site) clone() Site {
	c := *site
	c.Hosts = append([]string(nil), site.Hosts...)
	c.KeepQuery = append([]string(nil), site.KeepQuery...)
	return c
}

// maxQueryKey bounds a query key to keep.
const maxQueryKey = 64

// parseQueryKey reads a query key to keep: printable ASCII without the
// characters that separate a query.
func parseQueryKey(k string) (string, error) {
	if k == "" || len(k) > maxQueryKey {
		return "", fmt.Errorf("%q is not a query key like p or id", k)
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("&=#?%+", c) >= 0 {
			return "", fmt.Errorf("%q is not a query key like p or id", k)
		}
	}
	return k, nil
}

// IsSiteHost reports whether host is one of the site's hosts.
func (site *Site) IsSiteHost(host string) bool {
	return host != "" && matchHost(site.Hosts, host)
}

// matchHost reports whether host fits one of patterns.
func matchHost(patterns []string, host string) bool {
	for _, p := range patterns {
		if suffix, ok := strings.CutPrefix(p, "*"); ok {
			if strings.HasSuffix(host, suffix) && len(host) > len(suffix) {
				return true
			}
		} else if host == p {
			return true
		}
	}
	return false
}

// Page is one page of a site, or its OtherPages row.
type Page struct {
	Page     string // as PageKey makes it, or OtherPages
	Views    uint64
	Visitors uint64 // each day's added up
	// FirstSeen is the day of the page's first counted hit.
	FirstSeen time.Time
}

// PageDay is what one page got on one UTC day.
type PageDay struct {
	Date     string // 2006-01-02
	Page     string
	Views    uint64
	Visitors uint64
}
