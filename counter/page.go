package counter

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPageLen bounds a page key in bytes. A longer path is cut to it: real
// pages have short paths, and a key this long already names one page.
const MaxPageLen = 256

// maxTarget bounds the work spent on a page's address: no more of it is
// read, whatever a visitor sends.
const maxTarget = 4096

// ErrPage reports a page address that cannot be a page's key.
var ErrPage = errors.New("invalid page path")

// PageKey returns the key of the page at target, a URL path with an
// optional query and fragment ("/posts/hello/?utm_source=x#top"), so that
// every spelling of one page is one row:
//
//   - the fragment is dropped, and the query too but for the keys in keep
//     (WordPress's "p", say), sorted by key;
//   - percent-encoding is made canonical: a character that may stand in a
//     path as it is (%7E, %2C) and a printable non-ASCII character
//     (caf%C3%A9) are written as themselves, any other byte escaped in
//     upper case (%2F stays %2F, a space is %20);
//   - empty segments fold ("/a//b" is "/a/b"), a last "index.html" or
//     "index.htm" and a trailing slash are dropped ("/post/index.html",
//     "/post/" and "/post" are "/post"), the root stays "/";
//   - case is kept, since paths are case-sensitive on a Linux server;
//   - the key is cut at MaxPageLen bytes, never inside an escape or a
//     character.
//
// A target that is not a path, or has a "." or ".." segment however it is
// escaped, is refused with ErrPage. The key is valid UTF-8, has no
// control, format or bidirectional characters, starts with "/", and is
// its own key: PageKey(key, keep) is key.
func PageKey(target string, keep []string) (string, error) {
	if len(target) > maxTarget {
		target = target[:maxTarget]
	}
	if !strings.HasPrefix(target, "/") {
		return "", errors.Join(ErrPage, errors.New("not a path: it must start with /"))
	}
	target, _, _ = strings.Cut(target, "#")
	path, query, _ := strings.Cut(target, "?")
	var b strings.Builder
	b.Grow(len(path) + 1)
	for _, seg := range strings.Split(path, "/") {
		if seg == "" {
			continue
		}
		s := canonical(seg, false)
		if s == "." || s == ".." {
			return "", errors.Join(ErrPage, errors.New("a . or .. segment"))
		}
		b.WriteByte('/')
		b.WriteString(s)
	}
	key := b.String()
	// Every last index page goes: "/index.htm/index.html" is no key.
	for trimmed := true; trimmed; {
		before := key
		for _, index := range [...]string{"/index.html", "/index.htm"} {
			key = strings.TrimSuffix(key, index)
		}
		trimmed = key != before
	}
	if key == "" {
		key = "/"
	}
	if q := keptQuery(query, keep); q != "" {
		key += "?" + q
	}
	return cut(key, MaxPageLen), nil
}

// keptQuery returns the pairs of query whose keys are in keep, canonical,
// sorted by key and then as they came.
func keptQuery(query string, keep []string) string {
	if query == "" || len(keep) == 0 {
		return ""
	}
	type pair struct{ key, text string }
	var kept []pair
	for _, p := range strings.Split(query, "&") {
		k, v, hasValue := strings.Cut(p, "=")
		key := canonical(k, true)
		if !slices.Contains(keep, key) {
			continue
		}
		text := key
		if hasValue {
			text += "=" + canonical(v, true)
		}
		kept = append(kept, pair{key, text})
	}
	slices.SortStableFunc(kept, func(a, b pair) int { return strings.Compare(a.key, b.key) })
	texts := make([]string, len(kept))
	for i, p := range kept {
		texts[i] = p.text
	}
	return strings.Join(texts, "&")
}

// canonical writes one path segment (or a query key or value) with
// canonical escapes: it is decoded to bytes first, each escape to its
// byte (a "%" that starts no escape stands for itself), and the bytes are
// written again, so that every spelling of the same bytes is one key.
func canonical(s string, inQuery bool) string {
	raw := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			raw = append(raw, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		raw = append(raw, s[i])
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c < utf8.RuneSelf {
			if mayStand(c, inQuery) {
				b.WriteByte(c)
			} else {
				writeEscape(&b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 || !printable(r) {
			for j := 0; j < size; j++ {
				writeEscape(&b, raw[i+j])
			}
		} else {
			b.Write(raw[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unreserved reports the characters that RFC 3986 says are the same
// escaped or not.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// mayStand reports whether an ASCII byte stands unescaped in a key: an
// unreserved character, or a sub-delimiter or ":" / "@", which a path may
// hold as they are and a static server reads as the same file either way.
// "/", "?", "#" and "%" are escaped within a segment, and in a query "&",
// "=" and "+" too, since they separate or mean a space there.
func mayStand(c byte, inQuery bool) bool {
	if unreserved(c) {
		return true
	}
	switch c {
	case '!', '$', '\'', '(', ')', '*', ',', ';', ':', '@':
		return true
	case '&', '=', '+':
		return !inQuery
	}
	return false
}

// printable reports a non-ASCII character that may stand in a key as it
// is: a graphic character that is neither a format character (U+200B,
// the bidirectional controls) nor a private or unassigned code point.
func printable(r rune) bool {
	return unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r) && !unicode.Is(unicode.Co, r) && r != utf8.RuneError
}

func writeEscape(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// cut shortens key to at most n bytes, and to a key again: never inside
// an escape or a character, never inside a kept query pair, and never
// ending in a slash or in a segment the path would not keep.
func cut(key string, n int) string {
	if len(key) <= n {
		return key
	}
	full := key
	key = key[:n]
	if q := strings.IndexByte(key, '?'); q >= 0 {
		// Inside the query: keep the pairs whole, or none.
		if len(full) > n && full[n] != '&' {
			key = key[:max(q, strings.LastIndexByte(key, '&'))]
		}
		return strings.TrimRight(key, "?&")
	}
	if i := strings.LastIndexByte(key, '%'); i >= 0 && i > len(key)-3 {
		key = key[:i] // an escape cut short
	}
	for !utf8.ValidString(key) {
		key = key[:len(key)-1] // a character cut short
	}
	for {
		key = strings.TrimRight(key, "/")
		last := key[strings.LastIndexByte(key, '/')+1:]
		if last != "." && last != ".." && last != "index.html" && last != "index.htm" {
			break
		}
		key = key[:len(key)-len(last)]
	}
	if key == "" {
		return "/"
	}
	return key
}

// RefererTarget returns the path, query and fragment of an http or https
// Referer ("https://blog.example/a/b?c" is "/a/b?c", "https://blog.example"
// is "/"), or false when it is no such URL.
func RefererTarget(referer string) (string, bool) {
	rest, ok := cutPrefixFold(referer, "https://")
	if !ok {
		if rest, ok = cutPrefixFold(referer, "http://"); !ok {
			return "", false
		}
	}
	i := strings.IndexAny(rest, "/?#")
	switch {
	case i == 0:
		return "", false // no host
	case rest == "":
		return "", false
	case i < 0:
		return "/", true
	case rest[i] != '/':
		return "/" + rest[i:], true
	}
	return rest[i:], true
}
