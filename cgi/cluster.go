//go:build etcd

package main

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"hitcounter/cgi/seen"
	"hitcounter/cgi/seen/etcdseen"
	"hitcounter/store"
	"hitcounter/store/kv"
	"hitcounter/store/kv/etcdkv"
)

// optionsVar names the file of an etcd cluster's TLS and user options
// (etcdctl's ETCDCTL_* names): never the command line, which any user
// can read.
const optionsVar = "COUNTER_ETCD_OPTIONS"

// compactVar names how often the FastCGI service compacts the cluster's
// history (a Go duration; "off" for never, when the owner's members
// compact themselves with --auto-compaction-retention).
const compactVar = "COUNTER_ETCD_COMPACT"

// toCluster does nothing: this build opens clusters itself (see
// cluster_off.go).
func toCluster(string, []string, []string, []string) error { return nil }

// cluster is how the full tool opens a store in an etcd cluster
// (COUNTER_DB=etcd://host:2379/PREFIX). It reads the options file and
// connects at the first open only, so that a command on a file pays
// nothing for it; one client serves every open that follows, and the
// visitor table that the cluster's hosts share (visitors). disconnect
// disconnects; keep, which a long-lived process runs until its end,
// compacts the history of the clusters it connected to.
func cluster(getenv func(string) string) (open store.Remote, visitors func(db string, wait time.Duration) seen.Visitors, disconnect func(), keep func(context.Context, func(string, ...any))) {
	var (
		once   sync.Once
		opener *etcdkv.Opener
		err    error
	)
	connect := func() error {
		once.Do(func() {
			cfg, e := etcdkv.ConfigFromFile(getenv(optionsVar))
			if err = e; err == nil {
				opener = etcdkv.NewOpener(cfg)
			}
		})
		return err
	}
	open = func(addr string, readOnly bool, wait time.Duration) (kv.DB, error) {
		if err := connect(); err != nil {
			return nil, err
		}
		return opener.Open(addr, readOnly, wait)
	}
	visitors = func(db string, wait time.Duration) seen.Visitors {
		return etcdseen.New(func() (*clientv3.Client, string, error) {
			if err := connect(); err != nil {
				return nil, "", err
			}
			cli, a, err := opener.Client(db, wait)
			return cli, a.Prefix, err
		}, wait)
	}
	keep = func(ctx context.Context, logf func(string, ...any)) {
		every := etcdkv.DefaultCompactEvery
		switch v := getenv(compactVar); v {
		case "":
		case "off":
			return
		default:
			d, perr := time.ParseDuration(v)
			if perr != nil || d < time.Second {
				logf("config: %s=%q: want a duration of a second or more, or off; compacting every %v", compactVar, v, every)
			} else {
				every = d
			}
		}
		if connect() == nil {
			opener.KeepCompacted(ctx, every, logf)
		}
	}
	return open, visitors, func() {
		if opener != nil {
			opener.Close()
		}
	}, keep
}
