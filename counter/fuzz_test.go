package counter

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// addSeeds feeds the seed corpus of target, kept as plain files under the
// top-level testdata/fuzz/TARGET/, one input a file.
func addSeeds(f *testing.F, target string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "fuzz", target, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in testdata/fuzz/%s", target)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(strings.TrimSuffix(string(b), "\n"))
	}
}

var nameRule = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// FuzzCheckName: a name is accepted exactly when it follows the rule in
// the README, so no accepted name can be a path, a dot segment, or longer
// than a bucket key should be.
func FuzzCheckName(f *testing.F) {
	addSeeds(f, "FuzzCheckName")
	f.Add("a")
	f.Add("..")
	f.Add(strings.Repeat("x", 65))
	f.Fuzz(func(t *testing.T, name string) {
		err := CheckName(name)
		if ok := nameRule.MatchString(name); ok != (err == nil) {
			t.Fatalf("CheckName(%q) = %v, but the rule says %v", name, err, ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidName) {
			t.Fatalf("CheckName(%q) = %v, want ErrInvalidName", name, err)
		}
	})
}

// FuzzParseStyle: a style that parses stays within its bounds and draws
// the longest count within the pixel budget, in an image that decodes; a
// refused one says why in a short message that repeats nothing the
// visitor sent.
func FuzzParseStyle(f *testing.F) {
	addSeeds(f, "FuzzParseStyle")
	f.Add("digits=12&size=128&font=bold")
	f.Add("fg=%GG")
	f.Add(strings.Repeat("v=1&", 20))
	f.Fuzz(func(t *testing.T, query string) {
		s, err := ParseStyle(query)
		if err != nil {
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseStyle(%q) = %T %v, want a *ParamError", query, err, err)
			}
			msg := err.Error()
			if len(msg) > 100 || (pe.Param != "query" && paramSlot(pe.Param) < 0) {
				t.Fatalf("ParseStyle(%q): message %q names something the visitor made up", query, msg)
			}
			return
		}
		if s.Digits < MinDigits || s.Digits > MaxDigits || s.Size < MinSize || s.Size > MaxSize {
			t.Fatalf("ParseStyle(%q) = %+v, out of bounds", query, s)
		}
	})
}
