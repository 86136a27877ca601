//go:build !etcd

package main

import (
	"context"
	"errors"
	"time"

	"hitcounter/store"
	"hitcounter/store/kv"
)

// errNoCluster reports a cluster's store given to a full tool built
// without the etcd client. The client doubles the tool's size and the
// start-up of each of its processes, every page's under CGI among them:
// only owners of a cluster pay for it (go build -tags etcd).
var errNoCluster = errors.New("this build opens no etcd cluster: build the full tool with -tags etcd (deploy/doc/storage.md)")

// cluster refuses stores in a cluster: see errNoCluster.
func cluster(func(string) string) (open store.Remote, disconnect func(), keep func(context.Context, func(string, ...any))) {
	return func(string, bool, time.Duration) (kv.DB, error) { return nil, errNoCluster }, func() {},
		func(context.Context, func(string, ...any)) {}
}
