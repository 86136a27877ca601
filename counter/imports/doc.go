// Package imports reads other programs' files, and the counter's own
// exports, into a counter's history (counter.Imported): its CSV and JSON
// exports, GoatCounter's CSV export and web servers' access logs, whose
// hits are judged as a live hit would be. It reads only the reader it is
// given; the store writes what it returns.
package imports
