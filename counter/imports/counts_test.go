package imports

import (
	"reflect"
	"strings"
	"testing"

	"hitcounter/counter"
)

func TestCounts(t *testing.T) {
	total := func(name string, n uint64) counter.Imported {
		return counter.Imported{Name: name, Total: n, HasTotal: true}
	}
	for _, tc := range []struct {
		name, in string
		want     []counter.Imported
	}{
		{"bare number", "48213\n", []counter.Imported{total("", 48213)}},
		{"bare number, no newline", "7", []counter.Imported{total("", 7)}},
		{"bare number with BOM and CRLF", "\xef\xbb\xbf  48213 \r\n\r\n", []counter.Imported{total("", 48213)}},
		{"past 2^53", "9007199254740993", []counter.Imported{total("", 9007199254740993)}},
		{"largest", "18446744073709551615\n", []counter.Imported{total("", 18446744073709551615)}},
		{"lines", "# old counters\r\nblog 48213\r\n\r\nguest.book\t1022\r\n", []counter.Imported{total("blog", 48213), total("guest.book", 1022)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Counts(strings.NewReader(tc.in))
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestCountsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		line     int
		reason   string
	}{
		{"empty", "", 0, "holds no count"},
		{"comments only", "# nothing\n\n", 0, "holds no count"},
		{"negative", "-5\n", 1, "not a whole number"},
		{"fraction", "5.0\n", 1, "not a whole number"},
		{"thousands separator", "48,213\n", 1, "not a whole number"},
		{"past 2^64", "18446744073709551616", 1, "not a whole number"},
		{"number then more", "5\nblog 6\n", 2, "more after the number on line 1"},
		{"bad name", "blog 1\n../x 2\n", 2, "not a counter name"},
		{"three fields", "blog 1 2\n", 1, "want NAME COUNT"},
		{"bad count", "blog 1\nnews x\n", 2, `not a whole number from 0 to 18446744073709551615: "news x"`},
		{"name twice", "blog 1\r\nnews 2\r\nblog 3\r\n", 3, `a counter given twice, first on line 1: "blog"`},
		{"lone name among lines", "blog 1\nnews\n", 2, "want NAME COUNT"},
		{"long line", strings.Repeat("a", 5000), 1, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Counts(strings.NewReader(tc.in))
			wantRefusal(t, err, tc.line, tc.reason)
		})
	}
}
