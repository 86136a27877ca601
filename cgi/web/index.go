package web

import (
	"html"
	"strconv"
	"strings"

	"hitcounter/counter"
)

// writeDemo writes the local server's part of its root page, below the
// overview: each counter in use and what to paste into a page, in every
// look and digit set. Its markup is checked against html/template's
// (TestDemoPageAsItsTemplate).
func writeDemo(p *htmlPage, list []counter.Info, sets []string, here string) {
	p.raw(demoIntro)
	for _, c := range list {
		n := html.EscapeString(c.Name) // names are plain already; escape all the same
		p.raw(strings.NewReplacer("NAME", n, "COUNTS", whatCounts(c.Settings, here, len(sets))).Replace(indexCounter))
		p.raw("<p>Built-in looks: <code>theme=</code> one of them, <code>fg</code> and <code>bg</code> recolour it.</p>\n<div class=\"row\">\n")
		for _, look := range counter.LookNames() {
			p.raw(strings.NewReplacer("NAME", n, "LOOK", look, "EXT", "png").Replace(indexLook))
		}
		p.raw("</div>\n")
		if len(sets) > 0 {
			// A GIF, which animates an animated set.
			p.raw("<p>Your digit sets (<code>counter digitset add</code>): <code>theme=</code> one of them.</p>\n<div class=\"row\">\n")
			for _, set := range sets {
				p.raw(strings.NewReplacer("NAME", n, "LOOK", html.EscapeString(set), "EXT", "gif").Replace(indexLook))
			}
			p.raw("</div>\n")
		}
	}
	if len(list) == 0 {
		p.raw("<p>No counters yet: make one with <code>counter create NAME</code>.</p>\n")
	}
}

const demoIntro = `<p>The counters below count as they will on your pages: a <b>view</b> when a
browser loads the image, and a <b>visitor</b> the first time that browser
comes that day (UTC). Not counted: the same browser again within the
counter's reload window (30 minutes unless set otherwise), bots and scripts
(curl too), prefetches, your own browser once marked on the statistics page,
pages of sites not on the counter's list, and ignored addresses. Each of
those is still on the statistics page, under "Hits not counted", with its
reason.</p>
`

const indexCounter = `<h2>NAME</h2>
<p>COUNTS</p>
<div class="row">
<img src="NAME.png" alt="NAME visits">
<img src="NAME.svg?digits=8&amp;fg=0f0&amp;bg=000&amp;size=32" alt="NAME visits">
<img src="NAME.gif?font=bold&amp;fg=c00&amp;bg=fff0" alt="NAME visits">
</div>
<p>Put this in a page served next to the CGI:</p>
<pre>&lt;img src="/cgi-bin/counter.cgi/NAME.png" alt="visitors"&gt;</pre>
<p>The count as JSON, without counting: <a href="NAME.json">NAME.json</a>.
Its statistics: <a href="NAME/stats">NAME/stats</a>.</p>
`

// indexLook shows a built-in look or a set and the tag that asks for it.
const indexLook = `<figure><img src="NAME.EXT?theme=LOOK" alt="NAME visits, LOOK">
<figcaption><code>&lt;img src="/cgi-bin/counter.cgi/NAME.EXT?theme=LOOK" alt="visitors"&gt;</code></figcaption></figure>
`

// whatCounts says what a load of the demo page adds to a counter of
// settings s, for its images (three, one a look and one a set of the sets
// there are): plain text, with nothing from the request but the page's
// own host (here).
func whatCounts(s counter.Settings, here string, sets int) string {
	var b strings.Builder
	n := strconv.Itoa(3 + len(counter.LookNames()) + sets)
	switch {
	case s.LimitsReferrers() && !s.AllowsReferrer(here):
		return "This counter counts only on the sites on its list (referrers=), and this page is not one: loading it counts nothing; the statistics page lists its hits as foreign."
	case s.Reload > 0:
		b.WriteString("The " + n + " images below are one counter: a browser's first load of this page counts one view, not " + n + " (the images after the first are its reloads), and loading the page again within " + plainDuration(s.Reload) + " counts nothing.")
	default:
		b.WriteString("This counter counts every hit (reload=off): each load of this page adds " + n + " views, one per image.")
	}
	if s.Show == counter.ShowVisitors {
		b.WriteString(" Its images show unique visitors: this browser adds one a day.")
	}
	return b.String()
}
