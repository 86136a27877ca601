package etcdseen

import (
	"context"
	"fmt"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// maxGroup bounds the adds one transaction carries: each is a nested
// transaction of two operations, and etcd counts them against
// --max-txn-ops (128 by default) with the outer ones.
const maxGroup = 32

// adding is one add waiting for its group's transaction: op, a nested
// transaction on key, and then its answer.
type adding struct {
	key  string
	op   clientv3.Op
	resp *pb.TxnResponse // the nested transaction's answer
	dup  bool            // another add of key went in this group: not sent
	err  error
	done chan struct{} // closed once answered
	lead chan struct{} // closed when it is a's turn to send
}

// group sends the adds of concurrent Sees (a FastCGI service's hits
// that arrive together) in one etcd transaction, one nested transaction
// each: what one commit of the cluster costs, the whole group shares.
// The first add sends the adds waiting with it; those that come
// meanwhile wait, and the first of them sends them next, so that no
// See waits for more than the group before its own.
type group struct {
	mu      sync.Mutex
	pending []*adding
	sending bool
}

// add sends a's op with the adds that come with it, and waits for its
// answer.
func (g *group) add(ctx context.Context, cli *clientv3.Client, a *adding) {
	a.done, a.lead = make(chan struct{}), make(chan struct{})
	g.mu.Lock()
	g.pending = append(g.pending, a)
	if g.sending {
		g.mu.Unlock()
		// The sender's own wait for the cluster bounds this one.
		select {
		case <-a.done:
			return
		case <-a.lead:
			// The first waiting: a sends the next group, itself first.
		}
		g.mu.Lock()
	}
	g.sending = true
	n := min(len(g.pending), maxGroup)
	batch := g.pending[:n:n]
	g.pending = g.pending[n:]
	g.mu.Unlock()
	send(ctx, cli, batch)
	g.mu.Lock()
	if len(g.pending) > 0 {
		close(g.pending[0].lead)
	} else {
		g.sending = false
	}
	g.mu.Unlock()
}

// send sends batch as one transaction, and answers each of it. Two adds
// of one key are not one transaction's (etcd refuses a key put twice):
// the later is answered dup, and reads what the first wrote.
func send(ctx context.Context, cli *clientv3.Client, batch []*adding) {
	var ops []clientv3.Op
	var sent []*adding
	keys := make(map[string]bool, len(batch))
	for _, a := range batch {
		if keys[a.key] {
			a.dup = true
			continue
		}
		keys[a.key] = true
		ops = append(ops, a.op)
		sent = append(sent, a)
	}
	resp, err := cli.Txn(ctx).Then(ops...).Commit()
	for i, a := range sent {
		switch {
		case err != nil:
			a.err = fmt.Errorf("etcdseen: add: %w", err)
		case i < len(resp.Responses) && resp.Responses[i].GetResponseTxn() != nil:
			a.resp = resp.Responses[i].GetResponseTxn()
		default:
			a.err = fmt.Errorf("etcdseen: add: %d answers to %d", len(resp.Responses), len(sent))
		}
	}
	for _, a := range batch {
		close(a.done)
	}
}
