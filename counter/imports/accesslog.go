package imports

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/maphash"
	"io"
	"net/netip"
	"strings"
	"time"

	"hitcounter/counter"
	"hitcounter/counter/crawler"
)

// Bounds of reading access logs. A line longer than maxLogLine is no line
// a web server writes: Apache's longest request line and headers, every
// byte escaped as \xhh, come to about 100 KiB. Visitors are remembered
// for the two most recent days the logs reach, at most maxVisitorsADay
// keys a day (a key is a visitor, or on a site a visitor of one page,
// about 40 bytes each): reading a gigabyte of log takes a few megabytes,
// whatever it holds.
const (
	maxLogLine      = 128 << 10
	maxVisitorsADay = 1 << 19
	maxUserAgent    = 1024 // as a live hit: a longer one is a bot's
	maxCachedAgents = 4096
)

// LogOptions say which requests of an access log count, and how.
type LogOptions struct {
	// Path is the page whose requests count, compared as counter.PageKey
	// makes both ("/", "/index.html" and "/?utm_source=x" are one page).
	// On a site, "" counts every page on its hosts.
	Path string
	// Settings are the counter's: its ignored networks, reload window,
	// allowed hosts and, on a site, its hosts, max-pages and keep-query.
	Settings counter.Settings
	// Now is the clock that says which day is tomorrow, the last a log
	// line may have; nil is time.Now.
	Now func() time.Time
}

// LogReader makes the days of a counter's history from web servers'
// access logs in Apache's or lighttpd's default format (combined, or
// common without Referer and User-Agent, whose every request is a view
// since its bots cannot be told apart, and whose visitors are addresses),
// plain or gzip'd. It judges each
// request for the page as the counter would have judged a hit on its
// image: bots, reloads and ignored networks are tallied and not counted,
// and a visitor is an address with a User-Agent, once a UTC day.
//
// A line of a day before FirstDay or after tomorrow refuses the log.
//
// Visitors are kept for the two most recent days read, so logs are best
// read oldest first; a line of an older day than those counts its view as
// a new visitor's. Past maxVisitorsADay visitors in a day, every visitor
// is new.
type LogReader struct {
	o      LogOptions
	target string // the page key of o.Path, "" on a site
	seed   maphash.Seed

	days     map[string]*counter.Tally
	pageDays *pageDays       // on a site, nil on a plain counter
	made     int             // on a site: the pages made, OtherPages not among them
	known    [2]visitorDay   // the most recent day first
	agents   map[string]bool // User-Agents judged: bot or not
	refs     refBook         // the page's host of each view, when the log names it
	sources  refBook         // where each view's reader came from: its Referer's host
	unowned  int             // views with a Referer whose host could not be told from the counter's own

	lastStamp string // the last timestamp read, and its time
	lastTime  time.Time

	now           time.Time // when the reading began
	first, beyond time.Time // the first time a line may have, and the first it may not
}

// visitorDay is what is known of the visitors of one day: each key's
// last counted view, in Unix seconds.
type visitorDay struct {
	date string
	last map[uint64]int64
}

// NewLogReader returns a reader for a counter with options o.
func NewLogReader(o LogOptions) (*LogReader, error) {
	lr := &LogReader{o: o, seed: maphash.MakeSeed(), days: map[string]*counter.Tally{}, agents: map[string]bool{}, refs: refBook{}, sources: refBook{}, now: time.Now()}
	if o.Now != nil {
		lr.now = o.Now()
	}
	lr.first, _ = time.Parse(time.DateOnly, FirstDay)
	lr.beyond = lr.now.UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)
	if o.Path == "" {
		if o.Settings.Site == nil {
			return nil, fmt.Errorf("%w: no page path given: which page's requests count?", counter.ErrImport)
		}
		lr.pageDays = newPageDays()
		return lr, nil
	}
	var keep []string
	if o.Settings.Site != nil {
		keep = o.Settings.Site.KeepQuery
	}
	target, err := counter.PageKey(o.Path, keep)
	if err != nil {
		return nil, fmt.Errorf("%w: -path %q: %v", counter.ErrImport, o.Path, err)
	}
	lr.target = target
	return lr, nil
}

// Read reads one log, gzip'd or not. A line that is not in the combined
// or common format refuses the log with an *counter.ImportError, which
// the caller names the log in.
func (lr *LogReader) Read(r io.Reader) error {
	br := bufio.NewReaderSize(r, maxLogLine)
	if head, _ := br.Peek(2); bytes.Equal(head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &counter.ImportError{Reason: "a damaged gzip file: " + err.Error()}
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, maxLogLine)
	}
	for line := 1; ; line++ {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return &counter.ImportError{Line: line, Reason: fmt.Sprintf("a line longer than %d bytes", maxLogLine)}
		}
		if len(text) > 0 {
			if ie := lr.line(text); ie != nil {
				ie.Line = line
				return ie
			}
		}
		if err == io.EOF {
			if lr.pageDays != nil {
				if err := lr.pageDays.flush(); err != nil {
					return &counter.ImportError{Line: line, Reason: err.Error()}
				}
			}
			return nil
		}
		if err != nil {
			// A gzip'd log damaged after its start (a read error of the
			// file itself would be no better reported another way).
			return &counter.ImportError{Line: line, Reason: "cannot read on: " + err.Error()}
		}
	}
}

// request is what one line of a log says.
type request struct {
	addr, vhost, stamp, method, target, status, referer, agent string
	// common is set for a line of the common format, which keeps no
	// User-Agent: its bots cannot be told apart.
	common bool
}

// line reads one line and counts its request; a refusal leaves its Line
// to the caller.
func (lr *LogReader) line(text []byte) *counter.ImportError {
	text = bytes.TrimRight(text, "\r\n")
	if len(bytes.TrimSpace(text)) == 0 {
		return nil
	}
	req, ok := parseLine(string(text))
	if !ok {
		return &counter.ImportError{Reason: notCombined}
	}
	if req.method != "GET" || (req.status != "200" && req.status != "304") {
		return nil
	}
	at, ok := lr.time(req.stamp)
	if !ok {
		return &counter.ImportError{Reason: "the time is not one like [10/Oct/2000:13:55:36 -0700]", Quote: counter.Excerpt(req.stamp)}
	}
	if at.Before(lr.first) || !at.Before(lr.beyond) {
		if ie := checkTime(at, lr.now); ie != nil {
			ie.Quote = counter.Excerpt(req.stamp)
			return ie
		}
	}
	page, ok := lr.page(req)
	if !ok {
		return nil
	}
	return lr.count(req, at, page)
}

// page returns the page a request counts for: "" for the page of a plain
// counter, the page's key on a site; false when it counts for none.
func (lr *LogReader) page(req request) (string, bool) {
	target := req.target
	if i := strings.Index(target, "://"); i >= 0 { // an absolute form: keep the path
		if j := strings.IndexByte(target[i+3:], '/'); j >= 0 {
			target = target[i+3+j:]
		} else {
			return "", false
		}
	}
	site := lr.o.Settings.Site
	var keep []string
	if site != nil {
		keep = site.KeepQuery
	}
	key, err := counter.PageKey(target, keep)
	if err != nil {
		return "", false
	}
	if lr.pageDays == nil {
		return "", key == lr.target
	}
	if req.vhost != "" && !site.IsSiteHost(req.vhost) || !isPagePath(key) {
		return "", false
	}
	return key, true
}

// isPagePath reports whether a path names a page rather than an image, a
// style sheet or a feed: it ends in a slash or .html or .htm, or its last
// segment has no extension.
func isPagePath(key string) bool {
	path, _, _ := strings.Cut(key, "?")
	last := path[strings.LastIndexByte(path, '/')+1:]
	dot := strings.LastIndexByte(last, '.')
	if dot < 0 {
		return true
	}
	ext := strings.ToLower(last[dot+1:])
	return ext == "html" || ext == "htm"
}

// count judges a request for a page at time at, and tallies it.
func (lr *LogReader) count(req request, at time.Time, page string) *counter.ImportError {
	date := at.Format(time.DateOnly)
	t := lr.days[date]
	if t == nil {
		if len(lr.days) >= MaxDays {
			return &counter.ImportError{Reason: fmt.Sprintf("more than %d days", MaxDays)}
		}
		t = &counter.Tally{}
		lr.days[date] = t
	}
	s := lr.o.Settings
	kind := counter.View
	addr, addrErr := netip.ParseAddr(req.addr)
	if addrErr == nil {
		addr = addr.Unmap().WithZone("")
	}
	switch {
	case counter.IsGitHubCamo(req.agent, addr): // the zero Addr when it is none
		kind = counter.GitHub
	case !req.common && lr.isBot(req.agent):
		kind = counter.Bot
	case addrErr == nil && s.Ignores(addr):
		kind = counter.Ignored
	case req.vhost != "" && s.LimitsReferrers() && !s.AllowsReferrer(req.vhost):
		kind = counter.Foreign
	}
	o := counter.Outcome{Kind: kind}
	if kind == counter.View {
		client := req.addr
		if addrErr == nil {
			client = addr.String()
		}
		var reload bool
		reload, o.NewVisitor = lr.see(date, at, client, req.agent, page, s.Reload)
		if reload {
			o.Kind = counter.Reload
		} else if page != "" {
			// On a site, the visitor of the site, whatever the page.
			o.PageVisitor = o.NewVisitor
			_, o.NewVisitor = lr.see(date, at, client, req.agent, "", 0)
		}
	}
	t.Add(o)
	if o.Kind.Counts() {
		// A live hit's referrer is the host of the page that showed
		// the counter: the log's virtual host (lighttpd's %V), when it
		// names one.
		if h := counter.ReferrerHost("http://" + req.vhost + "/"); h == req.vhost {
			lr.refs.add(h, 1)
		}
		lr.source(req)
	}
	if page == "" || !o.Kind.Counts() {
		return nil
	}
	if !lr.pageDays.known(page) {
		if lr.made >= s.Site.MaxPages {
			page = counter.OtherPages
		} else {
			lr.made++
		}
	}
	if err := lr.pageDays.add(at, page, o.PageVisitor); err != nil {
		return &counter.ImportError{Reason: err.Error()}
	}
	return nil
}

// isBot judges a User-Agent as a live hit's is judged: none, one too
// long, a crawler's or a link preview's. A log keeps no other header.
func (lr *LogReader) isBot(ua string) bool {
	if ua = strings.TrimSpace(ua); ua == "" || ua == "-" || len(ua) > maxUserAgent {
		return true
	}
	bot, ok := lr.agents[ua]
	if !ok {
		if len(lr.agents) >= maxCachedAgents {
			clear(lr.agents)
		}
		bot = crawler.IsBot(ua)
		lr.agents[ua] = bot
	}
	return bot
}

// see tells whether a view of page by client with agent at time at, on
// UTC day date, is a reload within window of his last counted view, and
// whether he is new that day; it remembers the view when it counts.
func (lr *LogReader) see(date string, at time.Time, client, agent, page string, window time.Duration) (reload, newToday bool) {
	var h maphash.Hash
	h.SetSeed(lr.seed)
	h.WriteString(client)
	h.WriteByte(0)
	h.WriteString(agent)
	h.WriteByte(0)
	h.WriteString(page)
	key := h.Sum64()
	day := lr.day(date)
	if day == nil {
		return false, true // older than the days kept: a new visitor
	}
	now := at.Unix()
	last, known := day.last[key]
	if !known && day == &lr.known[0] && lr.known[1].last != nil {
		// A reload window may reach back past midnight.
		if prev, ok := lr.known[1].last[key]; ok {
			last = prev
		}
	}
	if (known || last != 0) && window > 0 && now >= last && now-last < int64(window/time.Second) {
		return true, false
	}
	if known || len(day.last) < maxVisitorsADay {
		day.last[key] = now
	}
	return false, !known
}

// day returns the visitors of date, making room for it when it is the
// most recent yet; nil for a day older than the two kept.
func (lr *LogReader) day(date string) *visitorDay {
	switch k := &lr.known; {
	case k[0].date == date:
		return &k[0]
	case k[1].date == date:
		return &k[1]
	case k[0].date == "" || date > k[0].date:
		k[1] = k[0]
		k[0] = visitorDay{date: date, last: make(map[uint64]int64)}
		if k[1].date != "" && k[1].date < yesterday(date) {
			k[1] = visitorDay{} // not the day before: no window reaches it
		}
		return &k[0]
	case k[1].date == "" || date > k[1].date:
		k[1] = visitorDay{date: date, last: make(map[uint64]int64)}
		return &k[1]
	}
	return nil
}

func yesterday(date string) string {
	t, _ := time.Parse(time.DateOnly, date)
	return t.AddDate(0, 0, -1).Format(time.DateOnly)
}

// time reads a log's timestamp, 10/Oct/2000:13:55:36 -0700, as UTC.
func (lr *LogReader) time(stamp string) (time.Time, bool) {
	if stamp == lr.lastStamp {
		return lr.lastTime, true
	}
	t, err := time.Parse("02/Jan/2006:15:04:05 -0700", stamp)
	if err != nil {
		return t, false
	}
	lr.lastStamp, lr.lastTime = stamp, t.UTC()
	return lr.lastTime, true
}

// parseLine reads a line of the combined format,
//
//	%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"
//
// as Apache writes it, or as lighttpd does with the host asked for (%V)
// in place of %l; or of the common format, which stops after %b. Fields
// may follow; they are not read.
func parseLine(line string) (request, bool) {
	var req request
	var ident string
	var ok bool
	rest := line
	if req.addr, rest, ok = strings.Cut(rest, " "); !ok || req.addr == "" {
		return req, false
	}
	if ident, rest, ok = strings.Cut(rest, " "); !ok {
		return req, false
	}
	if ident != "-" {
		req.vhost = strings.ToLower(ident) // lighttpd's %V
		if i := strings.LastIndexByte(req.vhost, ':'); i >= 0 && !strings.Contains(req.vhost[i:], "]") {
			req.vhost = req.vhost[:i] // a port
		}
	}
	// The user may be anything but holds no space in either server's logs.
	if _, rest, ok = strings.Cut(rest, " ["); !ok {
		return req, false
	}
	if req.stamp, rest, ok = strings.Cut(rest, "] \""); !ok {
		return req, false
	}
	var r string
	if r, rest, ok = quoted(rest); !ok {
		return req, false
	}
	if req.method, req.target, ok = strings.Cut(r, " "); ok {
		req.target, _, _ = strings.Cut(req.target, " ")
	}
	rest = strings.TrimPrefix(rest, " ")
	if req.status, rest, _ = strings.Cut(rest, " "); !isDigits(req.status) {
		return req, false
	}
	var size string
	size, rest, _ = strings.Cut(rest, " ")
	if size != "-" && !isDigits(size) {
		return req, false
	}
	if rest == "" {
		req.common = true
		return req, true
	}
	if !strings.HasPrefix(rest, "\"") {
		return req, false
	}
	if req.referer, rest, ok = quoted(rest[1:]); !ok {
		return req, false
	}
	if req.referer == "-" {
		req.referer = ""
	}
	if !strings.HasPrefix(rest, " \"") {
		return req, false
	}
	if req.agent, _, ok = quoted(rest[2:]); !ok {
		return req, false
	}
	if req.agent == "-" {
		req.agent = ""
	}
	return req, true
}

// notCombined refuses a line that parseLine cannot read.
const notCombined = `not a line of Apache's or lighttpd's combined log format: HOST - USER [TIME] "REQUEST" STATUS BYTES "REFERER" "USER-AGENT"`

// quoted reads a quoted field up to its closing quote, which s starts
// after, undoing the \" and \\ escapes Apache and lighttpd write; other
// escapes (\xhh) stay as written.
func quoted(s string) (field, rest string, ok bool) {
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return "", "", false
	}
	if !strings.Contains(s[:i], `\`) {
		return s[:i], s[i+1:], true
	}
	var b strings.Builder
	for j := 0; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\'):
			b.WriteByte(s[j+1])
			j++
		case c == '"':
			return b.String(), s[j+1:], true
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// source counts where the reader of a counted view came from: the
// Referer of a request for the page is the page's own document.referrer,
// which a live hit learns from the script, the source (counter.SourceKey)
// its host. A Referer on one of the counter's own hosts is a reader going
// from page to page: the log's virtual host, a site's hosts, the hosts
// of its referrers= list. Where none of them is known, the counter's own
// pages cannot be told from elsewhere, and the view's source is left out.
func (lr *LogReader) source(req request) {
	host := counter.ReferrerHost(req.referer)
	if host == "" {
		return
	}
	s := lr.o.Settings
	if req.vhost == "" && s.Site == nil && len(s.Referrers) == 0 {
		lr.unowned++
		return
	}
	lr.sources.add(s.Source(host, req.vhost), 1)
}

// Result returns the history read so far: the counter's days and, on a
// site, its pages' days.
func (lr *LogReader) Result() counter.Imported {
	var days dayBook
	for date, t := range lr.days {
		if *t != (counter.Tally{}) {
			days.days = append(days.days, counter.Day{Date: date, Tally: *t})
		}
	}
	imp := counter.Imported{Days: days.sorted(), Referrers: lr.refs.list(), Sources: lr.sources.list()}
	if lr.pageDays != nil {
		imp.PageRows = lr.pageDays.list()
	}
	if lr.unowned > 0 {
		imp.LeftOut = append(imp.LeftOut, fmt.Sprintf("%d views' Referers, as sources: the log names no virtual host, and the counter has no referrers= list, so its own pages cannot be told from elsewhere (set referrers=YOURHOST)", lr.unowned))
	}
	return imp
}
