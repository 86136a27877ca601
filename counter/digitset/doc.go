// Package digitset is an owner's digit set as the hit counter keeps it:
// ten digit images, and the other pieces the set has (Moe-Counter's _start
// and _end, Count.cgi's comma and dash), each of its own width and height,
// made from a folder of 0.png..9.png or 0.gif..9.gif (Moe-Counter's folder
// layout), of zero.gif..nine.gif ("Digit Mania", which Count.cgi reads) or
// from one strip (Count.cgi's), converted once, when the set is added,
// into a form that a hit draws from without decoding an image file.
//
// Every digit's frames are palette indices into one palette of at most 256
// colours that the whole set shares: the digits' own colours when they hold
// 256 or fewer (fully transparent pixels count as one colour), otherwise a
// median cut of them, which is deterministic, so the same files always make
// the same set. Each digit also keeps its own file (Piece), which an SVG
// embeds, leaving any animation to the browser.
//
// New checks a set on the way in; Marshal and Parse give and read the
// bytes the database keeps, a header record and one record a digit, so that
// a hit reads only the digits it draws. Parse checks every length, count
// and index against the bounds below, so damaged bytes are an error, never
// a panic or a large allocation, and it aliases the pixel bytes it is
// given rather than copying them.
//
// This package decodes no image file: the caller (digitset add) decodes with
// the standard library and hands over frames, so the hit binary links
// neither image/png nor image/gif.
package digitset
