<?php
// counter.php - the PHP reference for the benchmarks (issue 7): what a
// site owner on PHP-FPM would write for the same job. Each request adds one
// to a number kept in a file under an exclusive flock and answers with the
// new count as a PNG: six zero-padded digits drawn by GD's imagettftext in
// Go Mono (Debian's fonts-go), black on white, 104x29 px, the digits
// covering about the same 94x19 px as counter.cgi's default image.
//
// The pool's environment chooses (env[...] in the pool config):
//   COUNTER_FILE   the file holding the count (made on first use)
//   COUNTER_FSYNC  "1": fsync the file before answering, as counter.cgi's
//                  bbolt commit does; anything else: leave it to the kernel
//   COUNTER_FONT   the TTF file (default Debian's Go Mono)
// deploy/bench/bench-fastcgi.sh runs it in two pools, one with each COUNTER_FSYNC.

$file = getenv('COUNTER_FILE') ?: __DIR__ . '/count.txt';
$font = getenv('COUNTER_FONT') ?: '/usr/share/fonts/fonts-go/Go-Mono.ttf';
$sync = getenv('COUNTER_FSYNC') === '1';

header('Cache-Control: no-cache, no-store, must-revalidate, max-age=0');
header('Pragma: no-cache');
header('Expires: 0');
header('X-Content-Type-Options: nosniff');

$count = null;
$fp = fopen($file, 'c+');
if ($fp !== false && flock($fp, LOCK_EX)) {
    $count = (int) stream_get_contents($fp) + 1;
    // The new number is never shorter than the old one, so writing it over
    // the old one from offset 0 leaves no stale digits.
    if (rewind($fp) && fwrite($fp, (string) $count) !== false && fflush($fp)
        && (!$sync || fsync($fp))) {
        // counted
    } else {
        $count = null;
    }
    flock($fp, LOCK_UN);
}
if ($fp !== false) {
    fclose($fp);
}
if ($count === null) {
    error_log("counter.php: cannot count a hit in $file");
    http_response_code(503);
}

$text = $count === null ? '------' : sprintf('%06d', $count);
$im = imagecreate(104, 29); // paletted, as counter.cgi's images
$white = imagecolorallocate($im, 255, 255, 255); // the first colour is the background
$black = imagecolorallocate($im, 0, 0, 0);
imagettftext($im, 20, 0, 5, 24, $black, $font, $text);
header('Content-Type: image/png');
imagepng($im);
imagedestroy($im);
