// Package draw draws a count in a counter.Style: digits from the Go fonts'
// outlines (extracted at build time into outlines.go), badges, the error
// image, and the small PNG, GIF and SVG encoders that write them without
// linking image/png or image/gif.
package draw
