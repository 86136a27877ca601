package etcdkv

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"hitcounter/store/kv"
)

// Scheme starts a store's address: etcd://host:2379,host:2379/PREFIX.
const Scheme = "etcd://"

// Address is a store's address: etcd://host:2379,host:2379/PREFIX,
// optionally followed by ?max-txn-ops=N&max-request-bytes=N
// &quota-backend-bytes=N, the
// cluster's own settings of those names, when they are not etcd's
// defaults. It holds no secret: TLS and user options come from
// elsewhere (Opener's base config).
type Address struct {
	Endpoints       []string
	Prefix          string // PREFIX/
	MaxTxnOps       int    // 0 for etcd's default
	MaxRequestBytes int    // 0 for etcd's default
	QuotaBytes      int64  // the members' --quota-backend-bytes; 0 for etcd's default
}

// ParseAddress reads a store's address.
func ParseAddress(addr string) (Address, error) {
	var a Address
	rest, ok := strings.CutPrefix(addr, Scheme)
	if !ok {
		return a, fmt.Errorf("etcdkv: %q: want %shost:port,host:port/PREFIX", addr, Scheme)
	}
	rest, query, _ := strings.Cut(rest, "?")
	hosts, name, _ := strings.Cut(rest, "/")
	name = strings.TrimSuffix(name, "/")
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") != "" {
		return a, fmt.Errorf("etcdkv: %q: the prefix after the hosts must be letters, digits, '.', '_', '-' or '/'", addr)
	}
	a.Prefix = name + "/"
	for _, h := range strings.Split(hosts, ",") {
		if _, _, err := net.SplitHostPort(h); err != nil {
			return a, fmt.Errorf("etcdkv: %q: host %q: %w", addr, h, err)
		}
		a.Endpoints = append(a.Endpoints, h)
	}
	if query == "" {
		return a, nil
	}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return a, fmt.Errorf("etcdkv: %q: %s=%q: want a number", addr, k, v)
		}
		switch k {
		case "max-txn-ops":
			a.MaxTxnOps = n
		case "max-request-bytes":
			// Less what a request adds around the keys and values.
			a.MaxRequestBytes = n - n/16
		case "quota-backend-bytes":
			a.QuotaBytes = int64(n)
		default:
			return a, fmt.Errorf("etcdkv: %q: unknown option %q (max-txn-ops, max-request-bytes, quota-backend-bytes)", addr, k)
		}
	}
	return a, nil
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
	a, err := ParseAddress(addr)
	if err != nil {
		return nil, err
	}
	cli, err := o.client(a, wait)
	if err != nil {
		return nil, err
	}
	return New(cli, Options{Prefix: a.Prefix, Timeout: wait, ReadOnly: readOnly,
		MaxTxnOps: a.MaxTxnOps, MaxRequestBytes: a.MaxRequestBytes, QuotaBytes: a.QuotaBytes, TLS: o.base.TLS})
}

// Client returns the client of the cluster at addr, shared with the
// stores Open opened there, and addr read: for what a program keeps in
// the cluster beside the store (BesidePrefix).
func (o *Opener) Client(addr string, wait time.Duration) (*clientv3.Client, Address, error) {
	a, err := ParseAddress(addr)
	if err != nil {
		return nil, a, err
	}
	cli, err := o.client(a, wait)
	return cli, a, err
}

func (o *Opener) client(a Address, wait time.Duration) (*clientv3.Client, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	key := strings.Join(a.Endpoints, ",")
	if c, ok := o.clients[key]; ok {
		return c, nil
	}
	cfg := o.base
	cfg.Endpoints = a.Endpoints
	// gRPC's own bound on a request (2 MiB) must not be what refuses a
	// commit the cluster takes.
	cfg.MaxCallSendMsgSize = max(cfg.MaxCallSendMsgSize, a.MaxRequestBytes+1<<20)
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
