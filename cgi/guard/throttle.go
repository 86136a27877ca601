package guard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"syscall"
	"time"
)

// Throttle limits failed logins per client across processes. Its state is
// one small file of fixed-size records, read and rewritten under a flock
// on every login attempt (never on a hit). The file holds at most
// MaxClients records; clients idle for an hour are dropped, and when it is
// full the longest idle client makes room.
type Throttle struct {
	Path       string
	PerMinute  int // failed logins allowed per client per minute
	PerHour    int // and per hour
	MaxClients int
	Now        func() time.Time
}

// Client is a throttled address: an IPv4 address, or the /64 network of
// an IPv6 address, since one IPv6 host can have a whole /64.
type Client [16]byte

// ClientOf returns the Client of an address such as "192.0.2.1" or
// "2001:db8::1".
func ClientOf(addr string) (Client, error) {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return Client{}, fmt.Errorf("guard: client address %q: %w", addr, err)
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		a = p.Addr()
	}
	return Client(netip.AddrFrom16(a.As16()).As16()), nil
}

func (c Client) String() string {
	a := netip.AddrFrom16(c).Unmap()
	if a.Is6() {
		return a.String() + "/64"
	}
	return a.String()
}

// record is one client's failures: a window of a minute and one of an
// hour, each a start time and a count.
type record struct {
	client              Client
	minStart, hourStart int64 // Unix milliseconds
	minCount, hourCount uint32
}

// The windows, in milliseconds: whole seconds would let a client start a
// new window up to a second early.
const (
	minute = int64(time.Minute / time.Millisecond)
	hour   = int64(time.Hour / time.Millisecond)
)

const (
	magic      = "counter-throttle-2\n"
	recordSize = 16 + 8 + 8 + 4 + 4
)

// Check reports whether client may try a password now, and if not, how
// long until it may.
func (t *Throttle) Check(c Client) (ok bool, retryAfter time.Duration, err error) {
	err = t.update(func(recs []record, now int64) []record {
		retryAfter = t.wait(recs, c, now)
		return nil // no change
	})
	return err == nil && retryAfter == 0, retryAfter, err
}

// wait is how long client must wait before its next try; 0 if it need not.
func (t *Throttle) wait(recs []record, c Client, now int64) (retryAfter time.Duration) {
	for _, r := range recs {
		if r.client != c {
			continue
		}
		if r.minCount >= uint32(t.PerMinute) && now < r.minStart+minute {
			retryAfter = time.Duration(r.minStart+minute-now) * time.Millisecond
		}
		if r.hourCount >= uint32(t.PerHour) && now < r.hourStart+hour {
			retryAfter = max(retryAfter, time.Duration(r.hourStart+hour-now)*time.Millisecond)
		}
	}
	return retryAfter
}

// Attempt checks and counts in one step: if client may try a password
// now, it counts the try as a failure at once and reports ok; a good login
// then calls Forget. Counting before the password is checked means two
// tries at once can never both slip under the limit.
func (t *Throttle) Attempt(c Client) (ok bool, retryAfter time.Duration, err error) {
	err = t.update(func(recs []record, now int64) []record {
		if retryAfter = t.wait(recs, c, now); retryAfter > 0 {
			return nil // no change
		}
		return failed(recs, c, now)
	})
	return err == nil && retryAfter == 0, retryAfter, err
}

// Failed counts a failed login of client.
func (t *Throttle) Failed(c Client) error {
	return t.update(func(recs []record, now int64) []record {
		return failed(recs, c, now)
	})
}

// failed counts a failed login of client in recs.
func failed(recs []record, c Client, now int64) []record {
	i := 0
	for i < len(recs) && recs[i].client != c {
		i++
	}
	if i == len(recs) {
		recs = append(recs, record{client: c, minStart: now, hourStart: now})
	}
	r := &recs[i]
	// A window that has run out starts again.
	if now >= r.minStart+minute {
		r.minStart, r.minCount = now, 0
	}
	if now >= r.hourStart+hour {
		r.hourStart, r.hourCount = now, 0
	}
	r.minCount++
	r.hourCount++
	return recs
}

// Forget drops client's failures, after a good login.
func (t *Throttle) Forget(c Client) error {
	return t.update(func(recs []record, now int64) []record {
		out := recs[:0]
		for _, r := range recs {
			if r.client != c {
				out = append(out, r)
			}
		}
		return out
	})
}

// update runs fn on the records under an exclusive lock, after pruning,
// and writes back what fn returns, unless it returns nil.
func (t *Throttle) update(fn func(recs []record, now int64) []record) error {
	if t.PerMinute < 1 || t.PerHour < 1 || t.MaxClients < 1 {
		return errors.New("guard: throttle limits must be positive")
	}
	f, err := os.OpenFile(t.Path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("guard: throttle: %w", err)
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_EX); err != nil {
		return fmt.Errorf("guard: throttle lock: %w", err)
	}
	now := t.Now().UnixMilli()
	recs, err := t.read(f)
	if err != nil {
		return err
	}
	recs, pruned := t.prune(recs, now)
	changed := fn(recs, now)
	if changed == nil {
		if !pruned {
			return nil
		}
		changed = recs
	}
	if len(changed) > t.MaxClients {
		changed = evictIdlest(changed, len(changed)-t.MaxClients)
	}
	return t.write(f, changed)
}

// prune drops clients whose failures are all over an hour old. A window
// that starts in the future means the clock went back (a Pi has no
// real-time clock, and NTP may set it back): it restarts now with its
// count kept, so a jump back neither frees a client early nor blocks one
// for longer than a window.
// It reports whether it changed anything.
func (t *Throttle) prune(recs []record, now int64) ([]record, bool) {
	out, changed := recs[:0], false
	for _, r := range recs {
		if r.minStart > now || r.hourStart > now {
			r.minStart, r.hourStart, changed = min(r.minStart, now), min(r.hourStart, now), true
		}
		if now < r.hourStart+hour {
			out = append(out, r)
		} else {
			changed = true
		}
	}
	return out, changed
}

// evictIdlest drops the n records whose last window started earliest.
func evictIdlest(recs []record, n int) []record {
	for range n {
		oldest := 0
		for i, r := range recs {
			if r.minStart < recs[oldest].minStart {
				oldest = i
			}
		}
		recs = append(recs[:oldest], recs[oldest+1:]...)
	}
	return recs
}

// read decodes the file; a file that is not a throttle file (damaged, or
// from another version) is treated as empty rather than locking everyone
// out or in for good.
func (t *Throttle) read(f *os.File) ([]record, error) {
	limit := int64(len(magic) + (t.MaxClients+1)*recordSize)
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("guard: throttle read: %w", err)
	}
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, nil
	}
	b = b[len(magic):]
	recs := make([]record, 0, len(b)/recordSize)
	for ; len(b) >= recordSize && len(recs) < t.MaxClients; b = b[recordSize:] {
		var r record
		copy(r.client[:], b[:16])
		r.minStart = int64(binary.BigEndian.Uint64(b[16:]))
		r.hourStart = int64(binary.BigEndian.Uint64(b[24:]))
		r.minCount = binary.BigEndian.Uint32(b[32:])
		r.hourCount = binary.BigEndian.Uint32(b[36:])
		recs = append(recs, r)
	}
	return recs, nil
}

func (t *Throttle) write(f *os.File, recs []record) error {
	b := make([]byte, 0, len(magic)+len(recs)*recordSize)
	b = append(b, magic...)
	for _, r := range recs {
		b = append(b, r.client[:]...)
		b = binary.BigEndian.AppendUint64(b, uint64(r.minStart))
		b = binary.BigEndian.AppendUint64(b, uint64(r.hourStart))
		b = binary.BigEndian.AppendUint32(b, r.minCount)
		b = binary.BigEndian.AppendUint32(b, r.hourCount)
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("guard: throttle write: %w", err)
	}
	if err := f.Truncate(int64(len(b))); err != nil {
		return fmt.Errorf("guard: throttle write: %w", err)
	}
	return nil
}
