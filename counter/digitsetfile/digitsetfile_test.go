package digitsetfile

import (
	"errors"
	"strconv"
	"testing"
)

// TestBundle reads back what Marshal wrote, and refuses bytes cut short,
// a wrong count of files and files past MaxSetBytes.
func TestBundle(t *testing.T) {
	b := Bundle{Layout: GIFFolder}
	for i := range 10 {
		b.Names = append(b.Names, strconv.Itoa(i)+".gif")
		b.Data = append(b.Data, []byte("GIF89a"+strconv.Itoa(i)))
	}
	got, err := Unmarshal(b.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if got.Layout != b.Layout || len(got.Names) != 10 || got.Names[7] != "7.gif" || string(got.Data[9]) != "GIF89a9" {
		t.Errorf("read back %+v", got)
	}
	whole := b.Marshal()
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"cut short", whole[:len(whole)-1]},
		{"a byte after", append(whole[:len(whole):len(whole)], 0)},
		{"one file for a folder", Bundle{Layout: PNGFolder, Names: []string{"0.png"}, Data: [][]byte{{1}}}.Marshal()},
		{"two for a strip", Bundle{Layout: Strip, Names: []string{"a", "b"}, Data: [][]byte{{1}, {2}}}.Marshal()},
		{"too big", Bundle{Layout: Strip, Names: []string{"s.png"}, Data: [][]byte{make([]byte, MaxSetBytes+1)}}.Marshal()},
		{"unknown layout", Bundle{Layout: "zip", Names: []string{"a"}, Data: [][]byte{{1}}}.Marshal()},
	} {
		if _, err := Unmarshal(tc.in); !errors.Is(err, ErrBundle) {
			t.Errorf("%s: %v, want ErrBundle", tc.name, err)
		}
	}
}
