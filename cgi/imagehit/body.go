package imagehit

// chunkedBody is an image as it is drawn: written into chunks that are kept as
// they fill, where a bytes.Buffer would double and copy itself. An
// animated set's GIF is hundreds of kilobytes; growing a buffer to hold
// it cleared and copied twice its size again, each page new to a CGI
// process, a fault. The chunks are the answer's body as they are (Chunks):
// joining them would touch as many new pages again.
type chunkedBody struct {
	chunks [][]byte
	n      int
}

// Chunk sizes: the first is small, for the few hundred bytes of most
// counts; each after it doubles to the last, the most one can waste.
const (
	firstChunk = 4 << 10
	lastChunk  = 64 << 10
)

// Grow makes room for n more bytes in one chunk, as bytes.Buffer's
// does: a writer that knows its size (an SVG) asks it.
func (b *chunkedBody) Grow(n int) {
	if last := len(b.chunks) - 1; last < 0 || cap(b.chunks[last])-len(b.chunks[last]) < n {
		b.chunks = append(b.chunks, make([]byte, 0, max(n, b.next())))
	}
}

// next is the size of the next chunk.
func (b *chunkedBody) next() int {
	if len(b.chunks) == 0 {
		return firstChunk
	}
	return min(2*cap(b.chunks[len(b.chunks)-1]), lastChunk)
}

func (b *chunkedBody) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		last := len(b.chunks) - 1
		if last < 0 || len(b.chunks[last]) == cap(b.chunks[last]) {
			b.chunks = append(b.chunks, make([]byte, 0, b.next()))
			last++
		}
		c := b.chunks[last]
		k := min(len(p), cap(c)-len(c))
		b.chunks[last] = append(c, p[:k]...)
		p = p[k:]
	}
	b.n += n
	return n, nil
}

// Len returns the number of bytes written since the last Reset.
func (b *chunkedBody) Len() int { return b.n }

// Reset empties b, keeping its first chunk.
func (b *chunkedBody) Reset() {
	if len(b.chunks) > 0 {
		b.chunks = append(b.chunks[:0], b.chunks[0][:0])
	}
	b.n = 0
}

// Chunks returns what was written, in the chunks that hold it.
func (b *chunkedBody) Chunks() [][]byte {
	if b.n == 0 {
		return nil
	}
	return b.chunks
}
