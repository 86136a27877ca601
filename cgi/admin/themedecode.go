package admin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hitcounter/counter/digitset"
)

// DecoderName is the program that decodes a set's files for theme add, in
// a process of its own: counter.cgi, which every hit starts, links no image
// decoder. theme add looks for it beside its own executable, then in
// DecoderDir.
const (
	DecoderName = "counter-themedecode"
	DecoderDir  = "/usr/lib/counter"
)

// decoderTimeout bounds a decode: a set of 1 MB takes well under a second
// on a Pi 4; a Pi Zero is some ten times slower.
const decoderTimeout = 2 * time.Minute

// maxDecoded bounds the set the decoder sends back: every pixel of every
// frame as a palette index, the digits' files, and the headers.
const maxDecoded = digitset.MaxPixels + digitset.MaxPieceBytes + 64<<10

// findDecoder returns the path of the decoder: beside this program (a
// build's dist/ folder, a test's), else in DecoderDir (the install's).
func findDecoder() (string, error) {
	var tried []string
	if exe, err := os.Executable(); err == nil {
		tried = append(tried, filepath.Join(filepath.Dir(exe), DecoderName))
	}
	tried = append(tried, filepath.Join(DecoderDir, DecoderName))
	for _, p := range tried {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("no %s to decode the images with (looked for %s): deploy/install.sh and the package install it", DecoderName, strings.Join(tried, " and "))
}

// decodeSet runs the decoder at bin on the bundled files in and returns
// the set it made, read back and checked as a hit would read it. The
// decoder gets an empty environment and no argument: it reads stdin only.
func decodeSet(bin string, in []byte) (*digitset.Set, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	p, err := os.StartProcess(bin, []string{bin}, &os.ProcAttr{Env: []string{}, Files: []*os.File{inR, outW, errW}})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("running %s: %w", bin, err)
	}
	timer := time.AfterFunc(decoderTimeout, func() { p.Kill() })
	defer timer.Stop()
	go func() {
		inW.Write(in) // a decoder that stops reading early says why on stderr
		inW.Close()
	}()
	msg := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(errR, 4<<10))
		io.Copy(io.Discard, errR)
		errR.Close()
		msg <- b
	}()
	out, rerr := io.ReadAll(io.LimitReader(outR, maxDecoded+1))
	if len(out) > maxDecoded {
		p.Kill()
	}
	io.Copy(io.Discard, outR)
	outR.Close()
	state, werr := p.Wait()
	why := strings.TrimSpace(string(bytes.ToValidUTF8(<-msg, []byte("?"))))
	switch {
	case werr != nil:
		return nil, fmt.Errorf("%s: %w", bin, werr)
	case !state.Success() && why != "":
		return nil, errors.New(firstLine(why))
	case !state.Success():
		return nil, fmt.Errorf("%s: %s", bin, state)
	case rerr != nil:
		return nil, fmt.Errorf("%s: %w", bin, rerr)
	case len(out) > maxDecoded:
		return nil, fmt.Errorf("%s: sent more than %d bytes", bin, maxDecoded)
	}
	s, err := digitset.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("%s sent what is no set: %w", bin, err)
	}
	return s, nil
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
