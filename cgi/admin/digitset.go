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

// themeCommand is "theme add|list|show|remove": the looks a tag's theme=
// names, the built-in ones and the owner's digit sets.
func themeCommand() command {
	return command{"add [-replace] NAME PATH | list | show NAME | remove NAME", 1, 3, func(fs *flag.FlagSet, e *cmdEnv) {
		fs.BoolVar(&e.replaceTheme, "replace", false, "theme add: replace a set of that name")
	}, runTheme}
}

func runTheme(e *cmdEnv, args []string) error {
	sub, rest := args[0], args[1:]
	want := map[string]int{"add": 2, "list": 0, "show": 1, "remove": 1}
	n, ok := want[sub]
	if !ok {
		return usagef("theme: %q is not add, list, show or remove", sub)
	}
	if len(rest) != n {
		return usagef("theme %s: wrong number of arguments: counter theme %s", sub, themeCommand().args)
	}
	if e.replaceTheme && sub != "add" {
		return usagef("theme %s: -replace is for theme add", sub)
	}
	switch sub {
	case "add":
		return runThemeAdd(e, rest[0], rest[1])
	case "list":
		return runThemeList(e)
	case "show":
		return runThemeShow(e, rest[0])
	}
	return runThemeRemove(e, rest[0])
}

// runThemeAdd reads the files at path, has them decoded in a process of
// its own (counter-themedecode) and stores the set as name.
func runThemeAdd(e *cmdEnv, name, path string) error {
	if err := counter.CheckDigitSetName(name); err != nil {
		return usagef("theme add: %v", err)
	}
	bin, err := findDecoder()
	if err != nil {
		return fmt.Errorf("theme add: %w", err)
	}
	b, err := e.readThemeFiles(path)
	if err != nil {
		return fmt.Errorf("theme add: %s: %w", path, err)
	}
	s, err := decodeSet(bin, b.Marshal())
	if err != nil {
		return fmt.Errorf("theme add: %s: %w", path, err)
	}
	err = e.update(true, func(db *store.DB) error {
		return db.AddDigitSet(name, store.RecordsOf(s), e.cfg.Now(), e.replaceTheme)
	})
	if errors.Is(err, store.ErrDigitSetExists) {
		return fmt.Errorf("theme add: %s exists: add -replace to replace it", name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "added theme %s: %s; show it with <img src=\"/cgi-bin/counter.cgi/NAME.png?theme=%s\">, or make it a counter's own with counter config NAME theme=%s\n",
		name, describeSet(s), name, name)
	return nil
}

// describeSet says in one line what a set is.
func describeSet(s *digitset.Set) string {
	lo, hi, frames := 0, 0, 0
	for i, d := range s.Digits {
		if i == 0 || d.Width < lo {
			lo = d.Width
		}
		hi = max(hi, d.Width)
		frames = max(frames, len(d.Frames))
	}
	widths := fmt.Sprintf("%d", lo)
	if hi != lo {
		widths = fmt.Sprintf("%d to %d", lo, hi)
	}
	what := "still"
	if frames > 1 {
		what = fmt.Sprintf("animated, up to %d frames a digit, %s", frames, loopText(s.Loop))
	}
	return fmt.Sprintf("%s, ten digits %d px high and %s wide, %d colours, %s", s.Layout, s.Height, widths, len(s.Palette), what)
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

// runThemeList prints every theme a line, name first: the built-in looks,
// then the owner's sets.
func runThemeList(e *cmdEnv) error {
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

// runThemeShow prints what theme name is: a look's colours, or a set's
// digits one a line.
func runThemeShow(e *cmdEnv, name string) error {
	if counter.IsLook(name) {
		fmt.Fprintf(e.stdout, "%s: built-in look, %s; drawn by its own code at size=, in the colours fg= and bg= give\n", name, lookText[name])
		return nil
	}
	if err := counter.CheckDigitSetName(name); err != nil {
		return usagef("theme show: %v", err)
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
			return fmt.Errorf("theme show: %w %q (theme list shows them)", counter.ErrNoDigitSet, name)
		}
		t = list[i]
		all, err = db.DigitSetRecords(name, "0123456789")
		return err
	})
	if err != nil {
		return err
	}
	s, err := all.Parse()
	if err != nil {
		return fmt.Errorf("theme show: %s: %w", name, err)
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", name, describeSet(s))
	fmt.Fprintf(e.stdout, "added %s, %d bytes in the database\n", t.Added.Format("2006-01-02 15:04 MST"), t.Size)
	if len(t.UsedBy) > 0 {
		fmt.Fprintf(e.stdout, "default theme of %s\n", strings.Join(t.UsedBy, ", "))
	}
	for i, d := range s.Digits {
		delays := make([]string, len(d.Frames))
		for k, f := range d.Frames {
			delays[k] = fmt.Sprintf("%d", f.Delay*10)
		}
		line := fmt.Sprintf("digit %d: %dx%d px, %s of %d bytes", i, d.Width, s.Height, d.PieceType, len(d.Piece))
		if len(d.Frames) > 1 {
			line += fmt.Sprintf(", %d frames, delays %s ms", len(d.Frames), strings.Join(delays, ","))
		}
		fmt.Fprintln(e.stdout, line)
	}
	return nil
}

// runThemeRemove removes set name, unless a counter shows it by default.
func runThemeRemove(e *cmdEnv, name string) error {
	if counter.IsLook(name) {
		return usagef("theme remove: %s is a built-in look", name)
	}
	if err := counter.CheckDigitSetName(name); err != nil {
		return usagef("theme remove: %v", err)
	}
	err := e.update(false, func(db *store.DB) error { return db.RemoveDigitSet(name) })
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed theme %s\n", name)
	return nil
}
