package imagehit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// OwnerCookie is the name of the cookie by which a browser asks not to be
// counted by one counter.
const OwnerCookie = "counter_owner"

// ownerPrefix starts every owner token; a new format takes a new prefix,
// so old cookies are refused rather than misread.
const ownerPrefix = "o1."

// OwnerTokenLen is the length of every owner token.
var OwnerTokenLen = len(ownerPrefix) + base64.RawURLEncoding.EncodedLen(sha256.Size)

// OwnerToken returns the value of the owner cookie of counter name: a
// version prefix and an HMAC-SHA256 of the name under the owner key. It
// holds no expiry: the cookie's own Max-Age is enough, since the worst a
// copied cookie can do is leave some hits uncounted.
func OwnerToken(name string, key []byte) string {
	var mac [sha256.Size]byte
	return ownerPrefix + base64.RawURLEncoding.EncodeToString(ownerMAC(mac[:0], name, key))
}

func ownerMAC(dst []byte, name string, key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("counter-owner-v1\x00"))
	m.Write([]byte(name))
	return m.Sum(dst)
}

// OwnerMarked reports whether the Cookie header lines carry an owner
// cookie valid for counter name under key. It runs on every hit, so it
// decodes into arrays on the stack and compares in constant time; nil key
// (none made yet) marks no one.
func OwnerMarked(cookieLines []string, name string, key []byte) bool {
	if len(key) == 0 {
		return false
	}
	for _, v := range ownerCookies(cookieLines) {
		if len(v) != OwnerTokenLen || v[:len(ownerPrefix)] != ownerPrefix {
			continue
		}
		var got, want [sha256.Size]byte
		// Strict: several spellings of one MAC must not all verify.
		n, err := base64.RawURLEncoding.Strict().Decode(got[:], []byte(v[len(ownerPrefix):]))
		if err != nil || n != len(got) {
			continue
		}
		if hmac.Equal(got[:], ownerMAC(want[:0], name, key)) {
			return true
		}
	}
	return false
}

// ownerCookies returns the values of the owner cookies in the Cookie
// header lines, read as net/http's Request.CookiesNamed reads them: pairs
// split at ';' and trimmed, a value's one pair of double quotes taken off.
// A value net/http would refuse (a byte outside the cookie alphabet) is
// returned too: no token has one, so it verifies no more than it would
// there.
func ownerCookies(lines []string) []string {
	var values []string
	for _, line := range lines {
		for part := range strings.SplitSeq(line, ";") {
			part = strings.Trim(part, " \t\r\n")
			name, v, _ := strings.Cut(part, "=")
			if name != OwnerCookie {
				continue
			}
			if len(v) > 1 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			values = append(values, v)
		}
	}
	return values
}
