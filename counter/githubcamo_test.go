package counter

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// update rewrites githubcamo.go from githubcamo.txt.
var update = flag.Bool("update", false, "rewrite githubcamo.go from githubcamo.txt")

// githubMeta names a copy of https://api.github.com/meta: with -update,
// githubcamo.txt takes its "hooks" ranges and today's date first.
var githubMeta = flag.String("github-meta", "", "with -update, rewrite githubcamo.txt from this copy of GitHub's meta API first")

const (
	camoListFile = "githubcamo.txt"
	camoCodeFile = "githubcamo.go"
	camoMetaKey  = "hooks"
)

// camoList is githubcamo.txt: its comment, where and when its networks
// were taken, and the networks.
type camoList struct {
	comment      []string // the lines starting with #
	source, date string
	nets         []netip.Prefix
}

// parseCamoList reads githubcamo.txt, refusing what cannot be GitHub's
// list: no networks, a network not written as its first address, or one
// so wide that it holds more than GitHub's own.
func parseCamoList(text string) (camoList, error) {
	var l camoList
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			l.comment = append(l.comment, sc.Text())
		case strings.HasPrefix(line, "source:"):
			l.source = strings.TrimSpace(strings.TrimPrefix(line, "source:"))
		case strings.HasPrefix(line, "date:"):
			l.date = strings.TrimSpace(strings.TrimPrefix(line, "date:"))
			if _, err := time.Parse(time.DateOnly, l.date); err != nil {
				return l, fmt.Errorf("line %d: date: %v", n, err)
			}
		default:
			p, err := netip.ParsePrefix(line)
			if err != nil {
				return l, fmt.Errorf("line %d: %v", n, err)
			}
			if p != p.Masked() {
				return l, fmt.Errorf("line %d: %s is not written as its network, %s", n, p, p.Masked())
			}
			if min := map[bool]int{true: 8, false: 16}[p.Addr().Is4()]; p.Bits() < min {
				return l, fmt.Errorf("line %d: %s is wider than /%d: no one company's proxies", n, p, min)
			}
			l.nets = append(l.nets, p)
		}
	}
	if l.source == "" || l.date == "" || len(l.nets) == 0 {
		return l, fmt.Errorf("want source:, date: and at least one network")
	}
	return l, sc.Err()
}

// String writes the list back as githubcamo.txt holds it.
func (l camoList) String() string {
	var b strings.Builder
	for _, c := range l.comment {
		b.WriteString(c + "\n")
	}
	fmt.Fprintf(&b, "source: %s\ndate: %s\n", l.source, l.date)
	for _, p := range l.nets {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// fromMeta returns l with the networks of GitHub's meta API under key,
// in its order, dated today.
func (l camoList) fromMeta(meta []byte, key string, today time.Time) (camoList, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(meta, &m); err != nil {
		return l, fmt.Errorf("meta: %v", err)
	}
	var nets []string
	if err := json.Unmarshal(m[key], &nets); err != nil || len(nets) == 0 {
		return l, fmt.Errorf("meta: no %q list of networks", key)
	}
	l.source = "https://api.github.com/meta, key " + strconv.Quote(key)
	l.date = today.UTC().Format(time.DateOnly)
	l.nets = nil
	for _, s := range nets {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return l, fmt.Errorf("meta: %q: %v", s, err)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		l.nets = append(l.nets, p.Masked())
	}
	// Checked as a kept list is.
	return parseCamoList(l.String())
}

// toU128 is a as the table holds it: IPv4 in its IPv6-mapped form.
func toU128(a netip.Addr) u128 {
	b := a.As16()
	return u128{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// lastAddr is the last address of network p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As16()
	host := p.Addr().BitLen() - p.Bits()
	for i := 15; host > 0; i-- {
		n := min(host, 8)
		b[i] |= byte(1<<n - 1)
		host -= n
	}
	a := netip.AddrFrom16(b)
	if p.Addr().Is4() {
		a = a.Unmap()
	}
	return a
}

// camoTable is the sorted table of nets, with networks that overlap or
// touch merged.
func camoTable(nets []netip.Prefix) []addrRange {
	var rs []addrRange
	for _, p := range nets {
		rs = append(rs, addrRange{toU128(p.Masked().Addr()), toU128(lastAddr(p))})
	}
	slices.SortFunc(rs, func(a, b addrRange) int {
		switch {
		case a.first.less(b.first):
			return -1
		case b.first.less(a.first):
			return 1
		}
		return 0
	})
	var out []addrRange
	for _, r := range rs {
		if n := len(out); n > 0 {
			next := out[n-1].last
			if next.lo++; next.lo == 0 {
				next.hi++
			}
			if !next.less(r.first) { // overlaps, or starts right after
				if out[n-1].last.less(r.last) {
					out[n-1].last = r.last
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// generateCamo makes githubcamo.go from the list.
func generateCamo(l camoList) ([]byte, error) {
	var src bytes.Buffer
	src.WriteString("// Code generated by go test ./counter -run TestGitHubCamoList -update; DO NOT EDIT.\n\n")
	src.WriteString("package counter\n\n")
	fmt.Fprintf(&src, "// camoRanges are the networks of githubcamo.txt of %s, sorted and merged.\n", l.date)
	src.WriteString("var camoRanges = [...]addrRange{\n")
	for _, r := range camoTable(l.nets) {
		first := netip.AddrFrom16(toBytes(r.first)).Unmap()
		last := netip.AddrFrom16(toBytes(r.last)).Unmap()
		fmt.Fprintf(&src, "{u128{%#016x, %#016x}, u128{%#016x, %#016x}}, // %s - %s\n",
			r.first.hi, r.first.lo, r.last.hi, r.last.lo, first, last)
	}
	src.WriteString("}\n")
	return format.Source(src.Bytes())
}

func toBytes(x u128) [16]byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], x.hi)
	binary.BigEndian.PutUint64(b[8:], x.lo)
	return b
}

// TestGitHubCamoList checks that githubcamo.go holds exactly what
// githubcamo.txt makes; -update rewrites it, and with -github-meta first
// rewrites githubcamo.txt from a fresh copy of GitHub's meta API (see
// deploy/refresh-github-camo.sh).
func TestGitHubCamoList(t *testing.T) {
	text, err := os.ReadFile(camoListFile)
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseCamoList(string(text))
	if err != nil {
		t.Fatalf("%s: %v", camoListFile, err)
	}
	if *update && *githubMeta != "" {
		meta, err := os.ReadFile(*githubMeta)
		if err != nil {
			t.Fatal(err)
		}
		if l, err = l.fromMeta(meta, camoMetaKey, time.Now()); err != nil {
			t.Fatalf("%s: %v", *githubMeta, err)
		}
		if err := os.WriteFile(camoListFile, []byte(l.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, err := generateCamo(l)
	if err != nil {
		t.Fatalf("format generated code: %v", err)
	}
	if *update {
		if err := os.WriteFile(camoCodeFile, code, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(camoCodeFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, code) {
		t.Errorf("%s differs from what %s makes: run go test ./counter -run TestGitHubCamoList -update", camoCodeFile, camoListFile)
	}
}

func TestIsGitHubCamo(t *testing.T) {
	const camo = "github-camo (876de43e)"
	tests := []struct {
		name, ua, addr string
		want           bool
	}{
		{"the proxy as logs show it", camo, "140.82.115.88", true},
		{"first address of a network", camo, "140.82.112.0", true},
		{"last address of a network", camo, "140.82.127.255", true},
		{"just below a network", camo, "140.82.111.255", false},
		{"just above a network", camo, "140.82.128.0", false},
		{"IPv4 mapped into IPv6", camo, "::ffff:140.82.115.1", true},
		{"IPv6", camo, "2606:50c0:8000::153", true},
		{"last IPv6 address of a /29", camo, "2a0a:a447:ffff:ffff:ffff:ffff:ffff:ffff", true},
		{"just above a /29", camo, "2a0a:a448::", false},
		{"an Actions runner's network, where anyone's code runs", camo, "9.234.106.63", false},
		{"a stranger", camo, "203.0.113.7", false},
		{"a stranger on IPv6", camo, "2001:db8::1", false},
		{"a browser from GitHub's network", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "140.82.115.88", false},
		{"the name not at the start", "Mozilla/5.0 github-camo", "140.82.115.88", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsGitHubCamo(tc.ua, netip.MustParseAddr(tc.addr)); got != tc.want {
				t.Errorf("IsGitHubCamo(%q, %s) = %v, want %v", tc.ua, tc.addr, got, tc.want)
			}
		})
	}
	if IsGitHubCamo(camo, netip.Addr{}) {
		t.Errorf("IsGitHubCamo with no address = true, want false")
	}
}

// TestGitHubCamoNetworks looks up the first and last address of every
// network of githubcamo.txt, and the addresses either side of it.
func TestGitHubCamoNetworks(t *testing.T) {
	text, err := os.ReadFile(camoListFile)
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseCamoList(string(text))
	if err != nil {
		t.Fatal(err)
	}
	listed := func(a netip.Addr) bool {
		return slices.ContainsFunc(l.nets, func(p netip.Prefix) bool { return p.Contains(a) })
	}
	for _, p := range l.nets {
		first, last := p.Addr(), lastAddr(p)
		for _, a := range []netip.Addr{first, last, first.Prev(), last.Next()} {
			if !a.IsValid() {
				continue
			}
			if got, want := isGitHubProxyAddr(a), listed(a); got != want {
				t.Errorf("%s (network %s): got %v, want %v", a, p, got, want)
			}
		}
	}
}

func TestParseCamoListRefuses(t *testing.T) {
	const head = "source: x\ndate: 2026-12-05\n"
	for _, text := range []string{
		head,                             // no network
		"date: 2026-12-05\n1.2.3.0/24\n", // no source
		head + "140.82.112.1/20\n",       // not written as its network
		head + "0.0.0.0/0\n",             // everyone
		head + "2000::/3\n",              // most of IPv6
		head + "140.82.112.0\n",          // not a network
		"source: x\ndate: 5 Dec\n1.2.3.0/24\n",
	} {
		if _, err := parseCamoList(text); err == nil {
			t.Errorf("parseCamoList(%q) = nil error, want one", text)
		}
	}
}

// A copy of the meta API's answer makes the list, refusing one without
// the key.
func TestCamoListFromMeta(t *testing.T) {
	meta := []byte(`{"verifiable_password_authentication": false, "hooks": ["192.30.252.0/22", "2606:50c0::/32", "140.82.121.33"], "web": ["20.201.28.151/32"]}`)
	old := camoList{comment: []string{"# kept"}, source: "old", date: "2020-01-01", nets: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	l, err := old.fromMeta(meta, "hooks", time.Date(2027, 3, 4, 23, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := "# kept\nsource: https://api.github.com/meta, key \"hooks\"\ndate: 2027-03-04\n192.30.252.0/22\n2606:50c0::/32\n140.82.121.33/32\n"
	if got := l.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := old.fromMeta([]byte(`{"web": ["20.201.28.151/32"]}`), "hooks", time.Now()); err == nil {
		t.Errorf("meta without hooks: no error")
	}
}

// Networks that overlap or touch become one range of the table.
func TestCamoTableMerges(t *testing.T) {
	var nets []netip.Prefix
	for _, s := range []string{"10.0.1.0/24", "10.0.0.0/24", "10.0.0.128/25", "12.0.0.0/8", "2001:db8::/32"} {
		nets = append(nets, netip.MustParsePrefix(s))
	}
	var got []string
	for _, r := range camoTable(nets) {
		got = append(got, netip.AddrFrom16(toBytes(r.first)).Unmap().String()+"-"+netip.AddrFrom16(toBytes(r.last)).Unmap().String())
	}
	want := []string{"10.0.0.0-10.0.1.255", "12.0.0.0-12.255.255.255", "2001:db8::-2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The proxy's check on the hit path: a browser pays a prefix test, the
// proxy a binary search.
func BenchmarkIsGitHubCamo(b *testing.B) {
	browser := "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	addr := netip.MustParseAddr("140.82.115.88")
	b.Run("browser", func(b *testing.B) {
		for b.Loop() {
			IsGitHubCamo(browser, addr)
		}
	})
	b.Run("proxy", func(b *testing.B) {
		for b.Loop() {
			IsGitHubCamo("github-camo (876de43e)", addr)
		}
	})
}
