// Package feed reads the titles of a site's pages from the site's own
// files: its RSS or Atom feed, which every generator writes with each
// post's title and link, or its sitemap.xml, which by its standard has
// no titles (only a Google News sitemap's news:title). The titles come
// from the owner's file, never from a visitor's request.
//
// What the generators write (read in their sources and docs):
//   - Hugo: index.xml, RSS 2.0, item title and link (all pages by
//     default); sitemap.xml with loc, lastmod, no title.
//   - Jekyll (jekyll-feed): feed.xml, Atom, entry title type="html" and
//     link rel="alternate" href (the last 10 posts by default);
//     jekyll-sitemap: loc and lastmod.
//   - Hexo (hexo-generator-feed): atom.xml (Atom) or rss2.xml, the last
//     20 posts by default; hexo-generator-sitemap: loc and lastmod.
//   - Eleventy (@11ty/eleventy-plugin-rss): the feed the owner's template
//     makes, Atom in its sample, entry title and link href.
package feed

import (
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"strings"

	"hitcounter/counter"
)

// MaxBytes bounds the file read: a feed of every post of a large blog,
// with their summaries, is a megabyte or two.
const MaxBytes = 8 << 20

// Formats a file can be.
const (
	RSS     = "RSS"
	Atom    = "Atom"
	Sitemap = "sitemap"
)

// Read is what a file gave.
type Read struct {
	Format string // RSS, Atom or Sitemap
	// Titles are the pages' titles, each page once (its first), in the
	// file's order; pages as counter.PageKey makes them.
	Titles []counter.Title
	// Entries are the items, entries or URLs read; Untitled those
	// without a title (a sitemap's URLs but a news sitemap's), Elsewhere
	// those whose link is on none of the site's hosts, BadLinks those
	// whose link makes no page, Again those of a page given before.
	Entries, Untitled, Elsewhere, BadLinks, Again int
}

// ErrNoTitles says a file gave no title at all.
var ErrNoTitles = errors.New("no titles")

// Titles reads the titles of site's pages from r, a feed or a sitemap:
// an entry's link on one of site's hosts (or a path) is its page, its
// title made one line (and, for an Atom title of type html or xhtml,
// plain text). It reads at most MaxBytes and counter.MaxTitles titles.
func Titles(r io.Reader, site *counter.Site) (Read, error) {
	return titles(r, site, MaxBytes)
}

// titles is Titles with its bound.
func titles(r io.Reader, site *counter.Site, maxBytes int64) (Read, error) {
	return readTitles(&io.LimitedReader{R: r, N: maxBytes + 1}, site)
}

func readTitles(lr *io.LimitedReader, site *counter.Site) (Read, error) {
	var out Read
	limit := lr.N - 1
	// Past the bound, the decoder sees the file end where it does not:
	// say so, not what the cut made of the XML.
	bounded := func(err error) error {
		if lr.N <= 0 {
			return fmt.Errorf("larger than %d MiB", limit>>20)
		}
		return err
	}
	d := xml.NewDecoder(lr)
	seen := map[string]bool{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, bounded(fmt.Errorf("not XML: %w", err))
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if out.Format == "" {
			switch se.Name.Local {
			case "rss", "RDF":
				out.Format = RSS
			case "feed":
				out.Format = Atom
			case "urlset":
				out.Format = Sitemap
			case "sitemapindex":
				return out, errors.New("a sitemap index, which lists sitemaps: give the site's feed (or one of the sitemaps)")
			default:
				return out, fmt.Errorf("neither a feed (RSS, Atom) nor a sitemap: its root is <%s>", se.Name.Local)
			}
			continue
		}
		var link, title string
		switch {
		case out.Format == RSS && se.Name.Local == "item":
			var it rssItem
			if err := d.DecodeElement(&it, &se); err != nil {
				return out, bounded(fmt.Errorf("an item: %w", err))
			}
			link, title = it.link(), it.Title
		case out.Format == Atom && se.Name.Local == "entry":
			var e atomEntry
			if err := d.DecodeElement(&e, &se); err != nil {
				return out, bounded(fmt.Errorf("an entry: %w", err))
			}
			link, title = e.link(), e.Title.plain()
		case out.Format == Sitemap && se.Name.Local == "url":
			var u sitemapURL
			if err := d.DecodeElement(&u, &se); err != nil {
				return out, bounded(fmt.Errorf("a URL: %w", err))
			}
			link, title = u.Loc, u.News.Title
		default:
			continue
		}
		out.Entries++
		title = counter.CleanTitle(title)
		if title == "" {
			out.Untitled++
			continue
		}
		page, where := pageOf(strings.TrimSpace(link), site)
		switch {
		case where == elsewhere:
			out.Elsewhere++
		case where == bad:
			out.BadLinks++
		case seen[page]:
			out.Again++
		case len(out.Titles) >= counter.MaxTitles:
			return out, fmt.Errorf("more than %d titles", counter.MaxTitles)
		default:
			seen[page] = true
			out.Titles = append(out.Titles, counter.Title{Page: page, Title: title})
		}
	}
	if out.Format == "" {
		return out, errors.New("empty: no XML element")
	}
	if len(out.Titles) == 0 {
		return out, ErrNoTitles
	}
	return out, nil
}

// Where a link is.
const (
	onSite = iota
	elsewhere
	bad
)

// pageOf is the page of site that link names: an absolute URL on one of
// its hosts, or a path.
func pageOf(link string, site *counter.Site) (string, int) {
	u, err := url.Parse(link)
	if err != nil || link == "" {
		return "", bad
	}
	if u.IsAbs() || u.Host != "" {
		if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "" {
			return "", bad
		}
		host := counter.ReferrerHost("https://" + u.Host + "/")
		if host == "" || !site.IsSiteHost(host) {
			return "", elsewhere
		}
	}
	if !strings.HasPrefix(u.EscapedPath(), "/") {
		return "", bad
	}
	target := u.EscapedPath()
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	page, err := counter.PageKey(target, site.KeepQuery)
	if err != nil {
		return "", bad
	}
	return page, onSite
}

// rssItem is an RSS 2.0 (or 1.0) item: a plain title, and its link as
// text (an atom:link in an item has its link in href, and no text).
type rssItem struct {
	Title string   `xml:"title"`
	Links []string `xml:"link"`
}

func (it rssItem) link() string {
	for _, l := range it.Links {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// atomEntry is an Atom entry: its title, and its links, of which the
// page is the one with rel alternate, or no rel.
type atomEntry struct {
	Title atomText   `xml:"title"`
	Links []atomLink `xml:"link"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
}

func (e atomEntry) link() string {
	for _, l := range e.Links {
		if l.Rel == "" || l.Rel == "alternate" {
			return l.Href
		}
	}
	return ""
}

// atomText is an Atom text construct: plain text, or markup as escaped
// text (type html) or as elements (type xhtml), of which the words are
// the title.
type atomText struct {
	Type  string `xml:"type,attr"`
	Text  string `xml:",chardata"`
	Inner string `xml:",innerxml"`
}

func (t atomText) plain() string {
	switch t.Type {
	case "html":
		return html.UnescapeString(stripTags(t.Text))
	case "xhtml":
		return html.UnescapeString(stripTags(t.Inner))
	}
	return t.Text
}

// stripTags drops what is between < and >, each tag a space.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sitemapURL is a sitemap's url: its loc, and a Google News sitemap's
// title, the one title a sitemap can have.
type sitemapURL struct {
	Loc  string `xml:"loc"`
	News struct {
		Title string `xml:"title"`
	} `xml:"http://www.google.com/schemas/sitemap-news/0.9 news"`
}
