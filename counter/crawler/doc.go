// Package crawler tells the User-Agents of crawlers apart, with exactly
// the verdicts of github.com/x-way/crawlerdetect, the version go.mod
// requires, whose patterns come from JayBizzle/Crawler-Detect.
//
// crawlerdetect compiles its 1452 crawler patterns and 53 exclusions into
// two regexps when its package initialises, milliseconds in every process
// that links it, and matches a browser's User-Agent in hundreds of
// microseconds. A CGI
// hit is a fresh process, so the binary must not link it. Instead
// patterns.go holds the same patterns compiled ahead of time by
// regexp/syntax into plain arrays, which the Go compiler lays out
// statically: the package does nothing at start-up. A small backtracking
// machine runs them with regexp's leftmost-first semantics, and a
// trigram index of the texts each pattern needs picks the few patterns
// worth running, so a User-Agent takes a few microseconds.
//
// patterns.go is made from the module's crawlers.go and exclusions.go
// by the tests; after changing crawlerdetect's version in go.mod, run
//
//	go test ./counter/crawler -update
//
// and the tests then compare every verdict with crawlerdetect's on its
// own fixtures.
package crawler
