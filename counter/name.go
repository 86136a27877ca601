package counter

import (
	"errors"
	"time"
)

// MaxNameLen is the longest counter name accepted.
const MaxNameLen = 64

// ErrInvalidName reports a counter name outside the rules of CheckName.
var ErrInvalidName = errors.New("invalid counter name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit")

// ErrNotFound reports a counter that does not exist.
var ErrNotFound = errors.New("no such counter")

// ErrExists reports a counter that already exists.
var ErrExists = errors.New("counter already exists")

// CheckName returns ErrInvalidName unless name matches
// ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$. It is written out rather than as a
// regexp so that a CGI process does not compile one on every hit.
func CheckName(name string) error {
	if len(name) == 0 || len(name) > MaxNameLen {
		return ErrInvalidName
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return ErrInvalidName
		}
	}
	return nil
}

// Info is what is known about one counter without its history.
type Info struct {
	Name     string
	Count    uint64 // views
	Visitors uint64 // unique visitors, each day's added up
	Created  time.Time
	Settings Settings
	// Pages is, on a site, how many pages its hits have made.
	Pages uint64
	// PasswordHash is the bcrypt hash that guards the statistics, or nil
	// when they are public.
	PasswordHash []byte
}

// Protected reports whether the statistics need a password.
func (i Info) Protected() bool { return len(i.PasswordHash) > 0 }

// Day is what a counter got on one UTC day.
type Day struct {
	Date string // 2006-01-02, UTC
	Tally
}

// Referrer is the number of hits a counter got from pages on one host.
type Referrer struct {
	Host string // OtherReferrers for hits beyond MaxReferrers hosts
	Hits uint64
}
