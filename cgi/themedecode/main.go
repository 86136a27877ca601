// Command counter-themedecode decodes an owner's digit set for
// "counter.cgi digitset add", in a process of its own, so that counter.cgi,
// which every hit starts, links no image decoder (cgi/deps_test.go keeps
// image/png and image/gif out of it).
//
// It reads from stdin the set's files as digitset add read them (a
// digitsetfile.Bundle, at most digitsetfile.MaxSetBytes of files), decodes them
// with the standard library (package counter/digitsetfile/decode) and writes
// the set as digitset.Set.Marshal gives it to stdout. A set that fails
// makes one line on stderr, naming the digit and why, and exit status 1.
// It opens no file: digitset add chooses what it reads, and hands it over.
// Run by a web server (GATEWAY_INTERFACE set), it does nothing.
//
// Before it reads a byte it confines itself (confine.go): no new
// privileges, and limits on its memory, CPU time and open files. theme
// add, run by root, starts it as nobody with no groups. With the one
// argument "status" it prints, instead of decoding, the rights and limits
// it runs with, as the kernel has them (doctor shows them).
//
// It is installed beside counter.cgi, or in /usr/lib/counter, where theme
// add looks for it (deploy/install.sh, deploy/build.sh).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"hitcounter/counter/digitsetfile"
	"hitcounter/counter/digitsetfile/decode"
)

func main() {
	if err := confine(); err != nil {
		fmt.Fprintln(os.Stderr, "counter-themedecode:", err)
		os.Exit(1)
	}
	if err := run(os.Args, os.Getenv, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// maxInput bounds what is read from stdin: the files and their names.
const maxInput = digitsetfile.MaxSetBytes + 64<<10

func run(args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) error {
	if getenv("GATEWAY_INTERFACE") != "" {
		return errors.New("counter-themedecode is run by counter digitset add, not by a web server")
	}
	if len(args) == 2 && args[1] == "status" {
		line, err := status()
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		_, err = fmt.Fprintln(stdout, line)
		return err
	}
	if len(args) > 1 {
		return errors.New("counter-themedecode takes no arguments but status: counter digitset add NAME PATH runs it")
	}
	in, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err != nil {
		return fmt.Errorf("reading the files: %w", err)
	}
	if len(in) > maxInput {
		return fmt.Errorf("more than %d bytes of files", digitsetfile.MaxSetBytes)
	}
	b, err := digitsetfile.Unmarshal(in)
	if err != nil {
		return err
	}
	s, err := decode.Set(b)
	if err != nil {
		return err
	}
	_, err = stdout.Write(s.Marshal())
	return err
}
