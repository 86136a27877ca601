package etcdkv

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"hitcounter/store/kv"
)

// Scheme starts a store's address: etcd://host:2379,host:2379/PREFIX.
const Scheme = "etcd://"

// ParseAddress splits a store's address into the cluster's endpoints and
// the store's key prefix (PREFIX/). The address holds no secret: TLS and
// user options come from elsewhere (Opener's base config).
func ParseAddress(addr string) (endpoints []string, prefix string, err error) {
	rest, ok := strings.CutPrefix(addr, Scheme)
	if !ok {
		return nil, "", fmt.Errorf("etcdkv: %q: want %shost:port,host:port/PREFIX", addr, Scheme)
	}
	hosts, name, _ := strings.Cut(rest, "/")
	name = strings.TrimSuffix(name, "/")
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") != "" {
		return nil, "", fmt.Errorf("etcdkv: %q: the prefix after the hosts must be letters, digits, '.', '_', '-' or '/'", addr)
	}
	for _, h := range strings.Split(hosts, ",") {
		if _, _, err := net.SplitHostPort(h); err != nil {
			return nil, "", fmt.Errorf("etcdkv: %q: host %q: %w", addr, h, err)
		}
		endpoints = append(endpoints, h)
	}
	return endpoints, name + "/", nil
}

// Opener opens stores by address, one client per cluster, kept open for
// the opens that follow: a process that opens the store for each
// request pays for the connection once.
type Opener struct {
	base    clientv3.Config // TLS, user and timeouts; Endpoints from each address
	mu      sync.Mutex
	clients map[string]*clientv3.Client
}

// NewOpener opens stores with base's TLS and user settings.
func NewOpener(base clientv3.Config) *Opener {
	if base.Logger == nil {
		// The client's own log would be many lines an event; errors
		// reach the owner through the store's, one line each.
		base.Logger = zap.NewNop()
	}
	return &Opener{base: base, clients: map[string]*clientv3.Client{}}
}

// Open opens the store at addr; its Close leaves the client open.
func (o *Opener) Open(addr string, readOnly bool, wait time.Duration) (kv.DB, error) {
	endpoints, prefix, err := ParseAddress(addr)
	if err != nil {
		return nil, err
	}
	cli, err := o.client(endpoints, wait)
	if err != nil {
		return nil, err
	}
	return New(cli, Options{Prefix: prefix, Timeout: wait, ReadOnly: readOnly})
}

func (o *Opener) client(endpoints []string, wait time.Duration) (*clientv3.Client, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	key := strings.Join(endpoints, ",")
	if c, ok := o.clients[key]; ok {
		return c, nil
	}
	cfg := o.base
	cfg.Endpoints = endpoints
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = wait
	}
	c, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdkv: connect to %s: %w", key, err)
	}
	o.clients[key] = c
	return c, nil
}

// Close disconnects every client.
func (o *Opener) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var errs []error
	for k, c := range o.clients {
		errs = append(errs, c.Close())
		delete(o.clients, k)
	}
	return errors.Join(errs...)
}
