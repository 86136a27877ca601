package etcdkv

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Every commit adds a revision to the cluster, and etcd keeps every
// revision's keys until it is told to compact them: a counter's hits
// would fill the members' quota (2 GiB by default, then NOSPACE and no
// more writes). The store needs none of its history: a transaction reads
// at the revision it began at, for a few seconds at most. So a long-lived
// process compacts, every so often, to the revision it saw one interval
// before: what is kept is an interval or two of commits, whatever the
// cluster's age.

// DefaultCompactEvery is how often KeepCompacted compacts: the history a
// cluster keeps is one to two of it.
const DefaultCompactEvery = 5 * time.Minute

// KeepCompacted compacts every cluster o has connected to, every every,
// to the revision it was at one every before, until ctx ends. Each host's
// service may run it: a compaction to a revision another has compacted
// past is refused as compacted already, and nothing else happens. logf,
// if not nil, gets one line for a compaction that failed otherwise.
func (o *Opener) KeepCompacted(ctx context.Context, every time.Duration, logf func(format string, args ...any)) {
	if every <= 0 {
		every = DefaultCompactEvery
	}
	seen := map[string]int64{} // cluster: its revision at the last tick
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		o.mu.Lock()
		clients := make(map[string]*clientv3.Client, len(o.clients))
		for k, c := range o.clients {
			clients[k] = c
		}
		o.mu.Unlock()
		for where, cli := range clients {
			rev, err := compactTo(ctx, cli, seen[where], every)
			if err != nil && logf != nil && ctx.Err() == nil {
				logf("etcd: cluster %s: compact to revision %d: %v", where, seen[where], err)
			}
			if rev > 0 {
				seen[where] = rev
			}
		}
	}
}

// compactTo compacts cli's cluster to rev (none if 0), and returns the
// cluster's revision now.
func compactTo(ctx context.Context, cli *clientv3.Client, rev int64, wait time.Duration) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, min(wait, 30*time.Second))
	defer cancel()
	// A member's status says its revision, and needs no right to read a
	// key: the counter's etcd user may read its own prefix alone.
	var now int64
	var err error
	for _, ep := range cli.Endpoints() {
		var s *clientv3.StatusResponse
		if s, err = cli.Status(ctx, ep); err == nil {
			now = s.Header.Revision
			break
		}
	}
	if err != nil {
		return 0, err
	}
	if rev <= 0 {
		return now, nil
	}
	_, err = cli.Compact(ctx, rev)
	if errors.Is(err, rpctypes.ErrCompacted) {
		err = nil // another host compacted as far or further
	}
	return now, err
}
