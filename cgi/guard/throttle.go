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

	"hitcounter/cgi/rundir"
	"hitcounter/store/flock"
)

// Throttle limits login tries per key across processes: per client
// address, per wider network, per known device, each in a Throttle of its
// own. Its state is one small file of fixed-size records, read and
// rewritten under a flock on every login attempt (never on a hit). The
// file holds at most MaxClients records; keys idle for an hour are
// dropped, and when it is full the longest idle key that is not blocked
// makes room. Blocked keys are never dropped early: when every key is
// blocked, a new key is refused until one's block ends, so that a flood of
// new keys cannot free a blocked one.
type Throttle struct {
	Dir        *rundir.Dir
	Name       string // the file in Dir
	PerMinute  int    // failed logins allowed per client per minute
	PerHour    int    // and per hour
	MaxClients int
	Now        func() time.Time
}

// Client is a throttled key: an IPv4 address, or the /64 network of an
// IPv6 address, since one IPv6 host can have a whole /64 (ClientOf); the
// wider network of one (Client.Network); or a known device's id.
type Client [16]byte

// Widths of the networks that Network groups clients by: an IPv4 /24 (one
// provider's block, a hosting subnet) and an IPv6 /48 (one site's
// allocation, 65,536 /64s).
const (
	NetworkBits4 = 24
	NetworkBits6 = 48
)

// Network returns the network of c, an IPv4 /24 or an IPv6 /48, as a key
// for a Throttle of networks (not to be mixed with clients in one).
func (c Client) Network() Client {
	p := c.NetworkPrefix()
	return Client(netip.AddrFrom16(p.Addr().As16()).As16())
}

// NetworkPrefix returns the network of c as a prefix, "192.0.2.0/24" or
// "2001:db8:1::/48", as a firewall bans it.
func (c Client) NetworkPrefix() netip.Prefix {
	a := netip.AddrFrom16(c).Unmap()
	bits := NetworkBits6
	if a.Is4() {
		bits = NetworkBits4
	}
	p, _ := a.Prefix(bits)
	return p
}

// BanBits6 is the width of the IPv6 prefix that a line for fail2ban
// names: a /56, what a provider gives one household, so that no visitor
// with a /56 of his own can get the rest of his /48 banned. An IPv4 line
// names the /24 (NetworkPrefix), which takes three addresses to reach.
const BanBits6 = 56

// BanPrefix returns the prefix that a ban for c's network should cover:
// its IPv4 /24, or the /56 that holds its IPv6 /64.
func (c Client) BanPrefix() netip.Prefix {
	a := netip.AddrFrom16(c).Unmap()
	if a.Is4() {
		return c.NetworkPrefix()
	}
	p, _ := a.Prefix(BanBits6)
	return p
}

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
func (t *Throttle) wait(recs []record, c Client, now int64) time.Duration {
	for _, r := range recs {
		if r.client == c {
			return t.blockedFor(r, now)
		}
	}
	return 0
}

// blockedFor is how long r stays blocked; 0 if it is not.
func (t *Throttle) blockedFor(r record, now int64) (d time.Duration) {
	if r.minCount >= uint32(t.PerMinute) && now < r.minStart+minute {
		d = time.Duration(r.minStart+minute-now) * time.Millisecond
	}
	if r.hourCount >= uint32(t.PerHour) && now < r.hourStart+hour {
		d = max(d, time.Duration(r.hourStart+hour-now)*time.Millisecond)
	}
	return d
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
		recs, retryAfter = t.failed(recs, c, now)
		return recs
	})
	return err == nil && retryAfter == 0, retryAfter, err
}

// Failed counts a failed login of client. When the table is full of
// blocked keys it cannot, and reports that as ErrFull.
func (t *Throttle) Failed(c Client) error {
	var full time.Duration
	err := t.update(func(recs []record, now int64) []record {
		recs, full = t.failed(recs, c, now)
		return recs
	})
	if err == nil && full > 0 {
		err = ErrFull
	}
	return err
}

// ErrFull reports a throttle whose every key is blocked: a new key waits.
var ErrFull = errors.New("guard: throttle full of blocked keys")

// failed counts a failed login of client in recs. A new client needs room:
// if the table is full, the idlest key that is not blocked goes; if every
// key is blocked, nothing changes and full is how long until one is not.
func (t *Throttle) failed(recs []record, c Client, now int64) (_ []record, full time.Duration) {
	i := 0
	for i < len(recs) && recs[i].client != c {
		i++
	}
	if i == len(recs) {
		if len(recs) >= t.MaxClients {
			var ok bool
			if recs, ok = t.evictIdlest(recs, now); !ok {
				return recs, t.soonestFree(recs, now)
			}
			i = len(recs)
		}
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
	return recs, 0
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

// TakeBack uncounts one try of c, after a good login: a key that counts
// many clients' tries (a network) keeps the others' but not this one.
func (t *Throttle) TakeBack(c Client) error {
	return t.update(func(recs []record, now int64) []record {
		for i := range recs {
			if r := &recs[i]; r.client == c {
				r.minCount -= min(r.minCount, 1)
				r.hourCount -= min(r.hourCount, 1)
			}
		}
		return recs
	})
}

// update runs fn on the records under an exclusive lock, after pruning,
// and writes back what fn returns, unless it returns nil.
func (t *Throttle) update(fn func(recs []record, now int64) []record) error {
	if t.PerMinute < 1 || t.PerHour < 1 || t.MaxClients < 1 {
		return errors.New("guard: throttle limits must be positive")
	}
	f, err := t.Dir.OpenFile(t.Name, true)
	if err != nil {
		return fmt.Errorf("guard: throttle: %w", err)
	}
	defer f.Close()
	if err := flock.Do(f, syscall.LOCK_EX); err != nil {
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

// evictIdlest drops the record whose last window started earliest among
// those not blocked now, and reports whether there was one.
func (t *Throttle) evictIdlest(recs []record, now int64) ([]record, bool) {
	oldest := -1
	for i, r := range recs {
		if t.blockedFor(r, now) == 0 && (oldest < 0 || r.minStart < recs[oldest].minStart) {
			oldest = i
		}
	}
	if oldest < 0 {
		return recs, false
	}
	return append(recs[:oldest], recs[oldest+1:]...), true
}

// soonestFree is how long until the first of recs stops being blocked.
func (t *Throttle) soonestFree(recs []record, now int64) time.Duration {
	soonest := time.Duration(0)
	for _, r := range recs {
		if d := t.blockedFor(r, now); d > 0 && (soonest == 0 || d < soonest) {
			soonest = d
		}
	}
	return max(soonest, time.Millisecond)
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
