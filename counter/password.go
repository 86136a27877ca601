package counter

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// PasswordCost is the bcrypt cost of every hash this program makes. It is
// pinned, never a library default: a default moves (PHP's went from 10 to
// 12), and on a Pi each step doubles what a login costs. A cost-10 hash
// takes about 140 ms on a Pi, 4x cheaper to attack than cost 12; it guards
// a page of visit counts, not an account.
const PasswordCost = 10

// MaxVerifyCost is the highest cost of a stored hash that is ever run. A
// cost-13 hash would burn over a second of a Pi's CPU per login attempt.
const MaxVerifyCost = 12

// MaxPasswordLen is bcrypt's limit: it ignores anything past 72 bytes.
const MaxPasswordLen = 72

// Password errors, worded for the owner at a terminal.
var (
	ErrPasswordEmpty   = errors.New("the password is empty")
	ErrPasswordTooLong = fmt.Errorf("the password is longer than %d bytes, which bcrypt would silently cut", MaxPasswordLen)
	ErrHashTooCostly   = fmt.Errorf("the hash's cost is above %d: checking it would tie up the CPU for seconds per login; set a new password", MaxVerifyCost)
	ErrNotAHash        = errors.New("not a bcrypt hash ($2a$, $2b$ or $2y$)")
)

// HashPassword hashes a new password at PasswordCost.
func HashPassword(password []byte) ([]byte, error) {
	switch {
	case len(password) == 0:
		return nil, ErrPasswordEmpty
	case len(password) > MaxPasswordLen:
		return nil, ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword(password, PasswordCost)
	if err != nil {
		return nil, fmt.Errorf("hash password: %w", err)
	}
	return h, nil
}

// HashCost checks that hash is a bcrypt hash this program will run, as
// made by Go, PHP's password_hash or Apache's htpasswd -B, and returns its
// cost.
func HashCost(hash []byte) (int, error) {
	// $2y$10$ then 22 characters of salt and 31 of digest, all in bcrypt's
	// alphabet; bcrypt itself lets a stray '+' or version letter through.
	if len(hash) != 60 || string(hash[:2]) != "$2" || !bytes.ContainsRune([]byte("aby"), rune(hash[2])) ||
		hash[3] != '$' || !isDigit(hash[4]) || !isDigit(hash[5]) || hash[6] != '$' {
		return 0, ErrNotAHash
	}
	for _, c := range hash[7:] {
		if !isDigit(c) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && c != '.' && c != '/' {
			return 0, ErrNotAHash
		}
	}
	cost := int(hash[4]-'0')*10 + int(hash[5]-'0')
	if cost < 4 || cost > 31 { // outside what bcrypt defines
		return 0, ErrNotAHash
	}
	if cost > MaxVerifyCost {
		return cost, ErrHashTooCostly
	}
	return cost, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// VerifyPassword reports whether password matches hash, and whether the
// hash should be replaced by one at PasswordCost. A password that bcrypt
// could not have hashed, or a hash too costly to run, never reaches
// bcrypt.
func VerifyPassword(hash, password []byte) (ok, rehash bool, err error) {
	cost, err := HashCost(hash)
	if err != nil {
		return false, false, err
	}
	if len(password) == 0 || len(password) > MaxPasswordLen {
		return false, false, nil
	}
	switch err := bcrypt.CompareHashAndPassword(hash, password); {
	case err == nil:
		return true, cost != PasswordCost, nil
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return false, false, nil
	default:
		return false, false, fmt.Errorf("verify password: %w", err)
	}
}

// TimeHash measures what checking a password against a hash of the given
// cost takes on this machine: it makes one hash, then times n checks and
// returns each time. Costs above MaxVerifyCost are refused.
func TimeHash(cost, n int) ([]time.Duration, error) {
	if cost > MaxVerifyCost {
		return nil, ErrHashTooCostly
	}
	password := []byte("doctor's sample password")
	hash, err := bcrypt.GenerateFromPassword(password, cost)
	if err != nil {
		return nil, fmt.Errorf("time hash: %w", err)
	}
	times := make([]time.Duration, n)
	for i := range times {
		start := time.Now()
		if err := bcrypt.CompareHashAndPassword(hash, password); err != nil {
			return nil, fmt.Errorf("time hash: %w", err)
		}
		times[i] = time.Since(start)
	}
	return times, nil
}
