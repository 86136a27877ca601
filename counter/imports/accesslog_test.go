package imports

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hitcounter/counter"
)

const (
	firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	safari  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	google  = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
)

// apache is a line of Apache's combined format.
func apache(addr, when, request, status, referer, ua string) string {
	return addr + ` - - [` + when + `] "` + request + `" ` + status + ` 5120 "` + referer + `" "` + ua + "\"\n"
}

func readLog(t *testing.T, o LogOptions, logs ...string) counter.Imported {
	t.Helper()
	lr, err := NewLogReader(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		if err := lr.Read(strings.NewReader(l)); err != nil {
			t.Fatal(err)
		}
	}
	return lr.Result()
}

func tally(views, visitors uint64, kinds ...any) counter.Tally {
	t := counter.Tally{Views: views, Visitors: visitors}
	for i := 0; i < len(kinds); i += 2 {
		k, n := kinds[i].(counter.Kind), uint64(kinds[i+1].(int))
		if k == counter.GitHub {
			t.GitHub = n
		} else {
			t.NotCounted[k] = n
		}
	}
	return t
}

func TestLogJudgesAsALiveHit(t *testing.T) {
	s := counter.DefaultSettings() // reload window 30 minutes
	if err := s.Set("ignore=192.0.2.0/24"); err != nil {
		t.Fatal(err)
	}
	log := "" +
		apache("198.51.100.1", "02/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "https://news.example/", firefox) +
		apache("198.51.100.1", "02/Jan/2026:10:05:00 +0000", "GET /index.html HTTP/1.1", "304", "-", firefox) + // a reload
		apache("198.51.100.1", "02/Jan/2026:11:00:00 +0000", "GET /?utm_source=feed HTTP/1.1", "200", "-", firefox) + // a view, known visitor
		apache("198.51.100.1", "02/Jan/2026:11:01:00 +0000", "GET / HTTP/1.1", "200", "-", safari) + // another browser: another visitor
		apache("198.51.100.2", "02/Jan/2026:11:02:00 +0000", "GET / HTTP/1.1", "200", "-", google) + // a bot
		apache("198.51.100.3", "02/Jan/2026:11:03:00 +0000", "GET / HTTP/1.1", "200", "-", "-") + // no User-Agent: a bot
		apache("192.0.2.7", "02/Jan/2026:11:04:00 +0000", "GET / HTTP/1.1", "200", "-", firefox) + // ignored
		apache("140.82.115.1", "02/Jan/2026:11:05:00 +0000", "GET / HTTP/1.1", "200", "-", "github-camo (876de43e)") + // GitHub
		apache("192.0.2.8", "02/Jan/2026:11:05:10 +0000", "GET / HTTP/1.1", "200", "-", "github-camo (876de43e)") + // GitHub's User-Agent from an ignored address: a bot
		apache("198.51.100.5", "02/Jan/2026:11:05:20 +0000", "GET / HTTP/1.1", "200", "-", "github-camo (876de43e)") + // and from anywhere not GitHub's
		apache("198.51.100.4", "02/Jan/2026:11:06:00 +0000", "HEAD / HTTP/1.1", "200", "-", firefox) + // not a GET
		apache("198.51.100.4", "02/Jan/2026:11:07:00 +0000", "GET / HTTP/1.1", "404", "-", firefox) + // not found
		apache("198.51.100.4", "02/Jan/2026:11:08:00 +0000", "GET /about/ HTTP/1.1", "200", "-", firefox) + // another page
		apache("198.51.100.4", "02/Jan/2026:11:09:00 +0000", "GET /style.css HTTP/1.1", "200", "-", firefox) +
		apache("::ffff:198.51.100.1", "02/Jan/2026:23:50:00 -0100", "GET / HTTP/1.1", "200", "-", firefox) + // the next UTC day, the same visitor
		apache("198.51.100.1", "03/Jan/2026:01:00:00 +0000", "GET / HTTP/1.1", "200", "-", firefox) // a reload across midnight
	imp := readLog(t, LogOptions{Path: "/index.html", Settings: s}, log)
	want := []counter.Day{
		{Date: "2026-01-02", Tally: tally(4, 2, counter.Reload, 1, counter.Bot, 4, counter.Ignored, 1, counter.GitHub, 1)},
		{Date: "2026-01-03", Tally: tally(1, 1, counter.Reload, 1)},
	}
	if !reflect.DeepEqual(imp.Days, want) {
		t.Errorf("days\n%+v\nwant\n%+v", imp.Days, want)
	}
	if len(imp.AllPageDays()) != 0 || len(imp.Referrers) != 0 || imp.HasTotal {
		t.Errorf("a plain counter's log gave %+v", imp)
	}
}

func TestLogFormats(t *testing.T) {
	lines := []string{
		// Apache's combined, with escapes in the Referer and User-Agent.
		`198.51.100.1 - frank [02/Jan/2026:10:00:00 +0100] "GET /blog/ HTTP/1.1" 200 512 "https://x.example/?q=\"a\"" "Mozilla/5.0 \"quoted\" Firefox/128.0"` + "\n",
		// lighttpd's default: the host asked for in place of %l, CRLF.
		`2001:db8::1 blog.example - [02/Jan/2026:10:00:01 +0000] "GET /blog/index.html HTTP/1.1" 200 512 "-" "` + safari + "\"\r\n",
		// The common format, no Referer or User-Agent: a view by an
		// address, since its bots cannot be told apart; an empty
		// User-Agent in the combined format is a bot's.
		`198.51.100.9 - - [02/Jan/2026:10:00:02 +0000] "GET /blog HTTP/1.0" 200 -` + "\n",
		`198.51.100.9 - - [02/Jan/2026:10:00:02 +0000] "GET /blog HTTP/1.0" 200 - "-" "-"` + "\n",
		// A request no browser sent, logged all the same.
		`198.51.100.9 - - [02/Jan/2026:10:00:03 +0000] "\x16\x03\x01" 400 0 "-" "-"` + "\n",
		"\n",
	}
	imp := readLog(t, LogOptions{Path: "/blog/", Settings: counter.DefaultSettings()}, strings.Join(lines, ""))
	want := []counter.Day{{Date: "2026-01-02", Tally: tally(3, 3, counter.Bot, 1)}}
	if !reflect.DeepEqual(imp.Days, want) {
		t.Errorf("days %+v; want %+v", imp.Days, want)
	}
}

func TestLogGzipAndSeveralFiles(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(apache("198.51.100.1", "01/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "-", firefox)))
	zw.Close()
	// A second gzip member, as logrotate's delaycompress and cat make.
	zw = gzip.NewWriter(&gz)
	zw.Write([]byte(apache("198.51.100.2", "01/Jan/2026:11:00:00 +0000", "GET / HTTP/1.1", "200", "-", firefox)))
	zw.Close()
	imp := readLog(t, LogOptions{Path: "/", Settings: counter.DefaultSettings()},
		gz.String(), apache("198.51.100.1", "02/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "-", firefox))
	want := []counter.Day{{Date: "2026-01-01", Tally: tally(2, 2)}, {Date: "2026-01-02", Tally: tally(1, 1)}}
	if !reflect.DeepEqual(imp.Days, want) {
		t.Errorf("days %+v; want %+v", imp.Days, want)
	}
}

func TestLogOldDaysCountNewVisitors(t *testing.T) {
	s := counter.DefaultSettings()
	s.Reload = 0
	var log strings.Builder
	for _, day := range []string{"05", "06", "07", "05", "06"} {
		log.WriteString(apache("198.51.100.1", day+"/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "-", firefox))
	}
	imp := readLog(t, LogOptions{Path: "/", Settings: s}, log.String())
	// The 6th is still known when its second line comes; the 5th is not.
	want := []counter.Day{{Date: "2026-01-05", Tally: tally(2, 2)}, {Date: "2026-01-06", Tally: tally(2, 1)}, {Date: "2026-01-07", Tally: tally(1, 1)}}
	if !reflect.DeepEqual(imp.Days, want) {
		t.Errorf("days %+v; want %+v", imp.Days, want)
	}
}

func TestLogSitePages(t *testing.T) {
	s, err := counter.NewSite("blog.example")
	if err != nil {
		t.Fatal(err)
	}
	s.Site.MaxPages = 2
	s.Reload = 0
	log := "" +
		apache("198.51.100.1", "02/Jan/2026:10:00:00 +0000", "GET /posts/hello/ HTTP/1.1", "200", "-", firefox) +
		apache("198.51.100.1", "02/Jan/2026:10:01:00 +0000", "GET /posts/hello/index.html HTTP/1.1", "200", "-", firefox) +
		apache("198.51.100.1", "02/Jan/2026:10:02:00 +0000", "GET /about HTTP/1.1", "200", "-", firefox) +
		apache("198.51.100.1", "02/Jan/2026:10:03:00 +0000", "GET /img/a.png HTTP/1.1", "200", "-", firefox) + // no page
		apache("198.51.100.1", "02/Jan/2026:10:04:00 +0000", "GET /feed.xml HTTP/1.1", "200", "-", firefox) + // no page
		apache("198.51.100.2", "02/Jan/2026:10:05:00 +0000", "GET /third.html HTTP/1.1", "200", "-", firefox) + // past max-pages
		`198.51.100.3 other.example - [02/Jan/2026:10:06:00 +0000] "GET /posts/hello/ HTTP/1.1" 200 5 "-" "` + firefox + "\"\n" // another host
	imp := readLog(t, LogOptions{Settings: s}, log)
	wantDays := []counter.Day{{Date: "2026-01-02", Tally: tally(4, 2)}}
	wantPages := []counter.PageDay{
		{Date: "2026-01-02", Page: counter.OtherPages, Views: 1, Visitors: 1},
		{Date: "2026-01-02", Page: "/about", Views: 1, Visitors: 1},
		{Date: "2026-01-02", Page: "/posts/hello", Views: 2, Visitors: 1},
	}
	if !reflect.DeepEqual(imp.Days, wantDays) || !reflect.DeepEqual(imp.AllPageDays(), wantPages) {
		t.Errorf("days %+v\npages %+v\nwant %+v\n%+v", imp.Days, imp.AllPageDays(), wantDays, wantPages)
	}
}

func TestLogRefusals(t *testing.T) {
	good := apache("198.51.100.1", "02/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "-", firefox)
	for _, tc := range []struct {
		name, log string
		line      int
		reason    string
	}{
		{"not a log", "blog 5\n", 1, "not a line of Apache's or lighttpd's combined log format"},
		{"bad time", good + `198.51.100.1 - - [2026-01-02 10:00] "GET / HTTP/1.1" 200 5 "-" "x"` + "\n", 2, `the time is not one like [10/Oct/2000:13:55:36 -0700]: "2026-01-02 10:00"`},
		{"unended quote", good + good + `198.51.100.1 - - [02/Jan/2026:10:00:00 +0000] "GET / HTTP/1.1` + "\n", 3, "not a line"},
		{"bad status", `198.51.100.1 - - [02/Jan/2026:10:00:00 +0000] "GET / HTTP/1.1" OK 5 "-" "x"` + "\n", 1, "not a line"},
		{"long line", good + strings.Repeat("x", maxLogLine+10) + "\n", 2, "longer than"},
		{"gzip cut short", "\x1f\x8b", 0, "a damaged gzip file"},
		{"gzip damaged", damagedGzip(good + good), 3, "cannot read on: gzip: invalid checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr, err := NewLogReader(LogOptions{Path: "/", Settings: counter.DefaultSettings()})
			if err != nil {
				t.Fatal(err)
			}
			wantRefusal(t, lr.Read(strings.NewReader(tc.log)), tc.line, tc.reason)
		})
	}
	if _, err := NewLogReader(LogOptions{Settings: counter.DefaultSettings()}); err == nil {
		t.Error("a plain counter's reader without a path was made")
	}
	if _, err := NewLogReader(LogOptions{Path: "/a/../b", Settings: counter.DefaultSettings()}); err == nil {
		t.Error("a reader for /a/../b was made")
	}
}

// damagedGzip is log gzip'd with its checksum broken.
func damagedGzip(log string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(log))
	zw.Close()
	d := b.Bytes()
	d[len(d)-8] ^= 0xff // the CRC-32
	return string(d)
}

// TestLogReferrers reads a lighttpd log, whose %V names the host each
// page was asked of: each counted view's host is a referrer, as the
// page's host is a live hit's; a bot's, a reload's and a foreign host's
// are not, and the Referer (where the reader came from) is no referrer.
func TestLogReferrers(t *testing.T) {
	s := counter.DefaultSettings()
	if err := s.Set("referrers=blog.example,*.blog.example"); err != nil {
		t.Fatal(err)
	}
	lighttpd := func(addr, vhost, when, ua string) string {
		return addr + " " + vhost + ` - [` + when + `] "GET / HTTP/1.1" 200 512 "https://news.example/item" "` + ua + "\"\n"
	}
	log := lighttpd("198.51.100.1", "blog.example", "02/Jan/2026:10:00:00 +0000", firefox) +
		lighttpd("198.51.100.1", "blog.example", "02/Jan/2026:10:01:00 +0000", firefox) + // a reload
		lighttpd("198.51.100.2", "www.blog.example:443", "02/Jan/2026:10:02:00 +0000", firefox) +
		lighttpd("198.51.100.3", "blog.example", "02/Jan/2026:10:03:00 +0000", google) + // a bot
		lighttpd("198.51.100.4", "mirror.example", "02/Jan/2026:10:04:00 +0000", firefox) + // foreign
		lighttpd("198.51.100.5", "blog.example", "02/Jan/2026:10:05:00 +0000", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app) Chrome/W.X.Y.Z Safari/537.36") // a link preview
	imp := readLog(t, LogOptions{Path: "/", Settings: s}, log)
	want := []counter.Referrer{{Host: "blog.example", Hits: 1}, {Host: "www.blog.example", Hits: 1}}
	if !reflect.DeepEqual(imp.Referrers, want) {
		t.Errorf("got referrers %+v, want %+v", imp.Referrers, want)
	}
	wantDays := []counter.Day{{Date: "2026-01-02", Tally: tally(2, 2, counter.Reload, 1, counter.Bot, 2, counter.Foreign, 1)}}
	if !reflect.DeepEqual(imp.Days, wantDays) {
		t.Errorf("got days %+v, want %+v", imp.Days, wantDays)
	}
	// The Referer is where the reader came from: the counted views'
	// source.
	if want := []counter.Referrer{{Host: "news.example", Hits: 2}}; !reflect.DeepEqual(imp.Sources, want) {
		t.Errorf("got sources %+v, want %+v", imp.Sources, want)
	}
}

// TestLogSources reads the Referer of each counted request for the page
// as the page's own document.referrer: its host is the view's source,
// search engines and social sites grouped, never a path or a query; a
// Referer on the counter's own hosts (its referrers= list, a site's
// hosts) is a reader going from page to page. Without them or a virtual
// host, its own pages cannot be told apart, and no source is taken.
func TestLogSources(t *testing.T) {
	listed := counter.DefaultSettings()
	listed.Reload = 0
	if err := listed.Set("referrers=blog.example"); err != nil {
		t.Fatal(err)
	}
	log := apache("198.51.100.1", "02/Jan/2026:10:00:00 +0000", "GET / HTTP/1.1", "200", "https://www.google.de/search?q=secret+words", firefox) +
		apache("198.51.100.1", "02/Jan/2026:10:01:00 +0000", "GET / HTTP/1.1", "200", "https://blog.example/older-post?token=x", firefox) +
		apache("198.51.100.2", "02/Jan/2026:10:02:00 +0000", "GET / HTTP/1.1", "200", "https://t.co/abc", safari) +
		apache("198.51.100.3", "02/Jan/2026:10:03:00 +0000", "GET / HTTP/1.1", "200", "https://forum.example/thread/1", google) + // a bot
		apache("198.51.100.4", "02/Jan/2026:10:04:00 +0000", "GET / HTTP/1.1", "200", "-", firefox) +
		apache("198.51.100.5", "02/Jan/2026:10:05:00 +0000", "GET / HTTP/1.1", "200", "android-app://com.example", firefox)
	imp := readLog(t, LogOptions{Path: "/", Settings: listed}, log)
	if got := fmt.Sprint(imp.Sources); got != "[{Google 1} {Twitter/X 1}]" {
		t.Errorf("got sources %s, want Google's and Twitter/X's view", got)
	}
	if len(imp.LeftOut) != 0 {
		t.Errorf("left out %q", imp.LeftOut)
	}
	plain := counter.DefaultSettings()
	imp = readLog(t, LogOptions{Path: "/", Settings: plain}, log) // the second view is a reload
	if len(imp.Sources) != 0 || len(imp.LeftOut) != 1 || !strings.HasPrefix(imp.LeftOut[0], "2 views' Referers, as sources") {
		t.Errorf("a counter of unknown hosts: sources %v, left out %q", imp.Sources, imp.LeftOut)
	}
}
