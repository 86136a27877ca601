// Package counter is the domain of the hit counter: counter names and their
// rules, display styles and their bounds, and drawing a count as a PNG, GIF or
// SVG image. It knows nothing of HTTP or of the database.
package counter
