package etcdkv

import (
	"context"
	"sort"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// pageLen is how many entries a cursor asks etcd for at once: a walk
// costs a round trip a page, and a page's values are held in memory.
const pageLen = 64

// cursor walks the entries [lo, hi) of one bucket: those at rev, merged
// with the transaction's writes.
type cursor struct {
	t      *tx
	lo, hi string
	cur    string // the entry last returned; "" past either end
	// pastEnd says the last move ran off the end: Prev then gives the
	// last entry, as bbolt's cursor does.
	pastEnd bool

	// page holds every entry at rev in [pageLo, pageHi), sorted.
	page           []*mvccpb.KeyValue
	pageLo, pageHi string
}

func (c *cursor) First() ([]byte, []byte) { return c.forth(c.after(c.lo)) }
func (c *cursor) Last() ([]byte, []byte)  { return c.back(c.before(c.hi)) }

func (c *cursor) Seek(seek []byte) ([]byte, []byte) {
	return c.forth(c.after(c.lo + string(seek)))
}

func (c *cursor) Next() ([]byte, []byte) {
	if c.cur == "" {
		return nil, nil
	}
	return c.forth(c.after(c.cur + "\x00"))
}

func (c *cursor) Prev() ([]byte, []byte) {
	switch {
	case c.pastEnd:
		return c.Last()
	case c.cur == "":
		return nil, nil
	}
	return c.back(c.before(c.cur))
}

func (c *cursor) forth(k string, e entry) ([]byte, []byte) {
	c.pastEnd = k == ""
	return c.ret(k, e)
}

func (c *cursor) back(k string, e entry) ([]byte, []byte) {
	c.pastEnd = false
	return c.ret(k, e)
}

func (c *cursor) ret(k string, e entry) ([]byte, []byte) {
	c.cur = k
	if k == "" {
		return nil, nil
	}
	if e.bucket {
		return []byte(k[len(c.lo):]), nil
	}
	v := e.val
	if v == nil {
		v = []byte{}
	}
	return []byte(k[len(c.lo):]), v
}

// after is the first entry >= from, or "".
func (c *cursor) after(from string) (string, entry) {
	rk, re := c.remoteAfter(from)
	wk, we := c.writeAfter(from)
	switch {
	case rk == "" && wk == "":
		return "", entry{}
	case rk == "" || (wk != "" && wk < rk):
		return wk, we
	}
	return rk, re
}

// before is the last entry < to, or "".
func (c *cursor) before(to string) (string, entry) {
	rk, re := c.remoteBefore(to)
	wk, we := c.writeBefore(to)
	switch {
	case rk == "" && wk == "":
		return "", entry{}
	case rk == "" || wk > rk:
		return wk, we
	}
	return rk, re
}

// writeAfter is the first key >= from this transaction put in [lo, hi).
func (c *cursor) writeAfter(from string) (string, entry) {
	o := c.t.order
	for i := sort.SearchStrings(o, from); i < len(o) && o[i] < c.hi; i++ {
		if w := c.t.writes[o[i]]; !w.del {
			return o[i], w.entry
		}
	}
	return "", entry{}
}

// writeBefore is the last key < to this transaction put in [lo, hi).
func (c *cursor) writeBefore(to string) (string, entry) {
	o := c.t.order
	for i := sort.SearchStrings(o, to) - 1; i >= 0 && o[i] >= c.lo; i-- {
		if w := c.t.writes[o[i]]; !w.del {
			return o[i], w.entry
		}
	}
	return "", entry{}
}

// remoteAfter is the first key >= from at rev that this transaction left
// alone.
func (c *cursor) remoteAfter(from string) (string, entry) {
	for from < c.hi && c.t.err == nil {
		if !(c.pageLo <= from && from < c.pageHi) {
			c.fetch(from, c.hi, false)
			continue
		}
		i := sort.Search(len(c.page), func(i int) bool { return string(c.page[i].Key) >= from })
		for ; i < len(c.page); i++ {
			if k := string(c.page[i].Key); !c.t.masked(k) {
				return k, decode(c.page[i].Value)
			}
		}
		from = c.pageHi
	}
	return "", entry{}
}

// remoteBefore is the last key < to at rev that this transaction left
// alone.
func (c *cursor) remoteBefore(to string) (string, entry) {
	for to > c.lo && c.t.err == nil {
		if !(c.pageLo < to && to <= c.pageHi) {
			c.fetch(c.lo, to, true)
			continue
		}
		i := sort.Search(len(c.page), func(i int) bool { return string(c.page[i].Key) >= to }) - 1
		for ; i >= 0; i-- {
			if k := string(c.page[i].Key); !c.t.masked(k) {
				return k, decode(c.page[i].Value)
			}
		}
		to = c.pageLo
	}
	return "", entry{}
}

// fetch reads a page of [from, to) at rev: its first entries, or its
// last ones if desc.
func (c *cursor) fetch(from, to string, desc bool) {
	order := clientv3.SortAscend
	if desc {
		order = clientv3.SortDescend
	}
	ctx, cancel := context.WithTimeout(c.t.ctx, c.t.db.timeout)
	defer cancel()
	resp, err := c.t.read(ctx, from, clientv3.WithRange(to),
		clientv3.WithLimit(pageLen), clientv3.WithSort(clientv3.SortByKey, order))
	if err != nil {
		c.t.fail(err)
		c.page, c.pageLo, c.pageHi = nil, "", ""
		return
	}
	c.page, c.pageLo, c.pageHi = resp.Kvs, from, to
	full := len(resp.Kvs) == pageLen && resp.More
	if desc {
		for i, j := 0, len(c.page)-1; i < j; i, j = i+1, j-1 {
			c.page[i], c.page[j] = c.page[j], c.page[i]
		}
		if full {
			c.pageLo = string(c.page[0].Key)
		}
	} else if full {
		c.pageHi = string(c.page[len(c.page)-1].Key) + "\x00"
	}
}
