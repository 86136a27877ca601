package counter

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Show is what a counter's image shows.
type Show uint8

const (
	// ShowViews shows the views: every hit that counted.
	ShowViews Show = iota
	// ShowVisitors shows the unique visitors, a day's repeat visits
	// counted once.
	ShowVisitors
)

func (s Show) String() string {
	if s == ShowVisitors {
		return "visitors"
	}
	return "views"
}

// DefaultReload is how long a visitor's repeat hits on a counter are
// reloads, unless the counter says otherwise.
const DefaultReload = 30 * time.Minute

// MaxReload bounds a reload window: a visitor is remembered for the day
// he was seen and the next, no longer.
const MaxReload = 24 * time.Hour

// MaxListLen bounds the ignore list and the referrer list of a counter.
const MaxListLen = 64

// Settings say what a counter counts and shows.
type Settings struct {
	Show Show
	// Reload is the window within which the same visitor's hits on the
	// counter after a counted view are reloads; 0 counts every hit.
	Reload time.Duration
	// Ignore lists the networks whose hits are not counted.
	Ignore []netip.Prefix
	// Referrers lists the hosts whose pages may show the counter, an
	// entry "*.example.org" standing for every host under example.org.
	// Empty allows every page. A site has none: its hosts say.
	Referrers []string
	// Site is set on a site counter, nil on a plain one. It is shared
	// with copies of the settings: Set replaces it, never changes it.
	Site *Site
	// Theme is the look of the counter's image when the tag names no
	// theme: a built-in look (led, ...) or an owner's digit set (theme
	// add); "" for the font. The store checks that a set exists.
	Theme string
}

// DefaultSettings are the settings of a new counter: views shown, a
// 30-minute reload window, nothing ignored, every page allowed.
func DefaultSettings() Settings { return Settings{Reload: DefaultReload} }

// SettingKeys are the keys of Settings.Set, in the order Format lists them.
var SettingKeys = [...]string{"show", "reload", "ignore", "referrers", "theme"}

// ErrSetting reports a setting that cannot be taken.
var ErrSetting = errors.New("invalid setting")

// Set applies one "key=value" setting: show=views|visitors,
// reload=DURATION (0 or off for none), ignore=ADDR/BITS,... and
// referrers=HOST,... . A list's "key+=" adds to it, "key-=" removes from
// it, and "key=" with nothing after empties it.
func (s *Settings) Set(setting string) error {
	key, value, ok := strings.Cut(setting, "=")
	if !ok {
		return fmt.Errorf("%w %q: want key=value, with key one of %s", ErrSetting, setting, strings.Join(SettingKeys[:], ", "))
	}
	op := byte('=')
	if k := strings.TrimRight(key, "+-"); len(key)-len(k) == 1 {
		op, key = key[len(key)-1], k
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	var err error
	switch key {
	case "show":
		if op != '=' {
			return fmt.Errorf("%w %q: show takes views or visitors", ErrSetting, setting)
		}
		switch value {
		case "views":
			s.Show = ShowViews
		case "visitors":
			s.Show = ShowVisitors
		default:
			return fmt.Errorf("%w %q: show takes views or visitors", ErrSetting, setting)
		}
	case "reload":
		if op != '=' {
			return fmt.Errorf("%w %q: reload takes one duration", ErrSetting, setting)
		}
		s.Reload, err = parseReload(value)
	case "ignore":
		s.Ignore, err = editList(s.Ignore, op, value, parseNetwork, func(a, b netip.Prefix) bool { return a == b })
	case "referrers":
		if s.Site != nil {
			return fmt.Errorf("%w %q: a site counts the pages of its hosts; change hosts instead", ErrSetting, setting)
		}
		s.Referrers, err = editList(s.Referrers, op, value, parseHostPattern, func(a, b string) bool { return a == b })
	case "theme":
		if op != '=' {
			return fmt.Errorf("%w %q: theme takes one name", ErrSetting, setting)
		}
		if err = CheckThemeDefault(value); err == nil {
			s.Theme = value
		}
	case "hosts", "max-pages", "keep-query", "image", "public-pages":
		err = s.setSite(key, op, value)
	default:
		return fmt.Errorf("%w %q: no key %q; the keys are %s, and on a site %s", ErrSetting, setting, key,
			strings.Join(SettingKeys[:], ", "), strings.Join(siteKeys[:], ", "))
	}
	if err != nil {
		return fmt.Errorf("%w %q: %w", ErrSetting, setting, err)
	}
	return nil
}

func parseReload(v string) (time.Duration, error) {
	if v == "0" || v == "off" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d > MaxReload {
		return 0, fmt.Errorf("want a duration from 1s to %s like 30m, or off", formatDuration(MaxReload))
	}
	return d.Truncate(time.Second), nil
}

// editList sets (op '='), adds to ('+') or removes from ('-') list the
// comma-separated entries of value.
func editList[T any](list []T, op byte, value string, parse func(string) (T, error), same func(a, b T) bool) ([]T, error) {
	var entries []T
	for _, f := range strings.Split(value, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		e, err := parse(f)
		if err != nil {
			return list, err
		}
		entries = append(entries, e)
	}
	switch op {
	case '=':
		list = nil
		fallthrough
	case '+':
		for _, e := range entries {
			if !slices.ContainsFunc(list, func(x T) bool { return same(x, e) }) {
				list = append(list, e)
			}
		}
	case '-':
		for _, e := range entries {
			list = slices.DeleteFunc(list, func(x T) bool { return same(x, e) })
		}
	}
	if len(list) > MaxListLen {
		return nil, fmt.Errorf("at most %d entries", MaxListLen)
	}
	return list, nil
}

// parseNetwork reads an address or a network in CIDR form; an address
// stands for itself alone.
func parseNetwork(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil || p.Addr().Zone() != "" {
			return p, fmt.Errorf("%q is not a network like 192.0.2.0/24 or 2001:db8::/32", s)
		}
		if p.Addr().Is4In6() {
			// Addresses are matched as IPv4: ::ffff:192.0.2.0/120 is
			// 192.0.2.0/24.
			if p.Bits() < 96 {
				return p, fmt.Errorf("%q reaches past the IPv4-mapped addresses", s)
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("%q is not an address or a network like 192.0.2.0/24", s)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// parseHostPattern reads a host name, or "*." and a host name.
func parseHostPattern(s string) (string, error) {
	h := strings.TrimSuffix(strings.ToLower(s), ".")
	name := strings.TrimPrefix(h, "*.")
	if name == "" || len(name) > maxHostLen || !validReferrerHost(name) || name[0] == '[' && h != name {
		return "", fmt.Errorf("%q is not a host like example.org or *.example.org", s)
	}
	return h, nil
}

// Ignores reports whether hits from addr are on the ignore list.
func (s Settings) Ignores(addr netip.Addr) bool {
	addr = addr.Unmap().WithZone("")
	for _, p := range s.Ignore {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// AllowsReferrer reports whether a hit from a page on host counts: every
// host does when the list is empty, and a hit that names no host (its
// Referer was stripped, as browsers and privacy tools do) always does. A
// site allows its hosts.
func (s Settings) AllowsReferrer(host string) bool {
	list := s.Referrers
	if s.Site != nil {
		list = s.Site.Hosts
	}
	return len(list) == 0 || host == "" || matchHost(list, host)
}

// LimitsReferrers reports whether the settings allow only some hosts.
func (s Settings) LimitsReferrers() bool { return len(s.Referrers) > 0 || s.Site != nil }

// Format returns the settings as the "key=value" lines Set takes.
func (s Settings) Format() []string {
	ignore := make([]string, len(s.Ignore))
	for i, p := range s.Ignore {
		ignore[i] = formatNetwork(p)
	}
	lines := []string{
		"show=" + s.Show.String(),
		"reload=" + formatDuration(s.Reload),
		"ignore=" + strings.Join(ignore, ","),
	}
	if s.Site == nil {
		return append(lines, "referrers="+strings.Join(s.Referrers, ","), "theme="+s.Theme)
	}
	return append(lines,
		"hosts="+strings.Join(s.Site.Hosts, ","),
		"max-pages="+strconv.Itoa(s.Site.MaxPages),
		"keep-query="+strings.Join(s.Site.KeepQuery, ","),
		"image="+s.Site.Image.String(),
		"public-pages="+onOff(s.Site.PublicPages),
		"theme="+s.Theme,
	)
}

func formatNetwork(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}

// formatDuration writes d as Set reads it, without the zero units that
// time.Duration.String adds ("30m", not "30m0s").
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "off"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// EncodeList and DecodeList write a settings list as the store keeps it:
// one entry per line.
func EncodeList(entries []string) []byte { return []byte(strings.Join(entries, "\n")) }

// DecodeIgnore reads an ignore list as EncodeList wrote it.
func DecodeIgnore(b []byte) ([]netip.Prefix, error) {
	return decodeList(b, parseNetwork)
}

// DecodeReferrers reads a referrer list, or a site's hosts, as EncodeList
// wrote it.
func DecodeReferrers(b []byte) ([]string, error) {
	return decodeList(b, parseHostPattern)
}

// DecodeQueryKeys reads a site's query keys to keep as EncodeList wrote
// them.
func DecodeQueryKeys(b []byte) ([]string, error) {
	return decodeList(b, parseQueryKey)
}

func decodeList[T any](b []byte, parse func(string) (T, error)) ([]T, error) {
	if len(b) == 0 {
		return nil, nil
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > MaxListLen {
		return nil, fmt.Errorf("%w: a list of %d entries", ErrSetting, len(lines))
	}
	list := make([]T, 0, len(lines))
	for _, l := range lines {
		e, err := parse(l)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSetting, err)
		}
		list = append(list, e)
	}
	return list, nil
}

// IgnoreLines returns the ignore list as EncodeList takes it.
func (s Settings) IgnoreLines() []string {
	lines := make([]string, len(s.Ignore))
	for i, p := range s.Ignore {
		lines[i] = formatNetwork(p)
	}
	return lines
}

// ReloadSeconds returns the reload window in whole seconds, as stored.
func (s Settings) ReloadSeconds() uint64 { return uint64(s.Reload / time.Second) }

// ReloadFromSeconds is the reload window of n seconds, as stored.
func ReloadFromSeconds(n uint64) (time.Duration, error) {
	if n > uint64(MaxReload/time.Second) {
		return 0, fmt.Errorf("%w: reload window of %s", ErrSetting, strconv.FormatUint(n, 10)+"s")
	}
	return time.Duration(n) * time.Second, nil
}
