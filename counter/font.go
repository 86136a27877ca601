package counter

import (
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/goregular"
)

// FontNames are the fonts a style can ask for, all shipped in the binary.
var FontNames = []string{"mono", "mono-bold", "regular", "bold"}

// fontData returns the TrueType data of a named font. A switch rather than
// a map keeps the lookup free of start-up work.
func fontData(name string) ([]byte, bool) {
	switch name {
	case "mono":
		return gomono.TTF, true
	case "mono-bold":
		return gomonobold.TTF, true
	case "regular":
		return goregular.TTF, true
	case "bold":
		return gobold.TTF, true
	}
	return nil, false
}
