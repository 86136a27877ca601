package counter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// theme= names one of three things: a colour scheme (light, dark, auto),
// a built-in look (LookNames) or an owner's digit set, added with
// "counter.cgi digitset add NAME PATH" and kept in the database. A digit
// set's name is neither of the others', so that theme=NAME means one thing.

// ErrNoDigitSet reports a digit set that is not in the database. Its text
// names the query key the visitor gave, theme=, and is what the visitor
// is told.
var ErrNoDigitSet = errors.New("no such theme")

// colourSchemes are the values of theme= that choose colours, not digits.
var colourSchemes = [...]string{"light", "dark", "auto"}

// CheckDigitSetName fails unless name may be given to an owner's digit set:
// a name as counter names are (CheckName), none of the colour schemes
// (light, dark, auto), nor a built-in look's, so that theme=NAME in a tag
// always means one thing.
func CheckDigitSetName(name string) error {
	if err := CheckName(name); err != nil {
		return fmt.Errorf("digit set name %q: letters, digits and . _ - (not first), at most %d", name, MaxNameLen)
	}
	if slices.Contains(colourSchemes[:], name) {
		return fmt.Errorf("digit set name %q is a colour scheme's (light, dark, auto): choose another", name)
	}
	if _, ok := lookupLook(name); ok {
		return fmt.Errorf("digit set name %q is a built-in look's: choose another", name)
	}
	return nil
}

// CheckThemeDefault fails unless name may be a counter's default theme
// (the setting theme=): a built-in look, a set's name, or "" for the
// font. Whether the set exists is the store's to check.
func CheckThemeDefault(name string) error {
	if name == "" {
		return nil
	}
	if _, ok := lookupLook(name); ok {
		return nil
	}
	if slices.Contains(colourSchemes[:], name) {
		return fmt.Errorf("%s is a colour scheme, which the tag chooses: a default theme is a look (%s) or a digit set from digitset list", name, lookList())
	}
	if err := CheckName(name); err != nil {
		return fmt.Errorf("%q is no look's or digit set's name", name)
	}
	return nil
}

// IsLook reports whether name is a built-in look's.
func IsLook(name string) bool {
	_, ok := lookupLook(name)
	return ok
}

func lookList() string { return strings.Join(LookNames(), ", ") }
