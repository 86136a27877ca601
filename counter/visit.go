package counter

import (
	"math"
	"strings"
)

// Kind is what a hit turned out to be: a view that counts, or the reason
// it was not counted.
type Kind uint8

const (
	// View is a hit that counts.
	View Kind = iota
	// GitHub is a view of a README through GitHub's image proxy: it counts
	// as a view, but the proxy fetches for every reader, so it never
	// counts as a visitor.
	GitHub
	// Reload is the same visitor on the same counter within its reload
	// window.
	Reload
	// Bot is a crawler, a link preview, a client library or a request
	// without a User-Agent.
	Bot
	// Prefetch is a browser fetching ahead of a click that may never come.
	Prefetch
	// Owner is a browser whose owner asked not to be counted.
	Owner
	// Foreign is a hit from a page on a host the counter does not allow.
	Foreign
	// Ignored is a hit from an address on the counter's ignore list.
	Ignored

	numKinds
)

// NotCountedKinds are the kinds of hit that are tallied but not counted,
// in the order the statistics show them.
var NotCountedKinds = [...]Kind{Reload, Bot, Prefetch, Owner, Foreign, Ignored}

// Counts reports whether a hit of kind k adds to the count.
func (k Kind) Counts() bool { return k == View || k == GitHub }

// String is the kind's name as the statistics and exports spell it.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

var kindNames = [numKinds]string{"views", "github", "reloads", "bots", "prefetches", "owner", "foreign", "ignored"}

// Outcome is what one hit was.
type Outcome struct {
	Kind Kind
	// NewVisitor is set on a counted view by a visitor not seen on this
	// counter before today.
	NewVisitor bool
	// PageVisitor is set on a counted view of a site's page by a visitor
	// not seen on that page before today.
	PageVisitor bool
}

// Tally is one day of a counter: the views, the visitors and the hits not
// counted, by kind.
type Tally struct {
	Views    uint64 // hits counted, GitHub's included
	Visitors uint64 // distinct visitors that day
	GitHub   uint64 // views through GitHub's image proxy
	// NotCounted is indexed by Kind; only the NotCountedKinds are set.
	NotCounted [numKinds]uint64
}

// Add tallies one hit of outcome o.
func (t *Tally) Add(o Outcome) {
	switch {
	case o.Kind.Counts():
		t.Views = AddCount(t.Views, 1)
		if o.Kind == GitHub {
			t.GitHub = AddCount(t.GitHub, 1)
		}
		if o.NewVisitor {
			t.Visitors = AddCount(t.Visitors, 1)
		}
	case o.Kind < numKinds:
		t.NotCounted[o.Kind] = AddCount(t.NotCounted[o.Kind], 1)
	}
}

// Plus returns the sum of two tallies, each figure stopping at the
// largest count rather than wrapping.
func (t Tally) Plus(u Tally) Tally {
	t.Views = AddCount(t.Views, u.Views)
	t.Visitors = AddCount(t.Visitors, u.Visitors)
	t.GitHub = AddCount(t.GitHub, u.GitHub)
	for i := range t.NotCounted {
		t.NotCounted[i] = AddCount(t.NotCounted[i], u.NotCounted[i])
	}
	return t
}

// AllNotCounted returns the hits not counted, of every kind.
func (t Tally) AllNotCounted() uint64 {
	var n uint64
	for _, k := range NotCountedKinds {
		n = AddCount(n, t.NotCounted[k])
	}
	return n
}

// AddCount adds two counts, stopping at the largest count rather than
// wrapping: a file may hold any figure (an import, a damaged day), and a
// sum of them must not show less than its parts.
func AddCount(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint64
}

// prefetchHeaders are the request headers by which browsers announce a
// fetch ahead of a click, with the value that says so.
var prefetchHeaders = [...]struct{ name, value string }{
	{"Sec-Purpose", "prefetch"}, // Chrome; "prefetch;prerender" too
	{"Purpose", "prefetch"},     // older Chrome and Safari
	{"X-Moz", "prefetch"},       // Firefox
	{"X-Purpose", "preview"},    // Safari's top sites
}

// IsPrefetch reports whether a request whose headers header returns is a
// prefetch or a preview.
func IsPrefetch(header func(name string) string) bool {
	for _, h := range prefetchHeaders {
		if v := header(h.name); v != "" && hasToken(v, h.value) {
			return true
		}
	}
	return false
}

// hasToken reports whether the list v (tokens separated by ';', ',' or
// spaces) holds token, in any case.
func hasToken(v, token string) bool {
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == ',' || r == ' ' || r == '\t' }) {
		if name, _, _ := strings.Cut(f, "="); strings.EqualFold(name, token) {
			return true
		}
	}
	return false
}
