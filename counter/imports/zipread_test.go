package imports

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// zipContents reads every file of b with readZIP, as "name\ncontents\n".
func zipContents(b []byte) (string, error) {
	r := bytes.NewReader(b)
	files, err := readZIP(r, int64(len(b)), func(string) bool { return true })
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, f := range files {
		rc, err := f.open(r, int64(len(b)))
		if err != nil {
			return "", err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&out, "%s\n%s\n", f.name, data)
	}
	return out.String(), nil
}

// TestReadZIPAsArchiveZIP reads ZIPs written by Go's archive/zip (as
// GoatCounter writes its export: deflated, with data descriptors), stored
// ones (as Plausible's Zstream writes), and one of more than 65,535 files,
// which takes ZIP64's end record: readZIP reads what archive/zip reads.
func TestReadZIPAsArchiveZIP(t *testing.T) {
	many := func() []byte {
		var b bytes.Buffer
		z := zip.NewWriter(&b)
		for i := range 0x10001 {
			w, _ := z.CreateHeader(&zip.FileHeader{Name: fmt.Sprint(i), Method: zip.Store})
			if i%4096 == 0 {
				fmt.Fprint(w, i)
			}
		}
		z.Close()
		return b.Bytes()
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"GoatCounter's", readTestFile(t, "goatcounter-export.zip")},
		{"Plausible's", readTestFile(t, "plausible-export.zip")},
		{"ZIP64's end record", many()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := zipContents(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if want := contents(t, "x.zip", tc.b); got != want {
				t.Errorf("got %.300q\nwant %.300q", got, want)
			}
		})
	}
}

func TestReadZIPRefuses(t *testing.T) {
	good := readTestFile(t, "goatcounter-export.zip")
	damaged := bytes.Clone(good)
	// A byte of the first file's deflated contents.
	damaged[30+len("goatcounter-export-example-20260104T120000Z/info.json")+10] ^= 0xff
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"not a ZIP", []byte("2Path,Title\n"), "not a ZIP file"},
		{"cut short", good[:len(good)/2], "not a ZIP file"},
		{"damaged", damaged, "info.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := zipContents(tc.b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
