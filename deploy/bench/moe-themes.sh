#!/bin/bash
# moe-themes.sh GITDIR: takes every digit set in Moe-Counter's assets/theme/,
# read from GITDIR (a clone of journey-ad/Moe-Counter, bare or not, at the
# commit to measure), with the built binary's digitset add, and draws an
# eight-digit count in each through the binary run as CGI, in PNG, GIF and
# SVG: one line a set, with what digitset add said of it and each
# answer's status and body size. The images stay in a temporary folder.
set -u
G=${1:?usage: moe-themes.sh GITDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d)
chmod 755 "$W" # run by root, digitset add starts the decoder as nobody
trap 'rm -rf "$W"' EXIT
(cd "$ROOT" && go build -o "$W/counter.cgi" ./cgi && go build -o "$W/counter-themedecode" ./cgi/themedecode) || exit 1
mkdir -m 700 "$W/run"
export COUNTER_DB=$W/counter.db
"$W/counter.cgi" create blog 12345677 >/dev/null 2>&1
echo "# Moe-Counter $(git -C "$G" rev-parse HEAD)"
ENV=$(grep -v '^PATH_INFO\|^QUERY\|^REQUEST_URI' "$ROOT/testdata/cgienv/lighttpd-direct.env")
for t in $(git -C "$G" ls-tree --name-only HEAD assets/theme/ | sed 's|assets/theme/||'); do
  d=$W/sets/$t
  mkdir -p "$d"
  for f in $(git -C "$G" ls-tree --name-only HEAD "assets/theme/$t/"); do
    git -C "$G" show "HEAD:$f" >"$d/$(basename "$f")"
  done
  name=$(echo "$t" | tr -c 'a-z0-9\n' 'x')
  if ! out=$("$W/counter.cgi" digitset add "$name" "$d" 2>&1); then
    echo "$t | refused: ${out##*: }"
    continue
  fi
  desc=$(echo "$out" | sed 's/^added digit set [^:]*: //; s/; show it.*//')
  res=""
  for ext in png gif svg; do
    q="theme=$name&count=0&digits=8"
    # shellcheck disable=SC2086
    env -i $ENV COUNTER_DB="$COUNTER_DB" COUNTER_RUN_DIR="$W/run" PATH_INFO="/blog.$ext" QUERY_STRING="$q" \
      REQUEST_URI="/cgi-bin/counter.cgi/blog.$ext?$q" "$W/counter.cgi" >"$W/out" 2>/dev/null
    head=$(sed -n '1,/^\r$/p' "$W/out")
    status=$(echo "$head" | head -1 | tr -d '\r')
    res="$res $ext ${status#Status: } $(($(stat -c %s "$W/out") - ${#head} - 1)) B;"
  done
  echo "$t | $desc |$res"
done
