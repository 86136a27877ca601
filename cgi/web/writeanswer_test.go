package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"hitcounter/cgi/gateway/cgiwire"
	"hitcounter/cgi/imagehit"
)

// writesRecorder records the length of each write it is given.
type writesRecorder struct {
	*httptest.ResponseRecorder
	writes []int
}

func (w *writesRecorder) Write(p []byte) (int, error) {
	w.writes = append(w.writes, len(p))
	return w.ResponseRecorder.Write(p)
}

// TestWriteAnswerInOneWrite: an image answer's body, drawn in pieces (an
// animated GIF's chunks of 4 to 64 KiB), goes to the handler's writer in
// one write of the whole body. The long-lived servers count only a write
// bigger than 64 KiB against the budget of bytes held for slow readers;
// written piece by piece, a GIF of hundreds of kilobytes that the handler
// holds whole was never counted, and clients that stop reading could
// make the service hold one each, past its memory bound.
func TestWriteAnswerInOneWrite(t *testing.T) {
	piece := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	for _, tc := range []struct {
		name   string
		pieces [][]byte
		writes []int
	}{
		{"HEAD", nil, nil},
		{"one piece", [][]byte{piece(300, 'a')}, []int{300}},
		{"chunks of a GIF", [][]byte{piece(4<<10, 'a'), piece(8<<10, 'b'), piece(16<<10, 'c'), piece(32<<10, 'd'),
			piece(64<<10, 'e'), piece(64<<10, 'f'), piece(5, 'g')}, []int{188<<10 + 5}},
	} {
		n := len(bytes.Join(tc.pieces, nil))
		ans := imagehit.Answer{Status: http.StatusOK, Body: tc.pieces, Header: []cgiwire.Field{
			{Key: "Content-Type", Value: "image/gif"}, {Key: "Content-Length", Value: strconv.Itoa(n)}}}
		w := &writesRecorder{ResponseRecorder: httptest.NewRecorder()}
		if err := writeAnswer(w, ans); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(w.Body.Bytes(), bytes.Join(tc.pieces, nil)) || w.Code != http.StatusOK {
			t.Errorf("%s: status %d, %d bytes, want 200 and the %d bytes of the pieces", tc.name, w.Code, w.Body.Len(), n)
		}
		if len(w.writes) != len(tc.writes) || len(w.writes) > 0 && w.writes[0] != tc.writes[0] {
			t.Errorf("%s: writes of %v bytes, want %v", tc.name, w.writes, tc.writes)
		}
	}
}
