package test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// printedTag is the <img> line install.sh prints for the owner to paste.
var printedTag = regexp.MustCompile(`(?m)^  (<img src="/cgi-bin/counter\.cgi/[^"]+\.png" alt="visitors">)$`)

// checkInstalledPage puts a static page holding tag (the line install.sh
// printed) into the document root of srv, a server running the installed
// configuration, opens it in Chromium as the visitor ua, and checks that
// the count of name rose by one.
func checkInstalledPage(t *testing.T, srv *webServer, tag, name, ua string) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		skipOutsideCI(t, "chromium not installed (apt-get install chromium)")
	}
	if srv.htdocs == "" {
		t.Fatalf("%s: no document root to put the page in", srv.Name)
	}
	page := fmt.Sprintf("<!doctype html>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<p>%s</p>\n", name, tag)
	if err := os.WriteFile(filepath.Join(srv.htdocs, name+".html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	before := jsonCount(t, srv.URL, name)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ctx = newBrowser(t, ctx)
	setUserAgent(t, ctx, ua)
	openPages(t, ctx, srv.URL, []sitePage{{file: name + ".html", open: "/" + name + ".html", key: name, times: 1}})
	if got := jsonCount(t, srv.URL, name); got != before+1 {
		t.Errorf("%s: count %d after Chromium opened the page, want %d", srv.Name, got, before+1)
	}
}

// tagOf returns the <img> tag in what install.sh printed.
func tagOf(t *testing.T, out string) string {
	t.Helper()
	m := printedTag.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("install.sh printed no <img> tag:\n%s", out)
	}
	return m[1]
}
