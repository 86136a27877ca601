package counter

import (
	"net/url"
	"strconv"
	"strings"
)

// MaxListedPages bounds the pages one request names: an index page's
// list of posts, read at once.
const MaxListedPages = 100

// MaxListQueryLen bounds the query of a request that names pages (a
// read of many pages, the script's count): room for MaxListedPages
// paths of a blog's usual length. Images keep MaxQueryLen.
const MaxListQueryLen = 8 << 10

// ListQuery is the query of a request that names pages: NAME.json's, or
// the count that NAME.js sends.
type ListQuery struct {
	// Page is the page the request is about: a count's page=, or
	// NAME.json's page= when it names one page alone.
	Page    string
	HasPage bool
	// Pages are the pages listed, in the order given: NAME.json's page=
	// (however many), the count's p=.
	Pages []string
	// Source is, on a count, the host of the page's own
	// document.referrer (ref=) as ReferrerHost makes it: "" for none, or
	// one that is no host.
	Source string
	Image  *Image // show=page|site, nil for the site's setting
}

// ParseJSONQuery reads NAME.json's query: page= may repeat, up to
// MaxListedPages times; show= is given at most once. Other keys are
// ignored, as a cache-buster's.
func ParseJSONQuery(rawQuery string) (ListQuery, error) {
	q, err := parseList(rawQuery, "page")
	if len(q.Pages) == 1 {
		q.Page, q.HasPage = q.Pages[0], true
	}
	return q, err
}

// ParseCountQuery reads the query of the script's count: page= (the
// page counted) and ref= at most once each, p= (the pages whose figures
// the page shows) up to MaxListedPages times.
func ParseCountQuery(rawQuery string) (ListQuery, error) {
	return parseList(rawQuery, "p")
}

// parseList reads a query in which key list may repeat.
func parseList(rawQuery, list string) (ListQuery, error) {
	var q ListQuery
	if len(rawQuery) > MaxListQueryLen {
		return q, &ParamError{"query", "longer than " + strconv.Itoa(MaxListQueryLen) + " bytes"}
	}
	seen := map[string]bool{}
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != list && k != "page" && k != "ref" && k != "show" {
			continue
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return q, &ParamError{k, "bad %-escape"}
		}
		if k == list {
			if len(q.Pages) == MaxListedPages {
				return q, &ParamError{k, "more than " + strconv.Itoa(MaxListedPages) + " pages"}
			}
			q.Pages = append(q.Pages, val)
			continue
		}
		if seen[k] {
			return q, &ParamError{k, "given more than once"}
		}
		seen[k] = true
		switch k {
		case "page":
			q.Page, q.HasPage = val, true
		case "ref":
			q.Source = SourceHost(val)
		case "show":
			i, ok := ParseImage(val)
			if !ok {
				return q, &ParamError{"show", "must be page or site"}
			}
			q.Image = &i
		}
	}
	return q, nil
}

// SourceHost is the host that a script says its page's
// document.referrer names, as ReferrerHost makes a Referer's: lowercase,
// without a port, "" for one that is no host. Only the host is ever
// kept, never a path or query, which can carry tokens.
func SourceHost(host string) string {
	if host == "" || strings.ContainsAny(host, "/?#@\\") {
		return ""
	}
	return ReferrerHost("http://" + host + "/")
}
