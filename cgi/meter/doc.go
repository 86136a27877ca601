// Package meter is the counter's cost meter: it measures what the program
// costs on the machine it runs on, and says when that has moved. It owns
// the whole of it:
//
//   - the kinds of work it times (Kind), each request's wall and CPU time
//     and each commit's, counted into a day's histograms (Histogram) in
//     files of the runtime directory (Meter, Read), shared by every CGI
//     process and a FastCGI process;
//   - the figures a day keeps (Figures, Day: count, p50, p90 and p99) and
//     their records in the database's history (Day.Encode, DecodeDay,
//     Build.Encode, DecodeBuild, KeepWarnings);
//   - the rules that judge them (Check, CheckBuild, Day.Replaces) and what
//     doctor and the statistics page show of them (Shown, Trend).
//
// The process that starts a new UTC day's file folds the days before it
// into the history (Hooks.Fold), and the request that completes a new
// build's first BuildRequests of a kind has them judged against the build
// before (Hooks.Build). The store keeps the records and runs the rules in
// its transactions (store/costs.go), which is why this package sits below
// the store and imports nothing of the house: the runtime directory comes
// in as a Dir. The pages (cgi/web) and the commands (cgi/admin) show what
// it measured.
//
// # Files
//
// In the runtime directory (COUNTER_RUN_DIR, on tmpfs), mode 0600:
//
//	costs-YYYY-MM-DD   a day's histograms
//	costs-build        the running build's first BuildRequests
//	                   requests of each kind
//
// Both have the same layout, in the machine's own byte order (the files
// never leave it):
//
//	offset  size  field
//	0       16    magic "counter-costs" and three zero bytes
//	16      4     format version, 1
//	20      4     kinds, NumKinds
//	24      4     buckets, Buckets
//	28      4     zero
//	32      24    costs-build: the requests of each kind so far (uint32
//	              each), which go on past the ones in its histograms
//	56      8     zero
//	64      ...   for each kind, a histogram of wall times then one of CPU
//	              times: Buckets uint32 counts each
//	4672    128   costs-build: the build's ID, a length byte then the
//	              text; zero in a day's file
//
// Counts are added with atomic adds to a shared mapping of the file: no
// lock, no lost update, and a hit never waits on another. A file of the
// wrong size or with a bad header is made anew. There is no fsync: a
// reboot loses the day's histograms, never a count, and the days folded
// before it are in the database.
package meter
