package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"hitcounter/cgi/guard"
)

// A device token marks a browser that has logged in to a counter before
// (OWASP's "device cookie"). Its logins are throttled on their own and may
// take a bcrypt slot that no unknown client can, so a flood from strangers,
// however many addresses it comes from, cannot keep the owner out.
const (
	deviceCookie = "counter_device"
	// deviceLifetime is how long a browser stays known without logging in;
	// each good login renews it.
	deviceLifetime = 180 * 24 * time.Hour
	deviceIDLen    = 16
)

// signDevice returns the token of device id for counter name, valid until
// expires. The value is id.expiry.mac, the MAC an HMAC-SHA256 keyed with
// the counter's password hash: only a login could have made it, and a new
// password ends every device's standing (as it ends every session), while a
// logout, which renews the session key, leaves it.
func signDevice(hash []byte, name string, id guard.Client, expires time.Time) string {
	b64 := base64.RawURLEncoding
	idText := b64.EncodeToString(id[:deviceIDLen])
	exp := strconv.FormatInt(expires.Unix(), 10)
	return idText + "." + exp + "." + b64.EncodeToString(deviceMAC(hash, name, idText, exp))
}

func deviceMAC(hash []byte, name, id, exp string) []byte {
	m := hmac.New(sha256.New, hash)
	m.Write([]byte("counter-device-v1\x00" + name + "\x00" + id + "\x00" + exp))
	return m.Sum(nil)
}

// newDeviceID makes the id of a browser that has just logged in.
func newDeviceID() (guard.Client, error) {
	var id guard.Client
	_, err := rand.Read(id[:deviceIDLen])
	return id, err
}

// maxTokenCookies bounds the cookies of one name whose tokens are
// checked, each one HMAC.
const maxTokenCookies = 16

// cookieTokens returns the values of r's cookies named cookie that could
// be tokens (the cheap check, made before anything is read to verify
// them), at most maxTokenCookies of them. Every one is returned, not the
// first: a browser sends all the cookies of a name whose paths match,
// longest path first, so a stale one from another mount of the script, or
// one that a sibling site set on a longer path, may come before the valid
// one.
func cookieTokens(r *http.Request, cookie string) []string {
	var values []string
	for _, c := range r.CookiesNamed(cookie) {
		if _, ok := tokenParts(c.Value); ok {
			values = append(values, c.Value)
			if len(values) == maxTokenCookies {
				break
			}
		}
	}
	return values
}

// validDevice returns the device id of value if it is an unexpired device
// token for counter name under hash. It never runs bcrypt.
func validDevice(value, name string, hash []byte, now time.Time) (guard.Client, bool) {
	var id guard.Client
	parts, ok := tokenParts(value)
	if !ok || len(hash) == 0 {
		return id, false
	}
	b64 := base64.RawURLEncoding.Strict()
	raw, err := b64.DecodeString(parts[0])
	if err != nil || len(raw) != deviceIDLen {
		return id, false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != parts[1] {
		return id, false
	}
	if t := time.Unix(exp, 0); !t.After(now) || t.After(now.Add(deviceLifetime+time.Minute)) {
		return id, false
	}
	mac, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(mac, deviceMAC(hash, name, parts[0], parts[1])) {
		return id, false
	}
	copy(id[:], raw)
	return id, true
}

// tokenParts splits a session or device token into its three parts, if
// it holds only what the signers write: base64 decoders skip CR and LF,
// so a token with one added would verify as well.
func tokenParts(value string) ([]string, bool) {
	if len(value) > maxCookieLen {
		return nil, false
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return nil, false
		}
	}
	parts := strings.Split(value, ".")
	return parts, len(parts) == 3
}

// knownBrowser reads who r's cookies vouch for at door d's login: a
// browser with a valid session, which is logged in already, and one with a
// valid device token, which has logged in before. The file is read once,
// only if a cookie could be a token, and every cookie is judged on its own:
// a stale, foreign or forged one beside or before a valid one takes
// nothing from it.
func (a *App) knownBrowser(r *http.Request, d door) loginTry {
	sessions, devices := cookieTokens(r, d.sessionCookie()), cookieTokens(r, d.deviceCookie())
	if len(sessions) == 0 && len(devices) == 0 {
		return loginTry{}
	}
	l, err := a.readLock(d)
	if err != nil || l.hash == nil {
		return loginTry{}
	}
	now := a.now()
	who := loginTry{lock: l, loggedIn: d.anySession(l, sessions, now)}
	for _, value := range devices {
		if id, ok := validDevice(value, d.name, l.hash, now); ok {
			who.device, who.known = id, true
			break
		}
	}
	return who
}
