#!/bin/sh
# make.sh writes the feeds and sitemaps that counter/feed's tests read, as
# the real generators write them: a small site of three posts (one title
# with markup characters, one with a non-ASCII word) built with Debian's
# hugo and jekyll (with its jekyll-feed plugin, as Debian packages it). Run from anywhere; it writes next to itself and
# names the versions it ran in versions.txt.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Hugo: index.xml (RSS 2.0) and sitemap.xml, by its built-in templates.
mkdir -p "$work/hugo/content/posts" "$work/hugo/layouts/_default"
cat > "$work/hugo/hugo.toml" <<'T'
baseURL = "https://blog.example/"
title = "A blog"
T
printf '{{ .Content }}\n' > "$work/hugo/layouts/_default/single.html"
printf '{{ range .Pages }}{{ .Title }}{{ end }}\n' > "$work/hugo/layouts/_default/list.html"
post() { # dir name date title
	printf -- "---\ntitle: '%s'\ndate: %s\n---\nText.\n" "$4" "$3" > "$1/$2.md"
}
post "$work/hugo/content/posts" hello 2026-11-01 'Hello, world'
post "$work/hugo/content/posts" tags 2026-11-02 'Tags like <b> & "quotes"'
post "$work/hugo/content/posts" cafe 2026-11-03 'Un café à Paris'
hugo --quiet --source "$work/hugo" --destination "$work/hugo/public" >/dev/null
cp "$work/hugo/public/index.xml" "$here/hugo-index.xml"
cp "$work/hugo/public/sitemap.xml" "$here/hugo-sitemap.xml"

# Jekyll: feed.xml (Atom, jekyll-feed; Debian packages no jekyll-sitemap).
mkdir -p "$work/jekyll/_posts"
cat > "$work/jekyll/_config.yml" <<'T'
title: A blog
url: https://blog.example
plugins:
  - jekyll-feed
T
post "$work/jekyll/_posts" 2026-11-01-hello 2026-11-01 'Hello, world'
post "$work/jekyll/_posts" 2026-11-02-tags 2026-11-02 'Tags like <b> & "quotes"'
post "$work/jekyll/_posts" 2026-11-03-cafe 2026-11-03 'Un café à Paris'
(cd "$work/jekyll" && jekyll build --quiet --destination "$work/jekyll/_site")
cp "$work/jekyll/_site/feed.xml" "$here/jekyll-feed.xml"

{
	hugo version | sed 's/^/hugo: /'
	jekyll --version | sed 's/^/jekyll: /'
	dpkg-query -W -f='${Package} ${Version}\n' ruby-jekyll-feed 2>/dev/null || true
} > "$here/versions.txt"
