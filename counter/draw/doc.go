// Package draw draws a count: in a counter.Style, with digits from the Go
// fonts' outlines (extracted at build time into outlines.go), badges and
// the built-in looks; or in an owner's digit set (counter/digitset),
// composed from its stored frames (digitset.go, setgif.go, setsvg.go);
// the error image; and the small PNG, GIF and SVG encoders that write them
// without linking image/png or image/gif.
package draw
