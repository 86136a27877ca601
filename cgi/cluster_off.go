//go:build !etcd

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"hitcounter/cgi/internal/sibling"
	"hitcounter/cgi/seen"
	"hitcounter/store"
	"hitcounter/store/kv"
)

// clusterTool is the full tool built with the etcd client (go build
// -tags etcd), beside this one: /usr/lib/counter/counter-cluster as
// installed. The client doubles the tool's size and the start-up of each
// of its processes, every page's under CGI among them, so this build
// leaves it out and hands a cluster's store to that one.
const clusterTool = "counter-cluster"

// errNoCluster reports a cluster's store given to a full tool that has
// no cluster tool beside it (go run ./cgi, a copied binary).
var errNoCluster = errors.New("this build opens no etcd cluster: install the package, or build the full tool with -tags etcd (deploy/doc/storage.md)")

// toCluster runs the cluster tool in place of this process, with the
// same arguments, environment and stdin, when the store it is asked to
// open, db or one an argument in named gives (copy FROM TO, -db=ADDR),
// is in a cluster; it does so before anything is read or written, so that a CGI
// request or a FastCGI socket reaches the cluster tool whole. It returns
// nil when no cluster is named, and an error when the cluster tool
// cannot run.
func toCluster(db string, named, args, environ []string) error {
	if !namesCluster(db, named) {
		return nil
	}
	err := sibling.Exec(sibling.Path(clusterTool), args, environ)
	return fmt.Errorf("%w: %w", errNoCluster, err)
}

// namesCluster says whether db or an argument is a cluster's address.
func namesCluster(db string, args []string) bool {
	if store.IsRemote(db) {
		return true
	}
	for _, a := range args {
		a = strings.TrimLeft(a, "-")
		a = strings.TrimPrefix(a, "db=")
		if strings.HasPrefix(a, "etcd://") {
			return true
		}
	}
	return false
}

// cluster refuses stores in a cluster: see errNoCluster.
func cluster(func(string) string) (open store.Remote, visitors func(string, time.Duration) seen.Visitors, disconnect func(), keep func(context.Context, func(string, ...any))) {
	return func(string, bool, time.Duration) (kv.DB, error) { return nil, errNoCluster }, nil, func() {},
		func(context.Context, func(string, ...any)) {}
}
