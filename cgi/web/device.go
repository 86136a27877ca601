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

// deviceToken returns r's device cookie if it could be one: the cheap
// check, made before anything is read to verify it.
func deviceToken(r *http.Request) (string, bool) {
	c, err := r.Cookie(deviceCookie)
	if err != nil {
		return "", false
	}
	_, ok := tokenParts(c.Value)
	return c.Value, ok
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

// knownDevice reports the device id of r's device cookie, if it carries a
// valid one for counter name, with the view it read to check it. The
// database is read only for a cookie that could be a token.
func (a *App) knownDevice(r *http.Request, name string) (guard.Client, statsView, bool) {
	value, ok := deviceToken(r)
	if !ok {
		return guard.Client{}, statsView{}, false
	}
	v, err := a.loadStats(r, name, a.now())
	if err != nil || !v.history.Protected() {
		return guard.Client{}, statsView{}, false
	}
	id, ok := validDevice(value, name, v.history.PasswordHash, a.now())
	return id, v, ok
}
