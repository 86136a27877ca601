package imagehit

import (
	"errors"
	"fmt"
	"testing"

	"hitcounter/store"
)

// TestPublicErrorOfAStore maps the errors of a store that cannot answer
// now, a file's or a cluster's, to 503 and a fixed message: a hit answers
// them with the dashes image, not a 500 for a bug.
func TestPublicErrorOfAStore(t *testing.T) {
	tests := []struct {
		err    error
		status int
		msg    string
	}{
		{store.ErrTimeout, 503, "busy, try again"},
		{store.ErrMissing, 503, "counter unavailable"},
		{store.ErrUnavailable, 503, "counter unavailable"},
		{store.ErrUnknownOutcome, 503, "counter unavailable"},
		{errors.New("something else"), 500, "internal error"},
	}
	for _, tc := range tests {
		err := fmt.Errorf("store: open etcd://h1:2379/site: %w", tc.err)
		status, msg, known := PublicError(err)
		if status != tc.status || msg != tc.msg || known != (tc.status != 500) {
			t.Errorf("PublicError(%v) = %d %q %v, want %d %q", err, status, msg, known, tc.status, tc.msg)
		}
	}
}
