package imagehit

import (
	"encoding/json"
	"testing"
)

// TestAppendJSONString: the count's strings are what encoding/json, the
// oracle, writes, for paths a visitor may have named.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"/posts/a/", `/"quoted"\`, "/<script>&amp;", "/café/ü", "/\x00\x1f\x7f", "/\u2028\u2029", "/bad\xffutf8", ""} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}
