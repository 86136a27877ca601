package admin

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"hitcounter/counter"
	"hitcounter/counter/digitset"
	"hitcounter/store"
)

// digitSetCommand is "digitset add|list|show|remove", the owner's digit
// sets that a tag's theme= names beside the built-in looks and the colour
// schemes. It answers to "theme" too, the name it had first: called so,
// it says "theme" in what it prints, as it always did, for scripts that
// read it.
func digitSetCommand(name string) command {
	return command{"add [-replace] NAME PATH | list | show NAME | remove NAME", 1, 3, func(fs *flag.FlagSet, e *cmdEnv) {
		fs.BoolVar(&e.replaceSet, "replace", false, name+" add: replace a set of that name")
	}, func(e *cmdEnv, args []string) error { return runDigitSet(e, setCmd{name}, args) }}
}

// setCmd is the name digitSetCommand was called by, for its messages.
type setCmd struct{ name string }

// noun is what the command calls a set in what it prints.
func (c setCmd) noun() string {
	if c.name == "theme" {
		return "theme"
	}
	return "digit set"
}

func runDigitSet(e *cmdEnv, c setCmd, args []string) error {
	sub, rest := args[0], args[1:]
	want := map[string]int{"add": 2, "list": 0, "show": 1, "remove": 1}
	n, ok := want[sub]
	if !ok {
		return usagef("%s: %q is not add, list, show or remove", c.name, sub)
	}
	if len(rest) != n {
		return usagef("%s %s: wrong number of arguments: counter %s %s", c.name, sub, c.name, digitSetCommand(c.name).args)
	}
	if e.replaceSet && sub != "add" {
		return usagef("%s %s: -replace is for %s add", c.name, sub, c.name)
	}
	switch sub {
	case "add":
		return runDigitSetAdd(e, c, rest[0], rest[1])
	case "list":
		return runDigitSetList(e)
	case "show":
		return runDigitSetShow(e, c, rest[0])
	}
	return runDigitSetRemove(e, c, rest[0])
}

// runDigitSetAdd reads the files at path, has them decoded in a process of
// its own (counter-themedecode) and stores the set as name.
func runDigitSetAdd(e *cmdEnv, c setCmd, name, path string) error {
	if err := counter.CheckDigitSetName(name); err != nil {
		return usagef("%s add: %v", c.name, err)
	}
	bin, err := findDecoder()
	if err != nil {
		return fmt.Errorf("%s add: %w", c.name, err)
	}
	b, err := e.readDigitSetFiles(path)
	if err != nil {
		return fmt.Errorf("%s add: %s: %w", c.name, path, err)
	}
	s, err := decodeSet(bin, b.Marshal())
	if err != nil {
		return fmt.Errorf("%s add: %s: %w", c.name, path, err)
	}
	err = e.update(true, func(db *store.DB) error {
		return db.AddDigitSet(name, store.RecordsOf(s), e.cfg.Now(), e.replaceSet)
	})
	if errors.Is(err, store.ErrDigitSetExists) {
		return fmt.Errorf("%s add: %s exists: add -replace to replace it", c.name, name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "added %s %s: %s; show it with <img src=\"/cgi-bin/counter.cgi/NAME.png?theme=%s\">, or make it a counter's own with counter config NAME theme=%s\n",
		c.noun(), name, describeSet(s), name, name)
	return nil
}

// describeSet says in one line what a set is.
func describeSet(s *digitset.Set) string {
	lo, hi, frames := 0, 0, 0
	hlo, hhi := s.Height, 0
	for i, d := range s.Digits {
		if !s.Has(i) {
			continue
		}
		frames = max(frames, len(d.Frames))
		if i >= 10 {
			continue
		}
		if i == 0 || d.Width < lo {
			lo = d.Width
		}
		hi = max(hi, d.Width)
		hlo, hhi = min(hlo, d.Height), max(hhi, d.Height)
	}
	widths := fmt.Sprintf("%d", lo)
	if hi != lo {
		widths = fmt.Sprintf("%d to %d", lo, hi)
	}
	heights := fmt.Sprintf("%d", hhi)
	if hlo != hhi {
		heights = fmt.Sprintf("%d to %d", hlo, hhi)
	}
	what := "still"
	if frames > 1 {
		what = fmt.Sprintf("animated, up to %d frames a piece, %s", frames, loopText(s.Loop))
	}
	var pieces []string
	for k := 10; k < digitset.NumPieces; k++ {
		if s.Has(k) {
			pieces = append(pieces, digitset.PieceName(k))
		}
	}
	with := ""
	if len(pieces) > 0 {
		with = ", with " + strings.Join(pieces, ", ")
	}
	return fmt.Sprintf("%s, ten digits %s px high and %s wide%s, %d colours, %s", s.Layout, heights, widths, with, len(s.Palette), what)
}

func loopText(loop int) string {
	switch {
	case loop == 0:
		return "looping forever"
	case loop < 0:
		return "playing once"
	}
	return fmt.Sprintf("playing %d times", loop+1)
}

// lookText says what each built-in look is.
var lookText = map[string]string{
	"led":      "seven-segment LED display, unlit segments faintly shown",
	"odometer": "light digits on dark rolling drums",
	"nixie":    "glowing digits of a nixie tube",
	"retro":    "a 1990s web counter: digits on black in a bevelled frame",
}

// runDigitSetList prints every name theme= takes besides the colour
// schemes, a line each, name first: the built-in looks, then the owner's
// digit sets.
func runDigitSetList(e *cmdEnv) error {
	var sets []store.DigitSetInfo
	err := e.view(func(db *store.DB) error {
		var err error
		sets, err = db.DigitSets()
		return err
	})
	if err != nil && !errors.Is(err, store.ErrMissing) {
		return err
	}
	for _, l := range counter.LookNames() {
		fmt.Fprintf(e.stdout, "%s\tbuilt-in: %s\n", l, lookText[l])
	}
	for _, t := range sets {
		line := t.Name + "\tset"
		if s, err := t.Records.Parse(); err == nil {
			line += fmt.Sprintf(": %s, %d px high", s.Layout, s.Height)
			if s.Animated() {
				line += ", animated"
			}
		}
		line += fmt.Sprintf(", %d bytes, added %s", t.Size, t.Added.Format("2006-01-02"))
		if len(t.UsedBy) > 0 {
			line += ", default of " + strings.Join(t.UsedBy, ", ")
		}
		fmt.Fprintln(e.stdout, line)
	}
	return nil
}

// runDigitSetShow prints what name is: a look's colours, or a digit set's
// digits one a line.
func runDigitSetShow(e *cmdEnv, c setCmd, name string) error {
	if counter.IsLook(name) {
		fmt.Fprintf(e.stdout, "%s: built-in look, %s; drawn by its own code at size=, in the colours fg= and bg= give\n", name, lookText[name])
		return nil
	}
	if err := counter.CheckDigitSetName(name); err != nil {
		return usagef("%s show: %v", c.name, err)
	}
	var t store.DigitSetInfo
	var all store.DigitSetRecords
	err := e.view(func(db *store.DB) error {
		list, err := db.DigitSets()
		if err != nil {
			return err
		}
		i := slices.IndexFunc(list, func(t store.DigitSetInfo) bool { return t.Name == name })
		if i < 0 {
			return fmt.Errorf("%s show: %w %q (%s list shows them)", c.name, counter.ErrNoDigitSet, name, c.name)
		}
		t = list[i]
		all, err = db.DigitSetRecords(name, "0123456789,-")
		return err
	})
	if err != nil {
		return err
	}
	s, err := all.Parse()
	if err != nil {
		return fmt.Errorf("%s show: %s: %w", c.name, name, err)
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", name, describeSet(s))
	fmt.Fprintf(e.stdout, "added %s, %d bytes in the database\n", t.Added.Format("2006-01-02 15:04 MST"), t.Size)
	if len(t.UsedBy) > 0 {
		fmt.Fprintf(e.stdout, "default theme of %s\n", strings.Join(t.UsedBy, ", "))
	}
	for i, d := range s.Digits {
		if !s.Has(i) {
			continue
		}
		delays := make([]string, len(d.Frames))
		for k, f := range d.Frames {
			delays[k] = fmt.Sprintf("%d", f.Delay*10)
		}
		line := fmt.Sprintf("%s: %dx%d px, %s of %d bytes", digitset.PieceName(i), d.Width, d.Height, d.PieceType, len(d.Piece))
		if len(d.Frames) > 1 {
			line += fmt.Sprintf(", %d frames, delays %s ms", len(d.Frames), strings.Join(delays, ","))
		}
		fmt.Fprintln(e.stdout, line)
	}
	return nil
}

// runDigitSetRemove removes set name, unless a counter shows it by
// default.
func runDigitSetRemove(e *cmdEnv, c setCmd, name string) error {
	if counter.IsLook(name) {
		return usagef("%s remove: %s is a built-in look", c.name, name)
	}
	if err := counter.CheckDigitSetName(name); err != nil {
		return usagef("%s remove: %v", c.name, err)
	}
	err := e.update(false, func(db *store.DB) error { return db.RemoveDigitSet(name) })
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed %s %s\n", c.noun(), name)
	return nil
}
