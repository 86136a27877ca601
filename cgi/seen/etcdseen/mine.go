package etcdseen

import (
	"time"

	"hitcounter/cgi/seen"
)

// maxMine bounds Table.mine; past it, it starts again empty.
const maxMine = 1 << 14

// known answers, without the cluster, a visit by a visitor whose last
// counted view this Table wrote itself, when that alone decides, as
// seen.Table's memory of its own views does: within the window it is a
// reload whatever other hosts wrote since (any view they counted within
// it would have been a reload of this one); with no window, a view by a
// visitor known today. The other request of a view, and a script's
// reload of a view its image may have joined on another host, are the
// cluster's to judge.
func (t *Table) known(key string, v *seen.Visit, reload func(uint32) bool, within func(uint32, time.Duration) bool) (seen.Verdict, bool) {
	t.mmu.Lock()
	m, ok := t.mine[key]
	t.mmu.Unlock()
	switch {
	case !ok:
	case v.Joins(m.via) && within(m.last, v.JoinsWithin()):
	case v.Via == seen.ViaScript && m.via&seen.ViaImage == 0 && reload(m.last):
	case reload(m.last):
		return seen.Verdict{Reload: true, Quiet: v.Quiet(m.via)}, true
	case v.Window <= 0 && v.Via == seen.ViaNone:
		return seen.Verdict{}, true
	}
	return seen.Verdict{}, false
}

// remember keeps a view this Table counted, for known.
func (t *Table) remember(key string, m mark) {
	t.mmu.Lock()
	defer t.mmu.Unlock()
	if len(t.mine) >= maxMine {
		clear(t.mine)
	}
	t.mine[key] = m
}

// joined adds via to the view at last this Table counted, if it did.
func (t *Table) joined(key string, last uint32, via seen.Via) {
	t.mmu.Lock()
	defer t.mmu.Unlock()
	if m, ok := t.mine[key]; ok && m.last == last {
		m.via |= via
		t.mine[key] = m
	}
}
