// Package guard keeps the login endpoint from taking the machine down,
// across the separate processes that CGI starts for each request and
// without a daemon: Slots caps how many bcrypt checks run at once, and
// Throttle limits failed logins per client. Both keep their state in a
// runtime directory (normally /run/counter, on tmpfs), so they add no
// writes to the SD card and nothing to a counter hit.
package guard
