package etcdkv

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ConfigFromFile reads a cluster's TLS and user options from the file at
// path: lines NAME=VALUE, with the names of etcdctl's environment
// (ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY, ETCDCTL_USER,
// ETCDCTL_PASSWORD, ETCDCTL_INSECURE_SKIP_TLS_VERIFY), so that the file
// that lets an owner's etcdctl in lets the counter in. They never go on
// a command line, where any user could read them. An empty path gives
// plain connections with no user.
func ConfigFromFile(path string) (clientv3.Config, error) {
	var cfg clientv3.Config
	if path == "" {
		return cfg, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return cfg, fmt.Errorf("etcdkv: options: %w", err)
	}
	defer f.Close()
	vals := map[string]string{}
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(strings.TrimPrefix(k, "export "))
		switch k {
		case "ETCDCTL_CACERT", "ETCDCTL_CERT", "ETCDCTL_KEY", "ETCDCTL_USER", "ETCDCTL_PASSWORD", "ETCDCTL_INSECURE_SKIP_TLS_VERIFY":
		default:
			ok = false
		}
		if !ok {
			// The line may hold a secret: say where, not what.
			return cfg, fmt.Errorf("etcdkv: options %s line %d: want one of etcdctl's ETCDCTL_CACERT, _CERT, _KEY, _USER, _PASSWORD, _INSECURE_SKIP_TLS_VERIFY as NAME=VALUE", path, n)
		}
		vals[k] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	if err := s.Err(); err != nil {
		return cfg, fmt.Errorf("etcdkv: options %s: %w", path, err)
	}
	user := vals["ETCDCTL_USER"]
	if name, pw, ok := strings.Cut(user, ":"); ok { // etcdctl's --user=name:password
		user, vals["ETCDCTL_PASSWORD"] = name, pw
	}
	cfg.Username, cfg.Password = user, vals["ETCDCTL_PASSWORD"]
	ca, cert, key := vals["ETCDCTL_CACERT"], vals["ETCDCTL_CERT"], vals["ETCDCTL_KEY"]
	if ca == "" && cert == "" && key == "" && vals["ETCDCTL_INSECURE_SKIP_TLS_VERIFY"] == "" {
		return cfg, nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: vals["ETCDCTL_INSECURE_SKIP_TLS_VERIFY"] == "true"}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return cfg, fmt.Errorf("etcdkv: options %s: ETCDCTL_CACERT: %w", path, err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return cfg, fmt.Errorf("etcdkv: options %s: ETCDCTL_CACERT %s: no certificate", path, ca)
		}
	}
	if cert != "" || key != "" {
		c, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return cfg, fmt.Errorf("etcdkv: options %s: ETCDCTL_CERT and ETCDCTL_KEY: %w", path, err)
		}
		t.Certificates = []tls.Certificate{c}
	}
	cfg.TLS = t
	return cfg, nil
}
