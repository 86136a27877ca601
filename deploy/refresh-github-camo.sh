#!/usr/bin/env bash
# deploy/refresh-github-camo.sh [META.json] - refresh the addresses from
# which a hit with GitHub's image proxy's User-Agent counts as the proxy's.
#
# Fetches GitHub's meta API (https://api.github.com/meta, no token needed)
# or reads a copy of it saved as META.json, then
#   - rewrites counter/githubcamo.txt with its "hooks" networks and today's
#     date (the comment at the top of the file is kept), and
#   - regenerates counter/githubcamo.go from it,
# and shows what changed. Review the diff, run the counter's tests and
# commit both files; the binary carries the list, so owners get it with
# the next build.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [ $# -ge 1 ]; then
	cp -- "$1" "$tmp"
else
	curl -fsS --max-time 30 -H 'Accept: application/vnd.github+json' \
		https://api.github.com/meta -o "$tmp"
fi
go test -count=1 ./counter -run '^TestGitHubCamoList$' -update -github-meta "$tmp"
go test -count=1 ./counter -run 'Camo'
git --no-pager diff --stat -- counter/githubcamo.txt counter/githubcamo.go
git --no-pager diff -- counter/githubcamo.txt
