package crawler

import "strings"

// MaxAgent bounds what IsBotRequest reads: a User-Agent or another of
// upstream's headers longer than this is no browser's, and a bot's.
const MaxAgent = 1024

// IsBotRequest reports whether a request is a crawler's or a link
// preview's, as Crawler-Detect judges a request (src/CrawlerDetect.php,
// setUserAgent): the values of its User-Agent headers (uaHeaders: the
// User-Agent, Opera Mini's and other proxies' copies of the device's, a
// From naming a crawler's address, Sec-CH-UA naming HeadlessChrome) are
// joined, each followed by a space, and judged as one User-Agent; or the
// link previews upstream misses (IsLinkPreview). header is the request's
// http.Header.Get. With no header but the User-Agent, the verdict is
// IsCrawler's on it alone, with nothing allocated.
func IsBotRequest(header func(string) string) bool {
	ua := header(uaHeaders[0])
	if len(ua) > MaxAgent {
		return true
	}
	agent := ua
	var b strings.Builder
	for _, h := range uaHeaders[1:] {
		v := header(h)
		if v == "" {
			continue
		}
		if len(v) > MaxAgent {
			return true
		}
		if b.Len() == 0 {
			b.Grow(len(ua) + 1 + len(v) + 1)
			b.WriteString(ua)
			b.WriteByte(' ')
		}
		b.WriteString(v)
		b.WriteByte(' ')
	}
	if b.Len() > 0 {
		agent = b.String()
	}
	return IsBot(agent)
}

// IsBot reports whether ua is a crawler's (IsCrawler) or a link
// preview's upstream misses (IsLinkPreview).
func IsBot(ua string) bool { return IsCrawler(ua) || IsLinkPreview(ua) }
