package etcdseen

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/seen"
	"hitcounter/counter"
)

// salt returns the salt of day: the one in the cluster, or, with make, a
// new one if there is none. The host that makes it deletes what is left
// of the days before yesterday. A salt, or its absence, is kept for the
// day.
func (t *Table) salt(ctx context.Context, cli *clientv3.Client, prefix string, day, now time.Time, make bool) ([]byte, error) {
	t.smu.Lock()
	s, ok := t.salts[day]
	t.smu.Unlock()
	if ok && (s != nil || !make) {
		return s, nil
	}
	base := root(prefix)
	key := base + day.Format(dayLayout) + "/salt"
	// A read first: it costs the cluster no write, which a process that
	// serves one hit (CGI) would otherwise make for every hit.
	resp, err := cli.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("etcdseen: the day's salt: %w", err)
	}
	if s = saltOf(resp.Kvs); s == nil && make {
		end := day.AddDate(0, 0, 1).Add(counter.MaxReload)
		lease, err := t.lease(ctx, cli, base, end, now)
		if err != nil {
			return nil, err
		}
		fresh := seen.NewSalt()
		resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, string(fresh[:]), clientv3.WithLease(lease)),
				clientv3.OpDelete(base, clientv3.WithRange(base+day.AddDate(0, 0, -1).Format(dayLayout)))).
			Else(clientv3.OpGet(key)).Commit()
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			t.forget(end)
		}
		if err != nil {
			return nil, fmt.Errorf("etcdseen: the day's salt: %w", err)
		}
		if s = fresh[:]; !resp.Succeeded {
			s = saltOf(resp.Responses[0].GetResponseRange().Kvs)
		}
	}
	if s == nil && make {
		return nil, errors.New("etcdseen: the day's salt is not 32 bytes")
	}
	t.smu.Lock()
	defer t.smu.Unlock()
	for d := range t.salts {
		if d.Before(day.AddDate(0, 0, -1)) || d.After(day.AddDate(0, 0, 1)) {
			delete(t.salts, d)
		}
	}
	t.salts[day] = s
	return s, nil
}

func saltOf(kvs []*mvccpb.KeyValue) []byte {
	if len(kvs) == 0 || len(kvs[0].Value) != 32 {
		return nil
	}
	return kvs[0].Value
}

// lease returns the lease that ends at end: the one this Table knows,
// or the one the cluster names under B "lease/" END (the Unix second),
// or one it grants and names there, so that every host and every
// process (a CGI process serves one hit) shares one lease an end.
func (t *Table) lease(ctx context.Context, cli *clientv3.Client, base string, end, now time.Time) (clientv3.LeaseID, error) {
	t.lmu.Lock()
	defer t.lmu.Unlock()
	if id, ok := t.leases[end.Unix()]; ok {
		return id, nil
	}
	key := base + "lease/" + strconv.FormatInt(end.Unix(), 10)
	resp, err := cli.Get(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("etcdseen: lease: %w", err)
	}
	id, ok := leaseOf(resp.Kvs)
	if !ok {
		ttl := max(int64(math.Ceil(end.Sub(now).Seconds())), 1)
		g, err := cli.Grant(ctx, ttl)
		if err != nil {
			return 0, fmt.Errorf("etcdseen: lease: %w", err)
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(g.ID))
		resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, string(b[:]), clientv3.WithLease(g.ID))).
			Else(clientv3.OpGet(key)).Commit()
		if err != nil {
			return 0, fmt.Errorf("etcdseen: lease: %w", err)
		}
		if id = g.ID; !resp.Succeeded {
			// Another granted one first: that one is the end's.
			cli.Revoke(ctx, g.ID)
			if id, ok = leaseOf(resp.Responses[0].GetResponseRange().Kvs); !ok {
				return 0, errors.New("etcdseen: lease: a lease's key holds no lease")
			}
		}
	}
	for e := range t.leases {
		if e <= now.Unix() {
			delete(t.leases, e)
		}
	}
	t.leases[end.Unix()] = id
	return id, nil
}

func leaseOf(kvs []*mvccpb.KeyValue) (clientv3.LeaseID, bool) {
	if len(kvs) == 0 || len(kvs[0].Value) != 8 {
		return 0, false
	}
	return clientv3.LeaseID(binary.BigEndian.Uint64(kvs[0].Value)), true
}

// forget forgets the lease that ends at end, which the cluster no longer
// knows: the next key that ends then gets a new one.
func (t *Table) forget(end time.Time) {
	t.lmu.Lock()
	delete(t.leases, end.Unix())
	t.lmu.Unlock()
}
