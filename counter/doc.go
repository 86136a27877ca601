// Package counter is the domain of the hit counter: counter names and their
// rules, display styles and their bounds, the image types (png, gif, svg),
// visits, sites and settings. Drawing a count lives in counter/draw. It
// knows nothing of HTTP or of the database.
package counter
