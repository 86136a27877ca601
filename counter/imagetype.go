package counter

import "strings"

// ImageType is the file type a count is drawn as (png, gif or svg), as
// against a number format, which is how the number itself is written.
type ImageType int

// The image types, named by the extension of the request path.
const (
	PNG ImageType = iota + 1
	GIF
	SVG
)

// ParseImageType returns the image type for an extension without its dot.
// Extensions are read in any case: /blog.PNG is a PNG.
func ParseImageType(ext string) (ImageType, bool) {
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
func (f ImageType) ContentType() string {
	switch f {
	case GIF:
		return "image/gif"
	case SVG:
		return "image/svg+xml"
	}
	return "image/png"
}
