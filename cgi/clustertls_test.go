package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hitcounter/cgi/testenv"
	"hitcounter/store/kv/etcdkv/etcdtest"
)

// TestClusterCertificates makes a cluster's certificates with
// deploy/cluster-certs.sh, as deploy/doc/cluster.md tells an owner to,
// starts a real etcd member with them the way the manual's
// /etc/default/etcd does (TLS for clients and peers, clients' certificates
// checked), and runs the cluster tool on it with the manual's options
// file: with the counter's certificate it creates and checks a counter;
// with the CA alone it is refused, with a message naming the endpoint
// and the refused certificate, and no secret; on a member that is not
// there, the message says the connection was refused.
func TestClusterCertificates(t *testing.T) {
	etcdtest.Need(t)
	if _, err := exec.LookPath("openssl"); err != nil {
		testenv.Skip(t, "needs openssl")
	}
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	if out, err := exec.Command("../deploy/cluster-certs.sh", certs, "m1=127.0.0.1").CombinedOutput(); err != nil {
		t.Fatalf("cluster-certs.sh: %v\n%s", err, out)
	}
	for _, f := range []string{"ca-key.pem", "m1-key.pem", "counter-key.pem"} {
		if fi, err := os.Stat(filepath.Join(certs, f)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want a key only its owner reads", f, err, fi.Mode().Perm())
		}
	}
	tool := filepath.Join(dir, "counter-cluster")
	if out, err := exec.Command("go", "build", "-tags", "etcd", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("build -tags etcd: %v\n%s", err, out)
	}
	client := startTLSMember(t, dir, certs)

	options := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := "etcd://" + client + "/site"
	full := options("etcd.env", "ETCDCTL_CACERT="+filepath.Join(certs, "ca.pem"),
		"ETCDCTL_CERT="+filepath.Join(certs, "counter.pem"), "ETCDCTL_KEY="+filepath.Join(certs, "counter-key.pem"))
	env := func(opts string) []string {
		return []string{"PATH=" + os.Getenv("PATH"), "COUNTER_RUN_DIR=" + filepath.Join(dir, "run"),
			"COUNTER_DB=" + db, "COUNTER_ETCD_OPTIONS=" + opts, "COUNTER_WAIT=1s"}
	}
	if stdout, stderr, code := runPlain(t, tool, env(full), "", "create", "page", "7"); code != 0 {
		t.Fatalf("create with the counter's certificate: exit %d: %s%s", code, stdout, stderr)
	}
	if stdout, stderr, code := runPlain(t, tool, env(full), "", "check"); code != 0 || !strings.Contains(stdout, "1 counter(s), 7 view(s)") {
		t.Errorf("check with the counter's certificate: exit %d: %s%s", code, stdout, stderr)
	}
	caOnly := options("ca-only.env", "ETCDCTL_CACERT="+filepath.Join(certs, "ca.pem"))
	stdout, stderr, code := runPlain(t, tool, env(caOnly), "", "check")
	if code == 0 || !strings.Contains(stdout+stderr, client) {
		t.Errorf("check without a client certificate: exit %d: %s%s; want a refusal naming %s", code, stdout, stderr, client)
	}
	if !strings.Contains(stderr, "certificate") {
		t.Errorf("check without a client certificate: %s; want the member's refusal of it", stderr)
	}
	if strings.Contains(stdout+stderr, "PRIVATE KEY") {
		t.Errorf("a key reached the output: %s%s", stdout, stderr)
	}
	// A member that is not there: the message says so, not only that
	// no answer came.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close()
	e := append(env(full), "COUNTER_DB=etcd://"+gone+"/site")
	if stdout, stderr, code := runPlain(t, tool, e, "", "check"); code == 0 || !strings.Contains(stderr, gone+": connect: connection refused") {
		t.Errorf("check on a stopped member: exit %d: %s%s; want %s refusing the connection", code, stdout, stderr, gone)
	}
}

// startTLSMember runs one etcd member with TLS on loopback ports picked
// free, with the flags deploy/doc/cluster.md sets in /etc/default/etcd,
// and returns its client address, host:port.
func startTLSMember(t *testing.T, dir, certs string) string {
	t.Helper()
	port := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	}
	client, peer := "127.0.0.1:"+port(), "127.0.0.1:"+port()
	pem := func(f string) string { return filepath.Join(certs, f) }
	log, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(etcdtest.Binary())
	// The manual's settings, as the package's unit reads them.
	cmd.Env = []string{
		"PATH=/usr/bin:/bin",
		"ETCD_NAME=m1",
		"ETCD_DATA_DIR=" + filepath.Join(dir, "etcd"),
		"ETCD_LISTEN_CLIENT_URLS=https://" + client,
		"ETCD_ADVERTISE_CLIENT_URLS=https://" + client,
		"ETCD_LISTEN_PEER_URLS=https://" + peer,
		"ETCD_INITIAL_ADVERTISE_PEER_URLS=https://" + peer,
		"ETCD_INITIAL_CLUSTER=m1=https://" + peer,
		"ETCD_INITIAL_CLUSTER_STATE=new",
		"ETCD_CERT_FILE=" + pem("m1.pem"), "ETCD_KEY_FILE=" + pem("m1-key.pem"),
		"ETCD_TRUSTED_CA_FILE=" + pem("ca.pem"), "ETCD_CLIENT_CERT_AUTH=true",
		"ETCD_PEER_CERT_FILE=" + pem("m1.pem"), "ETCD_PEER_KEY_FILE=" + pem("m1-key.pem"),
		"ETCD_PEER_TRUSTED_CA_FILE=" + pem("ca.pem"), "ETCD_PEER_CLIENT_CERT_AUTH=true",
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", client); err == nil {
			c.Close()
			return client
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(log.Name())
			t.Fatalf("etcd with TLS did not listen on %s:\n%s", client, out)
		}
	}
}
