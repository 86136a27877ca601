package admin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"hitcounter/counter/digitsetfile"
)

// readDigitSetFiles reads the files of a digit set at path: a folder of
// 0.png..9.png, 0.gif..9.gif, 0.jpg..9.jpg (or .jpeg) or 0.webp..9.webp,
// or one strip image. path itself is the
// owner's word and may be a link he made; the digits' files are opened
// in the folder it names without following a link (a link there may be
// anyone's), and each must be a plain file that the person who ran the
// command may read (run with sudo, the command must not show him an
// image he could not open). path is opened without waiting (a named pipe
// would wait for a writer) and must be a folder or a plain file. At most
// digitsetfile.MaxSetBytes are read, all files counted, whatever a file's
// size says.
func (e *cmdEnv) readDigitSetFiles(path string) (digitsetfile.Bundle, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return digitsetfile.Bundle{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return digitsetfile.Bundle{}, err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return digitsetfile.Bundle{}, fmt.Errorf("%s, not a folder or a plain file: a set is a folder of ten images or one strip image", kindOf(fi.Mode()))
	}
	budget := digitsetfile.MaxSetBytes
	if !fi.IsDir() {
		name := filepath.Base(path)
		data, err := e.readDigitSetFile(f, &budget)
		if err != nil {
			return digitsetfile.Bundle{}, err // the caller names path
		}
		return digitsetfile.Bundle{Layout: digitsetfile.Strip, Names: []string{name}, Data: [][]byte{data}}, nil
	}
	// The folder's layout is the extension most digits have, the first
	// on a tie.
	var layout, ext string
	var files [10]*os.File
	var missing []int
	for _, fe := range folderExts {
		fs, m := openDigits(f, fe.ext)
		defer closeAll(fs)
		if layout == "" || len(m) < len(missing) {
			layout, ext, files, missing = fe.layout, fe.ext, fs, m
		}
	}
	if len(missing) == 10 {
		return digitsetfile.Bundle{}, noDigits(f)
	}
	if len(missing) > 0 {
		i := missing[0]
		return digitsetfile.Bundle{}, fmt.Errorf("digit %d: %s: %w (a folder holds 0%s to 9%s)", i, strconv.Itoa(i)+ext, errMissingFile(f, strconv.Itoa(i)+ext), ext, ext)
	}
	b := digitsetfile.Bundle{Layout: layout}
	for i, df := range files {
		name := strconv.Itoa(i) + ext
		data, err := e.readDigitSetFile(df, &budget)
		if err != nil {
			return digitsetfile.Bundle{}, fmt.Errorf("digit %d: %s: %w", i, name, err)
		}
		b.Names, b.Data = append(b.Names, name), append(b.Data, data)
	}
	return b, nil
}

// folderExts are the file name endings of a folder's digits, with the
// layout each makes: those Moe-Counter's themify.js takes.
var folderExts = []struct{ ext, layout string }{
	{".png", digitsetfile.PNGFolder},
	{".gif", digitsetfile.GIFFolder},
	{".jpg", digitsetfile.JPEGFolder},
	{".jpeg", digitsetfile.JPEGFolder},
	{".webp", digitsetfile.WebPFolder},
}

// openDigits opens 0EXT..9EXT in the folder dir without following links,
// and returns the files (nil where one could not be opened) and the
// digits not opened.
func openDigits(dir *os.File, ext string) (files [10]*os.File, missing []int) {
	for i := range files {
		name := strconv.Itoa(i) + ext
		fd, err := syscall.Openat(int(dir.Fd()), name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			missing = append(missing, i)
			continue
		}
		files[i] = os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name))
	}
	return files, missing
}

// openErr is why name in dir cannot be opened as openDigits opens it, or
// nil.
func openErr(dir *os.File, name string) error {
	fd, err := syscall.Openat(int(dir.Fd()), name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err == nil {
		syscall.Close(fd)
	}
	return err
}

// errMissingFile says why file in dir was not opened.
func errMissingFile(dir *os.File, name string) error {
	switch err := openErr(dir, name); {
	case errors.Is(err, syscall.ELOOP):
		return errors.New("a symbolic link: copy the image itself into the folder")
	case errors.Is(err, syscall.ENOENT):
		return errors.New("missing")
	case err != nil:
		return err
	}
	return errors.New("missing")
}

// noDigits says why the folder dir has none of 0.png..9.png,
// 0.gif..9.gif and the others to open: the links among them, if any,
// named.
func noDigits(dir *os.File) error {
	for _, fe := range folderExts {
		ext := fe.ext
		var links []string
		for i := range 10 {
			name := strconv.Itoa(i) + ext
			if errors.Is(openErr(dir, name), syscall.ELOOP) {
				links = append(links, name)
			}
		}
		switch {
		case len(links) == 1:
			return fmt.Errorf("%s is a symbolic link: copy the image itself into the folder", links[0])
		case len(links) > 1:
			return fmt.Errorf("%s are symbolic links: copy the images themselves into the folder", strings.Join(links, ", "))
		}
	}
	return errors.New("no digits: a set's folder holds 0.png to 9.png, or 0.gif to 9.gif, 0.jpg to 9.jpg, 0.webp to 9.webp")
}

func closeAll(files [10]*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// readDigitSetFile reads the open file f, a plain file that the person who
// ran the command may read, taking its bytes from budget.
func (e *cmdEnv) readDigitSetFile(f *os.File, budget *int) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s, not a plain file", kindOf(fi.Mode()))
	}
	if !e.runnerMayRead(f) {
		return nil, errors.New("you may not read this file: a set is made of files you may read")
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(*budget)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > *budget {
		return nil, fmt.Errorf("too big: the set passes %d bytes (1 MB) with this file", digitsetfile.MaxSetBytes)
	}
	*budget -= len(data)
	return data, nil
}

// kindOf names the kind of file that is not a plain file or a folder.
func kindOf(m fs.FileMode) string {
	switch m.Type() {
	case fs.ModeNamedPipe:
		return "a named pipe"
	case fs.ModeSocket:
		return "a socket"
	case fs.ModeDevice, fs.ModeDevice | fs.ModeCharDevice:
		return "a device"
	case fs.ModeSymlink:
		return "a symbolic link"
	}
	return "a " + m.Type().String()
}
