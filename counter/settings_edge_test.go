package counter

import (
	"net/netip"
	"testing"
)

// An IPv4-mapped network on the ignore list is taken as the IPv4 network
// it maps, since Ignores matches addresses as IPv4.
func TestMappedIgnoreEntry(t *testing.T) {
	var s Settings
	if err := s.Set("ignore=::ffff:198.51.100.0/120"); err != nil {
		return // refused: fine
	}
	if !s.Ignores(netip.MustParseAddr("198.51.100.7")) {
		t.Errorf("ignore=%s was taken but ignores neither 198.51.100.7 nor its mapped form", s.Format()[2])
	}
}
