package web

import (
	"net/http"
	"path"
	"slices"
	"strings"

	"hitcounter/cgi/gateway"
)

// route is one line of the route table: a method, a pattern of one or two
// path segments where {x} matches any one segment (read back with
// r.PathValue("x")), and its handler.
type route struct {
	method, pattern string
	handle          func(*App, http.ResponseWriter, *http.Request)
}

// routes is the route table. Paths are relative to the script: under CGI
// the transport has already stripped /cgi-bin/counter.cgi. GET patterns
// answer HEAD too.
var routes = [...]route{
	// The owner's login and logout, before "/{file}", which would take
	// them for a counter's image.
	{"GET", "/login", (*App).serveOwnerForm},
	{"POST", "/login", (*App).serveOwnerLogin},
	{"POST", "/logout", (*App).serveOwnerLogout},
	{"GET", "/metrics", (*App).serveMetrics}, // likewise: no counter's image
	{"GET", "/{file}", (*App).serveCounter},
	{"GET", "/{name}/stats", (*App).serveStats},
	{"GET", "/{name}/stats.csv", (*App).serveExport},
	{"GET", "/{name}/stats.json", (*App).serveExport},
	{"POST", "/{name}/login", (*App).serveLogin},
	{"POST", "/{name}/logout", (*App).serveLogout},
	{"POST", "/{name}/owner", (*App).serveOwner},
	{"POST", "/owner", (*App).serveOwnerAll},
	{"GET", "/", (*App).serveRoot}, // the owner's; the local server's demo
}

// router matches requests against routes. It stands in for ServeMux,
// which redirects an unclean path (a "." or ".." segment, a double
// slash) to its clean form: under CGI the redirect points outside the
// script, where the reference promises a 400. Such paths are refused.
type router struct{ a *App }

func (rt router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		// The script itself, without the slash (gateway): its root's
		// forms post to "login" and "logout", which from there would
		// leave the script. Mount is the web server's SCRIPT_NAME here,
		// never a path the visitor wrote.
		w.Header().Set("Location", gateway.Mount(r)+"/")
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	if p == "" {
		p = "/"
	}
	if !strings.HasPrefix(p, "/") || (p != "/" && path.Clean(p) != p) {
		rt.a.Refuse(w, r, errUncleanPath)
		return
	}
	var allow []string
	for _, rte := range routes {
		vars, ok := match(rte.pattern, p)
		if !ok {
			continue
		}
		if r.Method != rte.method && !(r.Method == http.MethodHead && rte.method == http.MethodGet) {
			if !slices.Contains(allow, rte.method) {
				allow = append(allow, rte.method)
			}
			continue
		}
		for i := 0; i+1 < len(vars); i += 2 {
			r.SetPathValue(vars[i], vars[i+1])
		}
		rt.a.serveTimed(rte.handle, w, r)
		return
	}
	if len(allow) > 0 {
		if allow[0] == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rt.a.log.Printf("%s %q: no such page", r.Method, p)
	http.NotFound(w, r)
}

// match reports whether path fits pattern segment by segment, and returns
// the {name} segments as name, value pairs. No segment may be empty.
func match(pattern, p string) ([]string, bool) {
	if pattern == "/" || p == "/" {
		return nil, pattern == p
	}
	want := strings.Split(pattern[1:], "/")
	got := strings.Split(p[1:], "/")
	if len(want) != len(got) {
		return nil, false
	}
	var vars []string
	for i, w := range want {
		switch {
		case got[i] == "":
			return nil, false
		case strings.HasPrefix(w, "{"):
			vars = append(vars, w[1:len(w)-1], got[i])
		case w != got[i]:
			return nil, false
		}
	}
	return vars, true
}
