package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/gateway"
)

// sessionCookie is the name of the cookie that carries a login.
const sessionCookie = "counter_session"

// sessionLifetime is how long a login lasts.
const sessionLifetime = 24 * time.Hour

// maxCookieLen bounds the work spent on a forged cookie.
const maxCookieLen = 256

// signSession returns a session for counter name, valid until expires,
// bound to the password hash it was opened with: changing the password
// ends it. The value is name.expiry.mac, the MAC an HMAC-SHA256 under the
// database's session key.
func signSession(key []byte, name string, expires time.Time, hash []byte) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	b64 := base64.RawURLEncoding
	return b64.EncodeToString([]byte(name)) + "." + exp + "." + b64.EncodeToString(sessionMAC(key, name, exp, hash))
}

func sessionMAC(key []byte, name, exp string, hash []byte) []byte {
	m := hmac.New(sha256.New, key)
	hashSum := sha256.Sum256(hash)
	m.Write([]byte("counter-session-v1\x00" + name + "\x00" + exp + "\x00"))
	m.Write(hashSum[:])
	return m.Sum(nil)
}

// validSession reports whether value is an unexpired session for counter
// name under key and the current password hash. It never runs bcrypt.
func validSession(key []byte, value, name string, hash []byte, now time.Time) bool {
	if len(key) == 0 || len(hash) == 0 {
		return false
	}
	parts, ok := tokenParts(value)
	if !ok {
		return false
	}
	// Strict: the loose decoder ignores the unused bits of the last
	// character, so several spellings of one cookie would verify.
	b64 := base64.RawURLEncoding.Strict()
	gotName, err := b64.DecodeString(parts[0])
	if err != nil || string(gotName) != name {
		return false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != parts[1] {
		return false
	}
	// Expired, or set to outlive any session this code makes.
	if t := time.Unix(exp, 0); !t.After(now) || t.After(now.Add(sessionLifetime+time.Minute)) {
		return false
	}
	mac, err := b64.DecodeString(parts[2])
	if err != nil {
		return false
	}
	return hmac.Equal(mac, sessionMAC(key, name, parts[1], hash))
}

// cookieFor returns cookie named cookie for counter name's pages under
// the script, Secure when the browser reached us over HTTPS.
func (a *App) cookieFor(r *http.Request, cookie, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     cookie,
		Value:    value,
		Path:     gateway.Mount(r) + "/" + name + "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   a.overHTTPS(r),
		SameSite: http.SameSiteStrictMode,
	}
}

// overHTTPS reports whether the browser's request came over HTTPS: to us,
// or to a TLS-terminating proxy the owner trusts (COUNTER_TRUSTED_PROXIES),
// which says so in X-Forwarded-Proto. From anyone else the header is not
// believed, as their X-Forwarded-For is not.
func (a *App) overHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	p, err := netip.ParseAddr(peerAddr(r))
	if err != nil || !a.trusted(p.Unmap()) {
		return false
	}
	// A proxy that appends rather than sets the header leaves the
	// visitor's own value in front: believe only the last, the proxy's.
	protos := r.Header.Values("X-Forwarded-Proto")
	if len(protos) == 0 {
		return false
	}
	last := protos[len(protos)-1]
	last = last[strings.LastIndexByte(last, ',')+1:]
	return strings.EqualFold(strings.TrimSpace(last), "https")
}
