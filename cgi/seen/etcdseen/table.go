package etcdseen

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/seen"
	"hitcounter/store/kv/etcdkv"
)

// The layout, described in doc.go.
const (
	dayLayout   = "2006-01-02"
	shareSize   = 8
	buckets     = 64
	bucketSlots = 64
	markSize    = 5
	// leaseStep rounds up the ends of the marks whose window runs past
	// midnight, so that they share a few leases.
	leaseStep = 15 * time.Minute
	// tries bounds the reads and conditional writes of one See when
	// other hosts keep changing the visitor's mark in between.
	tries = 8
	// evictRead is how many of a full bucket's oldest marks an add reads,
	// to delete as many as the bucket holds too many.
	evictRead = 4
)

// Connect returns the cluster's client and the store's prefix there.
type Connect func() (cli *clientv3.Client, prefix string, err error)

// Table is the visitor table of a store in a cluster, shared by every
// host of it. It is safe for concurrent use.
type Table struct {
	connect Connect
	timeout time.Duration // bounds one See or Unsee
	slots   int           // a bucket's marks at most: bucketSlots, fewer in tests

	smu   sync.Mutex
	salts map[time.Time][]byte // by day: today's and yesterday's; nil for none
	lmu   sync.Mutex
	adds  group // new visitors' adds, sent together
	mmu   sync.Mutex
	mine  map[string]mark // the views this Table counted, by mark key: see known
	// leases are the leases this Table granted, by the Unix second
	// they end: one for every key that ends then.
	leases map[int64]clientv3.LeaseID
}

// New is the shared table of the store that connect reaches, each See
// and Unsee waiting at most timeout for the cluster. It does no I/O.
func New(connect Connect, timeout time.Duration) *Table {
	return &Table{connect: connect, timeout: timeout, slots: bucketSlots, salts: map[time.Time][]byte{}, mine: map[string]mark{}, leases: map[int64]clientv3.LeaseID{}}
}

// Open is the shared table of the store at addr (etcd://...) that
// opener opens.
func Open(opener *etcdkv.Opener, addr string, timeout time.Duration) *Table {
	return New(func() (*clientv3.Client, string, error) {
		cli, a, err := opener.Client(addr, timeout)
		return cli, a.Prefix, err
	}, timeout)
}

// Close does nothing: the leases must outlive the process, and the
// client is the opener's.
func (t *Table) Close() error { return nil }

// mark is a visitor's mark as read; rev 0 for none.
type mark struct {
	last uint32
	via  seen.Via
	rev  int64
}

func (m mark) found() bool { return m.rev != 0 }

func encode(sec uint32, via seen.Via) string {
	var b [markSize]byte
	binary.BigEndian.PutUint32(b[:], sec)
	b[4] = byte(via)
	return string(b[:])
}

func decode(kvs []*mvccpb.KeyValue) mark {
	if len(kvs) == 0 || len(kvs[0].Value) != markSize {
		return mark{}
	}
	return mark{last: binary.BigEndian.Uint32(kvs[0].Value), via: seen.Via(kvs[0].Value[4]), rev: kvs[0].ModRevision}
}

// where is what a visit's keys are, under one day's salt.
type where struct {
	root   string // B
	base   string // B DAY "/"
	share  string // B DAY "/m/" share
	bucket string // share + bucket
	key    string // bucket + visitor
	crowd  string // B DAY "/c/" share
}

// place is where visitor v's mark of day is, under the day's salt.
func place(prefix string, day time.Time, salt []byte, v *seen.Visit) where {
	mac := hmac.New(sha256.New, salt)
	k, _ := seen.Hash(mac, nil, v)
	sh := shareOf(mac, v.Counter)
	var w where
	w.root = root(prefix)
	w.base = w.root + day.Format(dayLayout) + "/"
	w.share = w.base + "m/" + string(sh[:])
	w.bucket = w.share + string(rune(binary.BigEndian.Uint32(k[:4])%buckets))
	w.key = w.bucket + string(k[:])
	w.crowd = w.base + "c/" + string(sh[:])
	return w
}

// root is B, where the table's keys start under the store's prefix.
func root(prefix string) string { return etcdkv.BesidePrefix(prefix) + "seen/" }

// shareOf is a counter's share: a keyed hash of its name. The byte 0xff
// that starts it is never the start of a visitor's text (the length of a
// counter's name), so no visitor hashes to a share.
func shareOf(mac hash.Hash, name string) (s [shareSize]byte) {
	mac.Reset()
	mac.Write([]byte{0xff})
	mac.Write([]byte(name))
	copy(s[:], mac.Sum(nil))
	return s
}

// midnight is the start of t's UTC day.
func midnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// errBusy is a mark that other hosts kept changing between a read and a
// write of it.
var errBusy = errors.New("etcdseen: the visitor's mark keeps changing")

// sending is a write of See's whose answer may have been lost.
type sending int

const (
	sentNone sending = iota
	sentAdd          // a new visitor's mark
	sentJoin         // the other request of a view
	sentView         // a known visitor's view again
)

// errDup is an add that another of the same visitor's went with.
var errDup = errors.New("etcdseen: the visitor's mark was added with another")

// See judges a visit as seen.Table.See does, the marks shared through
// the cluster.
func (t *Table) See(v seen.Visit) (seen.Verdict, error) {
	ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
	defer cancel()
	cli, prefix, err := t.connect()
	if err != nil {
		return seen.Verdict{}, fmt.Errorf("etcdseen: %w", err)
	}
	now := v.Now.UTC()
	day := midnight(now)
	sec := seen.Seconds(now)
	within := func(last uint32, w time.Duration) bool {
		d := time.Duration(sec) - time.Duration(last)
		return d.Abs()*time.Second < w
	}
	reload := func(last uint32) bool { return within(last, v.Window) }
	salt, err := t.salt(ctx, cli, prefix, day, now, true)
	if err != nil {
		return seen.Verdict{}, err
	}
	w := place(prefix, day, salt, &v)
	if verdict, ok := t.known(w.key, &v, reload, within); ok {
		return verdict, nil
	}
	var yesterday uint32
	if now.Sub(day) < v.Window {
		if yesterday, err = t.lookYesterday(ctx, cli, prefix, day, now, &v); err != nil {
			return seen.Verdict{}, err
		}
	}
	markEnd := day.AddDate(0, 0, 1)
	if e := time.Unix(int64(sec), 0).UTC().Add(v.JoinsWithin()); e.After(markEnd) {
		markEnd = e.Add(leaseStep - 1).Truncate(leaseStep)
	}
	value := encode(sec, v.Via)
	var (
		m     mark
		known bool // m is the mark as last read (or found by an add)
		// sent is a write whose answer was lost (a member or the
		// leader gone), and before the mark it was to replace: the next
		// read tells whether it applied.
		sent   sending
		before mark
	)
	lost := func(try int, s sending, err error) bool {
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			s = sentNone // refused: nothing applied
		}
		if ctx.Err() != nil || try == tries-1 {
			return false
		}
		sent, before, known = s, m, false
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(10<<try) * time.Millisecond):
		}
		return true
	}
	for try := range tries {
		if !known && (try > 0 || yesterday != 0) {
			resp, err := cli.Get(ctx, w.key)
			if err != nil {
				if lost(try, sent, err) {
					continue
				}
				return seen.Verdict{}, fmt.Errorf("etcdseen: read: %w", err)
			}
			m = decode(resp.Kvs)
			known = true
		}
		if known && m.found() {
			switch {
			case sent == sentAdd && m.last == sec && m.via == v.Via:
				t.remember(w.key, mark{last: sec, via: v.Via})
				return seen.Verdict{NewToday: true}.WithUndo(sec, 0, 0), nil
			case sent == sentJoin && m.last == before.last && m.via == before.via|v.Via:
				return seen.Verdict{Joined: true}, nil
			case sent == sentView && m.last == sec && m.via == v.Via:
				t.remember(w.key, mark{last: sec, via: v.Via})
				return seen.Verdict{}.WithUndo(sec, before.last, before.via), nil
			}
		}
		sent = sentNone
		switch {
		case !known || !m.found() && (yesterday == 0 || !reload(yesterday)):
			verdict, added, got, err := t.add(ctx, cli, &w, value, markEnd, day, now)
			switch {
			case errors.Is(err, errDup):
				// Another hit of this visitor went in the same group:
				// read what it wrote.
				known = false
				continue
			case err != nil && lost(try, sentAdd, err):
				continue
			case err != nil:
				return seen.Verdict{}, err
			case added:
				t.remember(w.key, mark{last: sec, via: v.Via})
				return verdict.WithUndo(sec, 0, 0), nil
			}
			m, known = got, true
			continue
		case !m.found():
			return seen.Verdict{Reload: true}, nil
		case v.Joins(m.via) && within(m.last, v.JoinsWithin()):
			ok, err := t.swap(ctx, cli, w.key, m.rev, encode(m.last, m.via|v.Via), clientv3.WithIgnoreLease())
			if err != nil && lost(try, sentJoin, err) {
				continue
			}
			if ok {
				t.joined(w.key, m.last, v.Via)
			}
			if ok || err != nil {
				return seen.Verdict{Joined: ok}, err
			}
		case reload(m.last):
			return seen.Verdict{Reload: true, Quiet: v.Quiet(m.via)}, nil
		default:
			lease, err := t.lease(ctx, cli, w.root, markEnd, now)
			if err != nil {
				if lost(try, sentNone, err) {
					continue
				}
				return seen.Verdict{}, err
			}
			ok, err := t.swap(ctx, cli, w.key, m.rev, value, clientv3.WithLease(lease))
			if errors.Is(err, rpctypes.ErrLeaseNotFound) {
				t.forget(markEnd)
			}
			if err != nil && lost(try, sentView, err) {
				continue
			}
			if ok {
				t.remember(w.key, mark{last: sec, via: v.Via})
			}
			if ok || err != nil {
				return seen.Verdict{}.WithUndo(sec, m.last, m.via), err
			}
		}
		known = false
	}
	return seen.Verdict{}, errBusy
}

// add adds a new visitor's mark at w on condition that there is none, and
// then, in a full bucket, deletes the marks changed longest ago. If there
// was one, got is it.
func (t *Table) add(ctx context.Context, cli *clientv3.Client, w *where, value string, end, day, now time.Time) (_ seen.Verdict, added bool, got mark, _ error) {
	lease, err := t.lease(ctx, cli, w.root, end, now)
	if err != nil {
		return seen.Verdict{}, false, mark{}, err
	}
	a := &adding{key: w.key, op: clientv3.OpTxn(
		[]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(w.key), "=", 0)},
		[]clientv3.Op{clientv3.OpPut(w.key, value, clientv3.WithLease(lease)),
			clientv3.OpGet(w.bucket, clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithLimit(evictRead),
				clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortAscend))},
		[]clientv3.Op{clientv3.OpGet(w.key)})}
	t.adds.add(ctx, cli, a)
	if errors.Is(a.err, rpctypes.ErrLeaseNotFound) {
		t.forget(end)
	}
	switch {
	case a.err != nil:
		return seen.Verdict{}, false, mark{}, a.err
	case a.dup:
		return seen.Verdict{}, false, mark{}, errDup
	}
	resp := a.resp
	if !resp.Succeeded {
		return seen.Verdict{}, false, decode(resp.Responses[0].GetResponseRange().Kvs), nil
	}
	verdict := seen.Verdict{NewToday: true}
	r := resp.Responses[1].GetResponseRange()
	if over := int(r.Count) - t.slots; over > 0 {
		var dels []clientv3.Op
		for _, kv := range r.Kvs[:min(over, len(r.Kvs))] {
			if string(kv.Key) != w.key {
				dels = append(dels, clientv3.OpDelete(string(kv.Key)))
			}
		}
		// The visitor is added: a failed eviction leaves the bucket a
		// mark over, for the next add to trim, and fails nothing.
		dayLease, err := t.lease(ctx, cli, w.root, day.AddDate(0, 0, 1), now)
		if err != nil {
			return verdict, true, mark{}, nil
		}
		// The first host to forget a visitor of the share today says so.
		resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(w.crowd), "=", 0)).
			Then(append(dels, clientv3.OpPut(w.crowd, "", clientv3.WithLease(dayLease)))...).
			Else(dels...).Commit()
		verdict.Crowded = err == nil && resp.Succeeded
	}
	return verdict, true, mark{}, nil
}

// swap writes value at key on condition that its mod revision is rev.
func (t *Table) swap(ctx context.Context, cli *clientv3.Client, key string, rev int64, value string, opt clientv3.OpOption) (bool, error) {
	resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpPut(key, value, opt)).Commit()
	if err != nil {
		return false, fmt.Errorf("etcdseen: write: %w", err)
	}
	return resp.Succeeded, nil
}

// lookYesterday returns the time of v's last counted view the day before
// day, or 0 if it had none.
func (t *Table) lookYesterday(ctx context.Context, cli *clientv3.Client, prefix string, day, now time.Time, v *seen.Visit) (uint32, error) {
	yd := day.AddDate(0, 0, -1)
	salt, err := t.salt(ctx, cli, prefix, yd, now, false)
	if salt == nil || err != nil {
		return 0, err
	}
	w := place(prefix, yd, salt, v)
	resp, err := cli.Get(ctx, w.key)
	if err != nil {
		return 0, fmt.Errorf("etcdseen: read: %w", err)
	}
	return decode(resp.Kvs).last, nil
}

// Unsee takes back what See wrote for v, as seen.Table.Unsee does: on
// condition that the mark is still the one See wrote.
func (t *Table) Unsee(v seen.Visit, verdict seen.Verdict) error {
	marked, prev, prevVia := verdict.Undo()
	if marked == 0 {
		return nil
	}
	day := midnight(v.Now)
	t.smu.Lock()
	salt := t.salts[day]
	t.smu.Unlock()
	if salt == nil {
		return nil
	}
	cli, prefix, err := t.connect()
	if err != nil {
		return fmt.Errorf("etcdseen: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
	defer cancel()
	w := place(prefix, day, salt, &v)
	t.mmu.Lock()
	if m, ok := t.mine[w.key]; ok && m.last == marked {
		delete(t.mine, w.key)
	}
	t.mmu.Unlock()
	undo := clientv3.OpDelete(w.key)
	if prev != 0 {
		undo = clientv3.OpPut(w.key, encode(prev, prevVia), clientv3.WithIgnoreLease())
	}
	_, err = cli.Txn(ctx).If(clientv3.Compare(clientv3.Value(w.key), "=", encode(marked, v.Via))).Then(undo).Commit()
	if err != nil {
		return fmt.Errorf("etcdseen: take back: %w", err)
	}
	return nil
}
