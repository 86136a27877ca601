package counter

import "strings"

// Format is an image format a count can be drawn in.
type Format int

// The formats, named by the extension of the request path.
const (
	PNG Format = iota + 1
	GIF
	SVG
)

// ParseFormat returns the format for an extension without its dot.
// Extensions are read in any case: /blog.PNG is a PNG.
func ParseFormat(ext string) (Format, bool) {
	if len(ext) != 3 {
		return 0, false
	}
	switch strings.ToLower(ext) {
	case "png":
		return PNG, true
	case "gif":
		return GIF, true
	case "svg":
		return SVG, true
	}
	return 0, false
}

// ContentType returns the media type of f.
func (f Format) ContentType() string {
	switch f {
	case GIF:
		return "image/gif"
	case SVG:
		return "image/svg+xml"
	}
	return "image/png"
}
