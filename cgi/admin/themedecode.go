package admin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hitcounter/counter/digitset"
)

// DecoderName is the program that decodes a set's files for digitset add, in
// a process of its own: counter.cgi, which every hit starts, links no image
// decoder. digitset add looks for it beside its own executable, then in
// DecoderDir.
const (
	DecoderName = "counter-themedecode"
	DecoderDir  = "/usr/lib/counter"
)

// decoderTimeout bounds a decode: far past what the largest set takes on
// the slowest Pi, so that only a decoder that is stuck meets it.
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
// the set it made, read back and checked as a hit would read it.
func decodeSet(bin string, in []byte) (*digitset.Set, error) {
	out, err := runDecoder(bin, nil, in, maxDecoded)
	if err != nil {
		return nil, err
	}
	s, err := digitset.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("%s sent what is no set: %w", bin, err)
	}
	return s, nil
}

// decoderStatus runs the decoder at bin as digitset add would, to print the
// rights and limits it then has, in one line.
func decoderStatus(bin string) (string, error) {
	out, err := runDecoder(bin, []string{"status"}, nil, 4<<10)
	return strings.TrimSpace(string(bytes.ToValidUTF8(out, []byte("?")))), err
}

// decoderUser is whom the decoder runs as when digitset add is run by root.
const decoderUser = "nobody"

// decoderAttr is how the decoder is started: an empty environment, in /,
// killed with its parent; started by root, as decoderUser with no groups
// (the parent has opened and read the files; the decoder needs no right
// to any).
func decoderAttr(files []*os.File) (*os.ProcAttr, error) {
	attr := &os.ProcAttr{Dir: "/", Env: []string{}, Files: files, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	if os.Geteuid() != 0 {
		return attr, nil
	}
	u, err := user.Lookup(decoderUser)
	if err != nil {
		return nil, fmt.Errorf("run as root, the decoder runs as %s: %w", decoderUser, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || uid == 0 || gid == 0 {
		return nil, fmt.Errorf("run as root, the decoder runs as %s, and %s is uid %s gid %s here", decoderUser, decoderUser, u.Uid, u.Gid)
	}
	attr.Sys.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	return attr, nil
}

// runDecoder runs the decoder at bin with args, in on its stdin, and
// returns what it wrote to stdout, at most maxOut bytes. A decoder that
// fails says why in the first line of its stderr.
func runDecoder(bin string, args []string, in []byte, maxOut int) ([]byte, error) {
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
	attr, err := decoderAttr([]*os.File{inR, outW, errW})
	var p *os.Process
	if err == nil {
		p, err = os.StartProcess(bin, append([]string{bin}, args...), attr)
		if err != nil {
			err = fmt.Errorf("running %s: %w", bin, err)
			if attr.Sys.Credential != nil {
				err = fmt.Errorf("%w (as %s: the decoder and its folders must be readable and executable by all)", err, decoderUser)
			}
		}
	}
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
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
	out, rerr := io.ReadAll(io.LimitReader(outR, int64(maxOut)+1))
	if len(out) > maxOut {
		p.Kill()
	}
	io.Copy(io.Discard, outR)
	outR.Close()
	state, werr := p.Wait()
	why := strings.TrimSpace(string(bytes.ToValidUTF8(<-msg, []byte("?"))))
	switch {
	case werr != nil:
		return nil, fmt.Errorf("%s: %w", bin, werr)
	case !state.Success() && state.ExitCode() == 2 && why != "":
		// Go's runtime: its memory limit reached, or a bug.
		return nil, fmt.Errorf("%s stopped: %s", filepath.Base(bin), firstLine(why))
	case !state.Success() && why != "":
		return nil, errors.New(firstLine(why))
	case !state.Success():
		return nil, fmt.Errorf("%s: %s", bin, state)
	case rerr != nil:
		return nil, fmt.Errorf("%s: %w", bin, rerr)
	case len(out) > maxOut:
		return nil, fmt.Errorf("%s: sent more than %d bytes", bin, maxOut)
	}
	return out, nil
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
