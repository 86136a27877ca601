package store

// formatFileV7Login is a database written by the code of schema version 7
// with passwords: two protected counters (blog and friend, whose passwords
// are formatPasswordsV7), a public one (open), and the one session key of
// version 7 in meta, which signed every counter's sessions. The upgrade
// tests log in to it, and sign a session as version 7 did, to see what the
// sessions of a version 7 file become. formatDumpFileV7Login is its
// listing (dumpFile), written with it. Both were written once, by the
// version 7 code on main at 124904c, with the then TestWriteFormatV7Login
// -write-format-v7-login (this file at 17842bb), and must never be
// written again.
const (
	formatFileV7Login     = "../testdata/format/counter-v7-login.db"
	formatDumpFileV7Login = "../testdata/format/counter-v7-login.dump"
)

// formatPasswordsV7 are the passwords of the v7 login file's counters.
var formatPasswordsV7 = map[string]string{"blog": "blog's v7 password", "friend": "friend's v7 password"}
