package admin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"hitcounter/counter"
	"hitcounter/store"
)

// maxSecretLine bounds what passwd reads from stdin.
const maxSecretLine = 1024

// runPasswd sets, clears or imports the password of a counter's statistics,
// or with -owner the owner's, which opens every counter's.
// The password comes from the terminal without echo (asked twice) or from
// stdin, never from the command line, and is never printed or logged.
func runPasswd(e *cmdEnv, args []string) error {
	if e.clear && e.importHash {
		return usagef("passwd: -clear and -hash do not go together")
	}
	if e.owner {
		if len(args) > 0 {
			return usagef("passwd: -owner takes no counter's name")
		}
		return runPasswdOwner(e)
	}
	if len(args) == 0 {
		return usagef("passwd: a counter's NAME, or -owner")
	}
	name := args[0]
	if err := checkedName(name); err != nil {
		return err
	}
	// Fail on an unknown counter before asking for anything.
	if err := e.view(func(db *store.DB) error { _, err := db.Counter(name); return err }); err != nil {
		return err
	}
	hash, err := e.readHash("the statistics of " + name)
	if err != nil {
		return err
	}
	if err := e.update(false, func(db *store.DB) error { return db.SetPasswordHash(name, hash) }); err != nil {
		return err
	}
	if hash == nil {
		fmt.Fprintf(e.stdout, "the statistics of %s are public now\n", name)
	} else {
		fmt.Fprintf(e.stdout, "the statistics of %s are protected now; every earlier login has ended\n", name)
	}
	return nil
}

// runPasswdOwner sets or removes the owner's password, as runPasswd does
// a counter's: the owner's login opens every counter's statistics.
func runPasswdOwner(e *cmdEnv) error {
	hash, err := e.readHash("the owner's login")
	if err != nil {
		return err
	}
	if err := e.update(false, func(db *store.DB) error { return db.SetOwnerPasswordHash(hash) }); err != nil {
		return err
	}
	if hash == nil {
		fmt.Fprintln(e.stdout, "the owner's password is removed; every owner's login has ended (each counter's own password still works)")
	} else {
		fmt.Fprintln(e.stdout, "the owner's password is set; it opens every counter's statistics at /cgi-bin/counter.cgi/login; every earlier owner's login has ended")
	}
	return nil
}

// readHash is the hash that passwd stores for what: nil with -clear, the
// one read from stdin with -hash, or the bcrypt hash at the pinned cost of
// a new password, asked for.
func (e *cmdEnv) readHash(what string) ([]byte, error) {
	var hash []byte
	switch {
	case e.clear:
	case e.importHash:
		line, err := readSecretLine(e.stdin)
		if err != nil {
			return nil, fmt.Errorf("passwd: read hash: %w", err)
		}
		cost, err := counter.HashCost(line)
		if err != nil {
			return nil, fmt.Errorf("passwd: %w", err)
		}
		if cost != counter.PasswordCost {
			fmt.Fprintf(e.stderr, "note: the hash has cost %d; the first login replaces it with one at cost %d\n", cost, counter.PasswordCost)
		}
		hash = line
	default:
		password, err := e.newPassword(what)
		if err != nil {
			return nil, err
		}
		if hash, err = counter.HashPassword(password); err != nil {
			return nil, fmt.Errorf("passwd: %w; the stored password is unchanged", err)
		}
	}
	return hash, nil
}

// newPassword asks for the password twice without echo when stdin is a
// terminal, and otherwise reads its first line.
func (e *cmdEnv) newPassword(what string) ([]byte, error) {
	f, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		p, err := readSecretLine(e.stdin)
		if err != nil {
			return nil, fmt.Errorf("passwd: read password from stdin: %w", err)
		}
		return p, nil
	}
	fmt.Fprintf(e.stderr, "New password for %s: ", what)
	p1, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.stderr)
	if err != nil {
		return nil, fmt.Errorf("passwd: %w", err)
	}
	fmt.Fprint(e.stderr, "Again: ")
	p2, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.stderr)
	if err != nil {
		return nil, fmt.Errorf("passwd: %w", err)
	}
	if !bytes.Equal(p1, p2) {
		return nil, errors.New("passwd: the passwords differ; the stored password is unchanged")
	}
	return p1, nil
}

// readSecretLine reads one line from r, without its line ending, refusing
// a line longer than maxSecretLine.
func readSecretLine(r io.Reader) ([]byte, error) {
	line, err := bufio.NewReaderSize(r, maxSecretLine+2).ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("line longer than %d bytes", maxSecretLine)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	s := strings.TrimRight(string(line), "\r\n")
	return []byte(s), nil
}
