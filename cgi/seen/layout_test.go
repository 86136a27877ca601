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
	tab, dir := newTable(t, defaultSlots)
	v := Visit{Counter: "blog", Addr: "192.0.2.1", UserAgent: "Firefox", Now: at(12, 0)}
	see(t, tab, v)
	b, err := os.ReadFile(filepath.Join(dir, "seen-2026-12-03"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1048640 {
		t.Fatalf("file of %d bytes, want 1048640 (64 + 65536 slots of 16)", len(b))
	}
	wantHeader := "counter-seen\x00\x00\x00\x01\x00\x01\x00\x00" + string(make([]byte, 12))
	if got := string(b[:32]); got != wantHeader {
		t.Errorf("header %q, want %q", got, wantHeader)
	}
	salt := b[32:64]

	mac := hmac.New(sha256.New, salt)
	mac.Write([]byte("\x04blog\x09192.0.2.1\x07Firefox"))
	k := mac.Sum(nil)[:12]
	bucket := int(binary.BigEndian.Uint32(k) % 4096)
	off := 64 + bucket*256
	wantSlot := string(k) + "\x6b\x11\x59\xc0" // 2026-12-03 12:00:00 UTC
	if got := string(b[off : off+16]); got != wantSlot {
		t.Errorf("slot at %d: % x, want % x", off, got, wantSlot)
	}
	if uint32(at(12, 0).Unix()) != 0x6b1159c0 {
		t.Errorf("the pinned time is not %s", at(12, 0).Format(time.DateTime))
	}
	// Nothing else was written.
	for i, c := range b[64:] {
		if c != 0 && (64+i < off || 64+i >= off+16) {
			t.Fatalf("byte %d is %#x, want 0", 64+i, c)
		}
	}
}
