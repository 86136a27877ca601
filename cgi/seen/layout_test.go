package seen

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The stored bytes, pinned: a change to the layout must be meant, and
// come with a new version.
func TestLayout(t *testing.T) {
	tab, dir := newTable(t, defaultShareSlots)
	see(t, tab, Visit{Counter: "blog", Addr: "192.0.2.1", UserAgent: "Firefox", Now: at(12, 0), Via: ViaScript})
	see(t, tab, Visit{Counter: "home", Page: "/a/", Addr: "192.0.2.1", UserAgent: "Firefox", Now: at(12, 1)})
	b, err := os.ReadFile(filepath.Join(dir, "seen-2026-12-03"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 4202496 {
		t.Fatalf("file of %d bytes, want 4202496 (8192 + 64 shares of 4096 slots of 16)", len(b))
	}
	wantHeader := "counter-seen\x00\x00\x00\x03\x00\x00\x00\x40\x00\x00\x10\x00" + string(make([]byte, 8))
	if got := string(b[:32]); got != wantHeader {
		t.Errorf("header %q, want %q", got, wantHeader)
	}
	salt := b[32:64]
	written := map[int]string{ // offset: bytes
		4096:      "blog",
		4096 + 64: "home",
	}
	for _, s := range []struct {
		share int
		text  string // what is hashed
		via   string
		time  string
		when  time.Time
	}{
		{0, "\x04blog\x00\x09192.0.2.1\x07Firefox", "\x02", "\x6b\x11\x59\xc0", at(12, 0)},
		{1, "\x04home\x03/a/\x09192.0.2.1\x07Firefox", "\x00", "\x6b\x11\x59\xfc", at(12, 1)},
	} {
		if uint32(s.when.Unix()) != binary.BigEndian.Uint32([]byte(s.time)) {
			t.Errorf("the pinned time % x is not %s", s.time, s.when.Format(time.DateTime))
		}
		mac := hmac.New(sha256.New, salt)
		mac.Write([]byte(s.text))
		k := mac.Sum(nil)[:11]
		bucket := int(binary.BigEndian.Uint32(k) % 64)
		off := 8192 + s.share*65536 + bucket*1024
		written[off] = string(k) + s.via + s.time
		if got := string(b[off : off+16]); got != written[off] {
			t.Errorf("slot at %d: % x, want % x", off, got, written[off])
		}
	}
	// Nothing else was written.
	for i := 64; i < len(b); i++ {
		if w, ok := written[i]; ok {
			i += len(w) - 1
			continue
		}
		if b[i] != 0 {
			t.Fatalf("byte %d is %#x, want 0", i, b[i])
		}
	}
}
