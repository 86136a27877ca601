package web

import (
	"html"
	"net/http"
	"strings"
)

// htmlPage builds one of the few HTML pages (statistics and login). Every
// value that is not a constant of this program goes through text, which
// escapes it for text and quoted attributes alike; values are never put
// into URLs, scripts or styles.
//
// It stands in for html/template on purpose: text/template's reflection
// keeps every exported method of every linked type alive, and every start
// of the full tool, a page's under CGI and a JSON count's alike, would pay
// for that in time and memory (deploy/bench/bench-pages.sh). html/template
// stays its oracle: html_test.go checks every page against the same page
// in testdata/pages.html.
type htmlPage struct{ b strings.Builder }

// raw writes markup that is a constant of this program.
func (p *htmlPage) raw(s ...string) {
	for _, x := range s {
		p.b.WriteString(x)
	}
}

// text writes s escaped.
func (p *htmlPage) text(s string) { p.b.WriteString(html.EscapeString(s)) }

// begin opens a page with its title and the one style sheet.
func (p *htmlPage) begin(title string) { p.beginStyled(title, "") }

// beginStyled is begin with more rules (a constant of this program) at
// the end of the style sheet.
func (p *htmlPage) beginStyled(title, more string) {
	p.raw(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>`)
	p.text(title)
	p.raw(`</title>
<style>
:root{--fg:#1d2329;--mute:#5b6570;--line:#dde2e6;--bar:#3b7dd8;--vis:#173f75;--soft:#9cc0ef;--bg:#fff}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);max-width:56rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 0}h2{font-size:1.1rem;margin:2rem 0 .5rem}
.sub{color:var(--mute);margin:0 0 1rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem}
.card{border:1px solid var(--line);border-radius:8px;padding:.6rem .8rem}
.card b{display:block;font-size:1.5rem;font-variant-numeric:tabular-nums}
.card span{color:var(--mute);font-size:.9rem}
svg.chart{width:100%;height:auto;border:1px solid var(--line);border-radius:8px}
svg.chart rect.bar{fill:var(--soft)}svg.chart rect.vis{fill:var(--vis)}svg.chart text{font-size:12px;fill:var(--mute)}
@media (max-width:40rem){svg.chart text{font-size:26px}td,th{padding:.3rem .3rem}table.kinds th.n{font-size:.8rem}}
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;border-bottom:1px solid var(--line);text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.msg{background:#fdecea;border:1px solid #f5c2bd;border-radius:6px;padding:.5rem .75rem}
form.login{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:1rem 0}
input[type=password]{font:inherit;padding:.4rem;border:1px solid var(--line);border-radius:6px}
button{font:inherit;padding:.4rem .9rem;border:1px solid var(--bar);background:var(--bar);color:#fff;border-radius:6px;cursor:pointer}
.fig{margin-top:1.25rem}.fig h2{margin:0}.fig .sub{font-size:.9rem;margin:0 0 .4rem}
.fig.shown .card{border-color:var(--soft)}
.tag{font-size:.75rem;font-weight:normal;color:var(--vis);background:#e7f0fc;border-radius:1rem;padding:.1rem .5rem;vertical-align:middle;white-space:nowrap}
.note{background:#fff8e1;border:1px solid #f1dfa0;border-radius:6px;padding:.5rem .75rem;font-size:.9rem}
.note code{display:inline-block}
.legend{margin:0 0 .4rem;color:var(--mute);font-size:.9rem}
.key{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;vertical-align:-.05rem;margin:0 .3rem 0 0}
.key.views{background:var(--soft)}.key.visitors{background:var(--vis);margin-left:.8rem}
table.kinds .n{width:1%}table.kinds td small{display:block;color:var(--mute);font-size:.85rem;line-height:1.3}
table.kinds tr.sum td{font-weight:600}
table.kinds tbody.counted td{border-top:2px solid var(--line)}
form.owner{border:1px solid var(--line);border-radius:8px;padding:.6rem .8rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between}
form.owner p{margin:0;flex:1 1 16rem}
.foot{margin-top:2rem;color:var(--mute);font-size:.9rem;display:flex;gap:1rem;flex-wrap:wrap;align-items:center}
.foot form{margin:0}.foot button{background:none;color:var(--bar)}
table.costs td{vertical-align:middle}table.costs td:last-child{width:50%}
svg.spark{width:100%;height:1.6rem;display:block}
svg.spark polyline{fill:none;stroke:var(--bar);stroke-width:1.5;vector-effect:non-scaling-stroke;stroke-linejoin:round}
svg.spark polyline.dot{stroke:var(--vis);stroke-width:5;stroke-linecap:round}
.msg.warn{background:#fff8e1;border-color:#f1dfa0;font-size:.9rem}
`, more, `</style></head><body>
`)
}

func (p *htmlPage) end() { p.raw("</body></html>\n") }

// writeHTML sends a page that is never cached and may load nothing from
// anywhere but images from this script (the statistics page shows the
// count in each look): no scripts, forms back to this script only.
func writeHTML(w http.ResponseWriter, r *http.Request, status int, p *htmlPage) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	writeBody(w, r, status, "text/html; charset=utf-8", []byte(p.b.String()))
}
