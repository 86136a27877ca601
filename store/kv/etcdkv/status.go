package etcdkv

import (
	"context"
	"fmt"

	"hitcounter/store/kv"
)

// Quota is the members' --quota-backend-bytes, as the address says it:
// what a store's size is against.
func (d *DB) Quota() int64 { return d.quota }

// Cluster asks each endpoint of the address for its member's status, and
// the cluster for its members and alarms, for the owner's doctor.
func (d *DB) Cluster() (kv.Cluster, error) {
	c := kv.Cluster{Quota: d.quota}
	for _, ep := range d.cli.Endpoints() {
		m := kv.Member{Endpoint: ep}
		ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		s, err := d.cli.Status(ctx, ep)
		cancel()
		if err != nil {
			m.Err = err
		} else {
			m.Version, m.Leader, m.Errors = s.Version, s.Leader == s.Header.MemberId, s.Errors
			m.DBSize, m.DBSizeInUse = s.DbSize, s.DbSizeInUse
		}
		c.Members = append(c.Members, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	ml, err := d.cli.MemberList(ctx)
	if err != nil {
		return c, fmt.Errorf("etcdkv: cluster %s: members: %w", d.where, err)
	}
	c.Listed = len(ml.Members)
	al, err := d.cli.AlarmList(ctx)
	if err != nil {
		return c, fmt.Errorf("etcdkv: cluster %s: alarms: %w", d.where, err)
	}
	for _, a := range al.Alarms {
		c.Alarms = append(c.Alarms, fmt.Sprintf("%s on member %x", a.Alarm, a.MemberID))
	}
	return c, nil
}
