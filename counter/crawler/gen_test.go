package crawler

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite patterns.go from crawlerdetect's pattern lists")

const libPath = "github.com/x-way/crawlerdetect"

// maxAlwaysTry bounds the crawler patterns without a needle, which every
// user agent pays for.
const maxAlwaysTry = 8

// TestPatterns checks that patterns.go holds exactly what the generator
// makes of the pattern lists of the crawlerdetect version in go.mod;
// -update rewrites it.
func TestPatterns(t *testing.T) {
	code, err := generate(libDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("patterns.go", code, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("patterns.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, code) {
		t.Errorf("patterns.go differs from what crawlerdetect's lists make: run go test ./counter/crawler -update")
	}
}

// libDir is where the module cache holds the crawlerdetect of go.mod.
func libDir(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", libPath).Output()
	if err != nil {
		tb.Fatalf("go list -m %s: %v", libPath, err)
	}
	return strings.TrimSpace(string(out))
}

// readList returns the strings of the package-level var name in file.
func readList(file, name string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return nil, err
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
				continue
			}
			cl, ok := vs.Values[0].(*ast.CompositeLit)
			if !ok {
				return nil, fmt.Errorf("%s: %s is not a composite literal", file, name)
			}
			var list []string
			for _, e := range cl.Elts {
				bl, ok := e.(*ast.BasicLit)
				if !ok || bl.Kind != token.STRING {
					return nil, fmt.Errorf("%s: an element of %s is not a string literal", file, name)
				}
				s, err := strconv.Unquote(bl.Value)
				if err != nil {
					return nil, err
				}
				list = append(list, s)
			}
			return list, nil
		}
	}
	return nil, fmt.Errorf("%s: no var %s", file, name)
}

// gen collects the generated tables.
type gen struct {
	insts  []inst
	ranges []rune
}

// parse parses a pattern as crawlerdetect's (?i) alternation does.
func parse(pat string) (*syntax.Regexp, error) {
	re, err := syntax.Parse(pat, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pat, err)
	}
	return re.Simplify(), nil
}

// compile appends the program of re to g.insts.
func (g *gen) compile(pat string, re *syntax.Regexp) (prog, *syntax.Prog, error) {
	sp, err := syntax.Compile(re)
	if err != nil {
		return prog{}, nil, fmt.Errorf("pattern %q: %w", pat, err)
	}
	p := prog{pc: uint16(len(g.insts)), n: uint16(len(sp.Inst)), start: uint16(sp.Start)}
	for _, in := range sp.Inst {
		var x inst
		switch in.Op {
		case syntax.InstFail:
			x.op = opFail
		case syntax.InstMatch:
			x.op = opMatch
		case syntax.InstNop, syntax.InstCapture:
			x.op = opNop
		case syntax.InstAlt:
			x.op, x.arg = opAlt, uint16(in.Arg)
		case syntax.InstEmptyWidth:
			x.op, x.arg = opEmpty, uint16(in.Arg)
		case syntax.InstRune, syntax.InstRune1:
			rs := instRanges(in)
			if len(rs)/2 > 255 {
				return prog{}, nil, fmt.Errorf("pattern %q: a class of %d ranges", pat, len(rs)/2)
			}
			x.op, x.n, x.arg = opRune, uint8(len(rs)/2), uint16(len(g.ranges))
			g.ranges = append(g.ranges, rs...)
		case syntax.InstRuneAny:
			x.op = opAny
		case syntax.InstRuneAnyNotNL:
			x.op = opAnyNotNL
		default:
			return prog{}, nil, fmt.Errorf("pattern %q: instruction %v is not supported", pat, in.Op)
		}
		x.out = uint16(in.Out)
		g.insts = append(g.insts, x)
	}
	if len(g.insts) > 1<<16 || len(g.ranges) > 1<<16 {
		return prog{}, nil, fmt.Errorf("the programs outgrew 16-bit indexes")
	}
	return p, sp, nil
}

// firstBytes returns the bytes a match of sp can start with, and fails on
// a program that can match the empty string.
func firstBytes(pat string, sp *syntax.Prog) (set [256]bool, err error) {
	seen := make([]bool, len(sp.Inst))
	var walk func(pc uint32) error
	walk = func(pc uint32) error {
		if seen[pc] {
			return nil
		}
		seen[pc] = true
		in := sp.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			return fmt.Errorf("exclusion %q matches the empty string, which exclude does not handle", pat)
		case syntax.InstFail:
			return nil
		case syntax.InstNop, syntax.InstCapture, syntax.InstEmptyWidth:
			return walk(in.Out)
		case syntax.InstAlt:
			if err := walk(in.Out); err != nil {
				return err
			}
			return walk(in.Arg)
		}
		rs := instRanges(in)
		for i := 0; i < len(rs); i += 2 {
			lo, hi := rs[i], rs[i+1]
			for b := lo; b <= hi && b < utf8.RuneSelf; b++ {
				set[b] = true
			}
			if hi < utf8.RuneSelf {
				continue
			}
			lo = max(lo, utf8.RuneSelf)
			for b := utf8.AppendRune(nil, lo)[0]; b <= utf8.AppendRune(nil, hi)[0]; b++ {
				set[b] = true
			}
			if lo <= utf8.RuneError && utf8.RuneError <= hi {
				for b := utf8.RuneSelf; b < 256; b++ {
					set[b] = true // an invalid byte
				}
			}
		}
		return nil
	}
	return set, walk(uint32(sp.Start))
}

// instRanges returns the runes a rune instruction matches, as pairs of
// lo, hi: a literal's case fold spelled out.
func instRanges(in syntax.Inst) []rune {
	switch in.Op {
	case syntax.InstRuneAny:
		return []rune{0, unicode.MaxRune}
	case syntax.InstRuneAnyNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	}
	if len(in.Rune) != 1 {
		return in.Rune
	}
	rs := []rune{in.Rune[0], in.Rune[0]}
	if in.Op == syntax.InstRune && syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
		for r := unicode.SimpleFold(in.Rune[0]); r != in.Rune[0]; r = unicode.SimpleFold(r) {
			rs = append(rs, r, r)
		}
	}
	return rs
}

// generate makes patterns.go from the lists in the crawlerdetect module
// at dir.
func generate(dir string) ([]byte, error) {
	crawlers, err := readList(filepath.Join(dir, "crawlers.go"), "crawlers")
	if err != nil {
		return nil, err
	}
	exclusions, err := readList(filepath.Join(dir, "exclusions.go"), "exclusions")
	if err != nil {
		return nil, err
	}
	if len(exclusions) > 64 {
		return nil, fmt.Errorf("%d exclusions do not fit exclusionStarts' uint64 masks", len(exclusions))
	}
	var g gen
	var src bytes.Buffer
	src.WriteString("// Code generated by go test ./counter/crawler -update; DO NOT EDIT.\n\n")
	src.WriteString("package crawler\n\n")
	fmt.Fprintf(&src, "// From %s's crawlers.go (%d patterns) and exclusions.go (%d patterns).\n\n", libPath, len(crawlers), len(exclusions))

	var starts [256]uint64
	var excProgs []byte
	for i, pat := range exclusions {
		re, err := parse(pat)
		if err != nil {
			return nil, err
		}
		p, sp, err := g.compile(pat, re)
		if err != nil {
			return nil, err
		}
		set, err := firstBytes(pat, sp)
		if err != nil {
			return nil, err
		}
		for b, ok := range set {
			if ok {
				starts[b] |= 1 << i
			}
		}
		excProgs = appendProg(excProgs, p)
	}

	// Only the crawler patterns that their needles do not answer alone
	// have a program; a needle's pat numbers them in that order.
	var tri [trigramSlots][]needle
	var short []needle
	var always []uint16
	var crawProgs []byte
	var programmed []string
	for _, pat := range crawlers {
		re, err := parse(pat)
		if err != nil {
			return nil, err
		}
		nf := needlesOf(trimNullable(re))
		need := nf.need()
		exact := nf.exact != nil && !nf.asserts && len(need) > 0 && len(need[0]) >= 2
		var id uint16
		if !exact {
			p, _, err := g.compile(pat, re)
			if err != nil {
				return nil, err
			}
			id = uint16(len(programmed))
			programmed = append(programmed, pat)
			crawProgs = appendProg(crawProgs, p)
		}
		switch {
		case len(need) == 0 || len(need[0]) < 2:
			always = append(always, id)
		default:
			for _, text := range need {
				nd := needle{text: text, pat: id, exact: exact}
				if len(text) == 2 {
					short = append(short, nd)
				} else {
					h := trigramSlot(text[0], text[1], text[2])
					tri[h] = append(tri[h], nd)
				}
			}
		}
	}
	if len(always)+len(short) > maxAlwaysTry {
		return nil, fmt.Errorf("%d crawler patterns have no needle of 3 bytes, more than %d", len(always)+len(short), maxAlwaysTry)
	}

	var text strings.Builder
	appendNeedle := func(b []byte, nd needle) []byte {
		off := text.Len()
		text.WriteString(nd.text)
		exact := byte(0)
		if nd.exact {
			exact = 1
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(off))
		b = append(b, byte(len(nd.text)), exact)
		return binary.LittleEndian.AppendUint16(b, nd.pat)
	}
	var needles, slots, shortNeedles, alwaysTry []byte
	n := 0
	for _, nds := range tri {
		slots = binary.LittleEndian.AppendUint16(slots, uint16(n))
		for _, nd := range nds {
			needles = appendNeedle(needles, nd)
			n++
		}
	}
	slots = binary.LittleEndian.AppendUint16(slots, uint16(n))
	for _, nd := range short {
		shortNeedles = appendNeedle(shortNeedles, nd)
	}
	for _, id := range always {
		alwaysTry = binary.LittleEndian.AppendUint16(alwaysTry, id)
	}
	if text.Len() >= 1<<16 || n >= 1<<16 {
		return nil, fmt.Errorf("needles of %d bytes in all, %d of them: past uint16 offsets", text.Len(), n)
	}
	var exclusionStarts, insts, ranges []byte
	for _, m := range starts {
		exclusionStarts = binary.LittleEndian.AppendUint64(exclusionStarts, m)
	}
	for _, x := range g.insts {
		insts = append(insts, x.op, x.n)
		insts = binary.LittleEndian.AppendUint16(insts, x.out)
		insts = binary.LittleEndian.AppendUint16(insts, x.arg)
	}
	for _, r := range g.ranges {
		ranges = binary.LittleEndian.AppendUint32(ranges, uint32(r))
	}

	table := func(name, doc string, b []byte) {
		src.WriteString(doc)
		fmt.Fprintf(&src, "const %s = \"\"", name)
		for i := 0; i < len(b); i += 32 {
			src.WriteString(" +\n\t\"")
			for _, c := range b[i:min(i+32, len(b))] {
				fmt.Fprintf(&src, "\\x%02x", c)
			}
			src.WriteString("\"")
		}
		src.WriteString("\n\n")
	}
	fmt.Fprintf(&src, "// The exclusions, in their order:\n")
	for _, pat := range exclusions {
		fmt.Fprintf(&src, "//\t%s\n", commentSafe(pat))
	}
	fmt.Fprintf(&src, "//\n// and the crawler patterns that need a program, in crawlerProgs' order:\n")
	for _, pat := range programmed {
		fmt.Fprintf(&src, "//\t%s\n", commentSafe(pat))
	}
	src.WriteString("\n")
	table("exclusionProgs", "// exclusionProgs are the programs of the exclusions, in their order.\n", excProgs)
	table("exclusionStarts", "// exclusionStarts has, for each byte b, a uint64 whose bit i is set when\n// exclusion i can match from b.\n", exclusionStarts)
	table("crawlerProgs", "// crawlerProgs are the programs of the crawler patterns that their\n// needles do not answer alone.\n", crawProgs)
	table("needles", "// needles are the trigram needles, by trigramSlot of their first three\n// bytes.\n", needles)
	table("needleSlots", "// needleSlots has, for each trigram slot h, where its needles start in\n// needles, and then their end.\n", slots)
	table("shortNeedles", "// shortNeedles are the needles of two bytes.\n", shortNeedles)
	table("alwaysTry", "// alwaysTry are the crawler programs with no needle, run on every user\n// agent.\n", alwaysTry)
	table("insts", "// insts are the programs' instructions.\n", insts)
	table("ranges", "// ranges are the rune ranges of the opRune instructions, lo and hi.\n", ranges)
	src.WriteString("// needleText holds the needles' texts.\n")
	fmt.Fprintf(&src, "const needleText = %q\n", text.String())

	code, err := format.Source(src.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format generated code: %w", err)
	}
	return code, nil
}

// commentSafe keeps a pattern from ending its line comment early.
func commentSafe(pat string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(pat)
}

// maxExact bounds the strings a node's exact set may hold.
const maxExact = 16

// needleInfo is what a pattern's node says of the lowered text it matches
// (see lowerFold). When exact is not nil, the node matches a text if and
// only if lowerFold of it is in exact. Otherwise every match, lowered,
// contains one of needles, if there are needles. asserts says whether the
// node holds an empty-width assertion, which exact does not see.
type needleInfo struct {
	exact   []string
	needles []string
	asserts bool
}

// need returns a set of needles, shortest first, every match contains one
// of: the exact set if there is one.
func (ni needleInfo) need() []string {
	set := ni.needles
	if ni.exact != nil {
		set = ni.exact
	}
	set = slices.Clone(set)
	slices.SortFunc(set, func(a, b string) int { return len(a) - len(b) })
	return set
}

// better reports whether needle set a is worth more than b: a longer
// shortest needle, then fewer needles.
func better(a, b []string) bool {
	if len(b) == 0 {
		return len(a) > 0 && len(a[0]) > 0
	}
	if len(a) == 0 || len(a[0]) == 0 {
		return false
	}
	if len(a[0]) != len(b[0]) {
		return len(a[0]) > len(b[0])
	}
	return len(a) < len(b)
}

// lowerable reports whether lowerFold can turn a rune into c.
func lowerable(c rune) bool {
	return c < utf8.RuneSelf && !('A' <= c && c <= 'Z')
}

func needlesOf(re *syntax.Regexp) needleInfo {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return needleInfo{exact: []string{""}}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return needleInfo{exact: []string{""}, asserts: true}
	case syntax.OpLiteral:
		var b strings.Builder
		for _, r := range re.Rune {
			l := unicode.ToLower(r)
			if r >= utf8.RuneSelf || re.Flags&syntax.FoldCase == 0 && unicode.IsLetter(r) ||
				!sameRunes(orbitOf(r, re.Flags&syntax.FoldCase != 0), lowersTo(l)) {
				return needleInfo{}
			}
			b.WriteRune(l)
		}
		return needleInfo{exact: []string{b.String()}}
	case syntax.OpCharClass:
		var set []string
		for c := rune(0); c < utf8.RuneSelf; c++ {
			if !lowerable(c) {
				continue
			}
			in, all := false, true
			for _, r := range lowersTo(c) {
				if classHas(re.Rune, r) {
					in = true
				} else {
					all = false
				}
			}
			if in && !all {
				return needleInfo{}
			}
			if in {
				set = append(set, string(c))
			}
		}
		for i := 0; i < len(re.Rune); i += 2 {
			lo, hi := max(re.Rune[i], utf8.RuneSelf), re.Rune[i+1]
			if lo <= hi && !(lo == hi && (lo == 0x17F || lo == 0x212A)) {
				return needleInfo{} // a rune lowerFold keeps as it is
			}
		}
		if len(set) > 4 {
			return needleInfo{}
		}
		return needleInfo{exact: set}
	case syntax.OpCapture:
		return needlesOf(re.Sub[0])
	case syntax.OpQuest:
		sub := needlesOf(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxExact {
			return needleInfo{exact: append([]string{""}, sub.exact...), asserts: sub.asserts}
		}
		return needleInfo{asserts: true} // asserts: it may hold one
	case syntax.OpPlus:
		sub := needlesOf(re.Sub[0])
		return needleInfo{needles: sub.need(), asserts: true}
	case syntax.OpConcat:
		cur := []string{""}
		var best []string
		asserts := false
		allExact := true
		for _, s := range re.Sub {
			sub := needlesOf(s)
			asserts = asserts || sub.asserts
			if sub.exact != nil && len(cur)*len(sub.exact) <= maxExact {
				var next []string
				for _, a := range cur {
					for _, b := range sub.exact {
						next = append(next, a+b)
					}
				}
				cur = next
				continue
			}
			allExact = false
			if c := shortestFirst(cur); better(c, best) {
				best = c
			}
			if n := sub.need(); better(n, best) {
				best = n
			}
			cur = []string{""}
			if sub.exact != nil {
				cur = sub.exact
			}
		}
		if allExact {
			return needleInfo{exact: cur, asserts: asserts}
		}
		if c := shortestFirst(cur); better(c, best) {
			best = c
		}
		return needleInfo{needles: best, asserts: asserts}
	case syntax.OpAlternate:
		var exact, needles []string
		allExact, allNeed := true, true
		asserts := false
		for _, s := range re.Sub {
			sub := needlesOf(s)
			asserts = asserts || sub.asserts
			if sub.exact == nil {
				allExact = false
			}
			exact = append(exact, sub.exact...)
			n := sub.need()
			if len(n) == 0 || len(n[0]) == 0 {
				allNeed = false
			}
			needles = append(needles, n...)
		}
		if allExact && len(exact) <= maxExact {
			return needleInfo{exact: exact, asserts: asserts}
		}
		if allNeed {
			return needleInfo{needles: shortestFirst(needles), asserts: asserts}
		}
		return needleInfo{asserts: asserts}
	}
	return needleInfo{asserts: true} // a star, any char: nothing known
}

// trimNullable returns re without the stars and optional parts it starts
// or ends with: re matches somewhere in a text if and only if the rest
// does, which is all a crawler pattern is asked.
func trimNullable(re *syntax.Regexp) *syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return re
	}
	nullable := func(re *syntax.Regexp) bool {
		return re.Op == syntax.OpStar || re.Op == syntax.OpQuest || re.Op == syntax.OpEmptyMatch
	}
	subs := re.Sub
	for len(subs) > 0 && nullable(subs[0]) {
		subs = subs[1:]
	}
	for len(subs) > 0 && nullable(subs[len(subs)-1]) {
		subs = subs[:len(subs)-1]
	}
	switch len(subs) {
	case 0:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	case 1:
		return subs[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}
}

func shortestFirst(set []string) []string {
	set = slices.Clone(set)
	slices.SortFunc(set, func(a, b string) int { return len(a) - len(b) })
	return slices.Compact(set)
}

// lowersTo returns the runes lowerFold turns into the lowered char c.
func lowersTo(c rune) []rune {
	rs := []rune{c}
	if u := unicode.ToUpper(c); u != c {
		rs = append(rs, u)
	}
	switch c {
	case 'k':
		rs = append(rs, 0x212A)
	case 's':
		rs = append(rs, 0x17F)
	}
	return rs
}

// orbitOf returns the runes a literal r matches.
func orbitOf(r rune, fold bool) []rune {
	rs := []rune{r}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			rs = append(rs, f)
		}
	}
	return rs
}

func sameRunes(a, b []rune) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func classHas(ranges []rune, r rune) bool {
	for i := 0; i < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// TestEmptyOps pins the assertions opEmpty tests to regexp/syntax's,
// which the generator copies into inst.arg.
func TestEmptyOps(t *testing.T) {
	for _, tc := range []struct {
		ours int
		want syntax.EmptyOp
	}{
		{emptyBeginLine, syntax.EmptyBeginLine},
		{emptyEndLine, syntax.EmptyEndLine},
		{emptyBeginText, syntax.EmptyBeginText},
		{emptyEndText, syntax.EmptyEndText},
		{emptyWordBoundary, syntax.EmptyWordBoundary},
		{emptyNoWordBoundary, syntax.EmptyNoWordBoundary},
	} {
		if tc.ours != int(tc.want) {
			t.Errorf("got %#x, want %#x", tc.ours, tc.want)
		}
	}
	for _, s := range []string{"", "a", "a b", "\n", "a\nb", "é", "\xff", "_x_"} {
		for pos := 0; pos <= len(s); pos++ {
			r1, r2 := rune(-1), rune(-1)
			if pos > 0 {
				r1, _ = utf8.DecodeLastRuneInString(s[:pos])
			}
			if pos < len(s) {
				r2, _ = utf8.DecodeRuneInString(s[pos:])
			}
			want := syntax.EmptyOpContext(r1, r2)
			for op := syntax.EmptyOp(1); op < 1<<6; op <<= 1 {
				if got := emptyHolds(s, pos, int(op)); got != (want&op != 0) {
					t.Errorf("emptyHolds(%q, %d, %#x) = %v, want %v", s, pos, op, got, !got)
				}
			}
		}
	}
}

// appendProg appends p as progAt reads it.
func appendProg(b []byte, p prog) []byte {
	b = binary.LittleEndian.AppendUint16(b, p.pc)
	b = binary.LittleEndian.AppendUint16(b, p.n)
	return binary.LittleEndian.AppendUint16(b, p.start)
}
