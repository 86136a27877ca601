package imports

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
)

// A reader of ZIP archives, enough for the exports of GoatCounter (Go's
// archive/zip writer, deflated) and Plausible (Zstream, stored). It stands
// in for archive/zip, whose init registers flate's compressor too. Imports
// run only in the full tool (./cgi), never in the hit binary (./cgi/hit),
// but that tool answers every page under CGI as a process of its own,
// which pays at start-up in memory and time for what the binary links,
// whatever it does; only an import reads a ZIP. The format is PKWARE's
// APPNOTE.TXT: the end of central directory record (ZIP64's
// too), the central directory's file headers (with ZIP64's extra field),
// and each file's local header.

// maxZIPFiles and maxZIPDir bound the files a ZIP's directory may list
// and the bytes it may take: the time it takes to read. It is read a file
// at a time, and only the files asked for are kept.
const (
	maxZIPFiles = 1 << 20
	maxZIPDir   = 64 << 20
)

// zipEntry is one file of a ZIP archive, as its central directory says.
type zipEntry struct {
	name          string
	flags, method uint16
	crc           uint32
	csize, usize  uint64
	offset        uint64 // of its local header
}

var errNotZIP = errors.New("not a ZIP file")

// readZIP returns the files of the ZIP archive r of size bytes whose
// names keep takes.
func readZIP(r io.ReaderAt, size int64, keep func(name string) bool) ([]zipEntry, error) {
	// The end record is the last 22 bytes, before a comment of at most
	// 64 KB.
	tail := min(size, 22+0xffff)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return nil, err
	}
	at := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if at < 0 || len(buf)-at < 22 {
		return nil, errNotZIP
	}
	end := buf[at:]
	le := binary.LittleEndian
	count, dirSize, dirOff := uint64(le.Uint16(end[10:])), uint64(le.Uint32(end[12:])), uint64(le.Uint32(end[16:]))
	if count == 0xffff || dirSize == 0xffffffff || dirOff == 0xffffffff {
		// ZIP64: a locator just before the end record points at the
		// ZIP64 end record.
		loc := make([]byte, 20)
		endOff := size - tail + int64(at)
		if endOff < 20 {
			return nil, errNotZIP
		}
		if _, err := r.ReadAt(loc, endOff-20); err != nil || !bytes.HasPrefix(loc, []byte("PK\x06\x07")) {
			return nil, fmt.Errorf("%w: a ZIP64 end record without its locator", errNotZIP)
		}
		rec := make([]byte, 56)
		if _, err := r.ReadAt(rec, int64(le.Uint64(loc[8:]))); err != nil || !bytes.HasPrefix(rec, []byte("PK\x06\x06")) {
			return nil, fmt.Errorf("%w: no ZIP64 end record", errNotZIP)
		}
		count, dirSize, dirOff = le.Uint64(rec[32:]), le.Uint64(rec[40:]), le.Uint64(rec[48:])
	}
	if count > maxZIPFiles {
		return nil, fmt.Errorf("more than %d files in the ZIP", maxZIPFiles)
	}
	if dirSize > maxZIPDir {
		return nil, fmt.Errorf("a ZIP directory of more than %d MB", maxZIPDir>>20)
	}
	if dirOff > uint64(size) || dirSize > uint64(size)-dirOff {
		return nil, fmt.Errorf("%w: its directory lies past its end", errNotZIP)
	}
	dir := bufio.NewReaderSize(io.NewSectionReader(r, int64(dirOff), int64(dirSize)), 64<<10)
	damaged := fmt.Errorf("%w: a damaged directory", errNotZIP)
	var files []zipEntry
	head := make([]byte, 46)
	var rest []byte
	for range count {
		if _, err := io.ReadFull(dir, head); err != nil || !bytes.HasPrefix(head, []byte("PK\x01\x02")) {
			return nil, damaged
		}
		f := zipEntry{flags: le.Uint16(head[8:]), method: le.Uint16(head[10:]), crc: le.Uint32(head[16:]),
			csize: uint64(le.Uint32(head[20:])), usize: uint64(le.Uint32(head[24:])), offset: uint64(le.Uint32(head[42:]))}
		n, extra, comment := int(le.Uint16(head[28:])), int(le.Uint16(head[30:])), int(le.Uint16(head[32:]))
		rest = slices.Grow(rest[:0], n+extra+comment)[:n+extra+comment]
		if _, err := io.ReadFull(dir, rest); err != nil {
			return nil, damaged
		}
		if !keep(string(rest[:n])) {
			continue
		}
		f.name = string(rest[:n])
		if err := f.zip64(rest[n : n+extra]); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// zip64 reads ZIP64's extra field (ID 1): the sizes and offset that do
// not fit 32 bits, each only when the header has all ones in its place.
func (f *zipEntry) zip64(extra []byte) error {
	le := binary.LittleEndian
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if len(extra) < 4+n {
			break
		}
		field := extra[4 : 4+n]
		extra = extra[4+n:]
		if id != 1 {
			continue
		}
		for _, v := range []*uint64{&f.usize, &f.csize, &f.offset} {
			if *v != 0xffffffff {
				continue
			}
			if len(field) < 8 {
				return fmt.Errorf("%w: a damaged ZIP64 field", errNotZIP)
			}
			*v, field = le.Uint64(field), field[8:]
		}
	}
	return nil
}

// open returns a reader of the file's contents, which fails at its end
// when they are not the size and checksum the directory says.
func (f zipEntry) open(r io.ReaderAt, size int64) (io.ReadCloser, error) {
	if f.flags&1 != 0 {
		return nil, fmt.Errorf("%s: an encrypted file", f.name)
	}
	head := make([]byte, 30)
	if f.offset > uint64(size) {
		return nil, fmt.Errorf("%w: %s lies past its end", errNotZIP, f.name)
	}
	if _, err := r.ReadAt(head, int64(f.offset)); err != nil || !bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return nil, fmt.Errorf("%w: %s has no local header", errNotZIP, f.name)
	}
	le := binary.LittleEndian
	data := f.offset + 30 + uint64(le.Uint16(head[26:])) + uint64(le.Uint16(head[28:]))
	if data > uint64(size) || f.csize > uint64(size)-data {
		return nil, fmt.Errorf("%w: %s lies past its end", errNotZIP, f.name)
	}
	in := io.NewSectionReader(r, int64(data), int64(f.csize))
	var rc io.ReadCloser
	switch f.method {
	case 0:
		rc = io.NopCloser(in)
	case 8:
		rc = flate.NewReader(in)
	default:
		return nil, fmt.Errorf("%s: compressed in a way this does not read (method %d)", f.name, f.method)
	}
	return &zipChecked{rc: rc, f: f, sum: crc32.NewIEEE()}, nil
}

// zipChecked reads a file's contents, checking their size and checksum.
type zipChecked struct {
	rc  io.ReadCloser
	f   zipEntry
	sum hash.Hash32
	n   uint64
}

func (z *zipChecked) Read(b []byte) (int, error) {
	n, err := z.rc.Read(b)
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("%s: %w", z.f.name, err)
	}
	z.sum.Write(b[:n])
	z.n += uint64(n)
	if z.n > z.f.usize {
		return n, fmt.Errorf("%s: longer than its directory says", z.f.name)
	}
	if err == io.EOF && (z.n != z.f.usize || z.sum.Sum32() != z.f.crc) {
		return n, fmt.Errorf("%s: damaged (its size or checksum is not the directory's)", z.f.name)
	}
	return n, err
}

func (z *zipChecked) Close() error { return z.rc.Close() }
