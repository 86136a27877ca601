package imports

import (
	"slices"
	"strings"

	"hitcounter/counter"
)

// refBook adds up the views of each referring host as a live hit records
// them: the host of the page that showed the counter, which is what the
// statistics page lists under "Top referring sites". Past MaxReferrers
// hosts, the views go under counter.OtherReferrers, as live.
type refBook map[string]uint64

// add counts views from host, "" being none.
func (b refBook) add(host string, views uint64) {
	if host == "" || views == 0 {
		return
	}
	if _, ok := b[host]; !ok && len(b) >= counter.MaxReferrers {
		host = counter.OtherReferrers
	}
	b[host] += views
}

// list returns the hosts, most views first.
func (b refBook) list() []counter.Referrer {
	if len(b) == 0 {
		return nil
	}
	refs := make([]counter.Referrer, 0, len(b))
	for h, n := range b {
		refs = append(refs, counter.Referrer{Host: h, Hits: n})
	}
	slices.SortFunc(refs, func(a, b counter.Referrer) int {
		if a.Hits != b.Hits {
			if a.Hits > b.Hits {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Host, b.Host)
	})
	return refs
}
