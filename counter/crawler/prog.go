package crawler

import "unicode/utf8"

// The ops of inst: regexp/syntax's instructions, its captures dropped
// (opNop) and a rune's case fold spelled out as ranges, so that matching
// needs no Unicode tables.
const (
	opFail     = iota
	opMatch    // the pattern matched
	opNop      // go on at out
	opAlt      // try out, then arg: the order is the leftmost-first priority
	opEmpty    // go on at out if the syntax.EmptyOp arg holds here
	opRune     // one rune in the n ranges of ranges[arg:], pairs of lo, hi
	opAny      // any rune
	opAnyNotNL // any rune but '\n'
)

// inst is one instruction of a pattern's program; out and arg are the
// program's own pcs, but for opRune.
type inst struct {
	op  uint8
	n   uint8
	out uint16
	arg uint16
}

// prog is where a pattern's program lies in the insts table.
type prog struct {
	pc    uint16 // its first inst
	n     uint16 // how many insts it has
	start uint16 // where it starts, from pc
}

// The empty-width assertions of regexp/syntax.EmptyOp, which inst.arg
// holds for opEmpty.
const (
	emptyBeginLine = 1 << iota
	emptyEndLine
	emptyBeginText
	emptyEndText
	emptyWordBoundary
	emptyNoWordBoundary
)

// machine runs one program by backtracking, the way regexp's backtracker
// does: alternatives in priority order, so the first match found is the
// one Go's regexp reports. A visited set of (pc, position) keeps any state
// from being tried twice, so the work stays linear in the input; most
// tries fail within a few steps, so a try pays for the set only once it
// has taken more than tryBudget steps.
type machine struct {
	p       prog
	s       string
	memo    bool // visited is ready for p and s
	visited []uint64
}

type job struct {
	pc  uint16
	pos int
}

// tryBudget is how many steps a try takes before it restarts with a
// visited set.
const tryBudget = 256

// load readies m to run p over s.
func (m *machine) load(p prog, s string) {
	m.p, m.s, m.memo = p, s, false
}

// useMemo readies the visited set, with nothing visited.
func (m *machine) useMemo() {
	words := (int(m.p.n)*(len(m.s)+1) + 63) / 64
	if cap(m.visited) < words {
		m.visited = make([]uint64, max(words, 128))
	}
	m.visited = m.visited[:words]
	clear(m.visited)
	m.memo = true
}

// match tries the program at pos alone and returns where its
// leftmost-first match ends.
func (m *machine) match(pos int) (end int, ok bool) {
	end, ok, done := m.run(pos, tryBudget)
	if done {
		return end, ok
	}
	m.useMemo()
	end, ok, _ = m.run(pos, -1)
	return end, ok
}

// search reports whether the program matches anywhere in s, trying starts
// rune by rune as regexp does. One visited set serves all the starts: a
// state that failed from one start fails from any.
func (m *machine) search() bool {
	m.useMemo()
	anchored := m.anchored()
	for pos := 0; ; pos += runeWidth(m.s, pos) {
		if _, ok, _ := m.run(pos, -1); ok {
			return true
		}
		if pos >= len(m.s) || anchored {
			return false
		}
	}
}

// anchored reports whether every match of the program starts at the
// beginning of the text (it opens with ^): then no later start can match,
// and a long hostile text costs one try, not one per byte.
func (m *machine) anchored() bool {
	pc := int(m.p.start)
	for range m.p.n {
		in := instAt(int(m.p.pc) + pc)
		switch {
		case in.op == opNop:
			pc = int(in.out)
		case in.op == opEmpty:
			return int(in.arg)&emptyBeginText != 0
		default:
			return false
		}
	}
	return false
}

// run tries the program at pos, for at most budget steps unless budget is
// negative; done is false when it ran out.
func (m *machine) run(pos, budget int) (end int, ok, done bool) {
	var jobs [32]job
	stack := append(jobs[:0], job{m.p.start, pos})
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pc, pos := j.pc, j.pos
	step:
		if budget--; budget == 0 {
			return 0, false, false
		}
		if m.memo {
			k := int(pc)*(len(m.s)+1) + pos
			if m.visited[k/64]&(1<<(k%64)) != 0 {
				continue
			}
			m.visited[k/64] |= 1 << (k % 64)
		}
		in := instAt(int(m.p.pc) + int(pc))
		switch in.op {
		case opFail:
			continue
		case opMatch:
			return pos, true, true
		case opNop:
			pc = in.out
			goto step
		case opAlt:
			stack = append(stack, job{in.arg, pos})
			pc = in.out
			goto step
		case opEmpty:
			if !emptyHolds(m.s, pos, int(in.arg)) {
				continue
			}
			pc = in.out
			goto step
		}
		if pos >= len(m.s) {
			continue
		}
		r, w := rune(m.s[pos]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(m.s[pos:])
		}
		switch in.op {
		case opRune:
			if !inRanges(int(in.arg), int(in.n), r) {
				continue
			}
		case opAnyNotNL:
			if r == '\n' {
				continue
			}
		}
		pc, pos = in.out, pos+w
		goto step
	}
	return 0, false, true
}

// inRanges reports whether r is in one of the n ranges from entry at of
// the ranges table.
func inRanges(at, n int, r rune) bool {
	for i := at; i < at+2*n; i += 2 {
		if rangeAt(i) <= r && r <= rangeAt(i+1) {
			return true
		}
	}
	return false
}

// runeWidth is the width regexp gives the rune at s[pos:]: 1 for an
// invalid byte.
func runeWidth(s string, pos int) int {
	if s[pos] < utf8.RuneSelf {
		return 1
	}
	_, w := utf8.DecodeRuneInString(s[pos:])
	return w
}

// emptyHolds reports whether the assertions of op hold at s[pos], which
// sees the runes either side as regexp does (syntax.EmptyOpContext).
func emptyHolds(s string, pos int, op int) bool {
	r1, r2 := rune(-1), rune(-1)
	if pos > 0 {
		r1, _ = utf8.DecodeLastRuneInString(s[:pos])
	}
	if pos < len(s) {
		r2, _ = utf8.DecodeRuneInString(s[pos:])
	}
	var have int
	if r1 < 0 {
		have |= emptyBeginText | emptyBeginLine
	}
	if r1 == '\n' {
		have |= emptyBeginLine
	}
	if r2 < 0 {
		have |= emptyEndText | emptyEndLine
	}
	if r2 == '\n' {
		have |= emptyEndLine
	}
	if isWordChar(r1) != isWordChar(r2) {
		have |= emptyWordBoundary
	} else {
		have |= emptyNoWordBoundary
	}
	return op&^have == 0
}

func isWordChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
}
