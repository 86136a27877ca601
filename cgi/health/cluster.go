package health

import (
	"fmt"
	"strings"

	"hitcounter/store/kv"
)

// Cluster reports what the members of the cluster at addr said of
// themselves (store.DB.Cluster, err its error): on a cluster there is no
// file to check, but members that do not answer, a file near the quota
// (past it, NOSPACE: no more writes) and the alarms raised.
func (r *Report) Cluster(addr string, c kv.Cluster, err error) {
	answered := 0
	for _, m := range c.Members {
		if m.Err != nil {
			r.problem("etcd member %s does not answer: %v", m.Endpoint, m.Err)
			continue
		}
		answered++
		role := "follower"
		if m.Leader {
			role = "leader"
		}
		r.info("etcd member %s: etcd %s, %s, its file %s (%s in use) of the quota of %s",
			m.Endpoint, m.Version, role, mib(m.DBSize), mib(m.DBSizeInUse), mib(c.Quota))
		for _, e := range m.Errors {
			r.problem("etcd member %s: %s", m.Endpoint, e)
		}
		switch {
		case c.Quota > 0 && m.DBSize*10 >= c.Quota*8:
			r.problem("etcd member %s: its file is %s, near the quota of %s, past which the cluster takes no writes (NOSPACE): defragment it (etcdctl defrag --endpoints=%s), or raise its --quota-backend-bytes and say it in the address (?quota-backend-bytes=N)",
				m.Endpoint, mib(m.DBSize), mib(c.Quota), m.Endpoint)
		case m.DBSize-m.DBSizeInUse > 64<<20 && m.DBSize > 2*m.DBSizeInUse:
			r.info("  %s of its file is free pages: etcdctl defrag --endpoints=%s gives them back (one member at a time: it stops the member a while)",
				mib(m.DBSize-m.DBSizeInUse), m.Endpoint)
		}
	}
	if err != nil {
		r.problem("cluster %s: %v", addr, err)
		return
	}
	if c.Listed > len(c.Members) {
		r.info("the cluster lists %d members, the address names %d: a host whose named members all fail stops counting", c.Listed, len(c.Members))
	}
	if n := max(c.Listed, len(c.Members)); answered < n/2+1 {
		r.problem("%d of the %d members answer: no hit counts without a majority", answered, n)
	}
	for _, a := range c.Alarms {
		fix := ""
		if strings.HasPrefix(a, "NOSPACE") {
			fix = ": the cluster takes no writes; compact (the FastCGI service does), defragment each member, then etcdctl alarm disarm"
		}
		r.problem("etcd alarm %s%s", a, fix)
	}
}

// mib writes n bytes in MiB.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
