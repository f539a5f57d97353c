#!/usr/bin/env bash
#
# test/doc_links.sh -- the documentation's links: every relative link of the
# Markdown files below points to a file that exists and, with a #anchor, to
# a heading of that file (GitHub's anchors); every results file named in a
# tracked file outside bench/results/ (documentation, scripts, sources)
# exists there; and every file in bench/results/ has its row in
# bench/results/README.md.
#
#   bash test/doc_links.sh      prints each problem; exit status 1 if any

set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

docs=(README.md CONTRIBUTING.md CHANGELOG.md docs/*.md bench/results/README.md test/fuzz/README.md)
bad=0

# outside_code FILE -- FILE without its fenced code blocks
outside_code() {
	awk '/^```/ { code = !code; next } !code' "$1"
}

# anchors FILE -- the anchors of FILE's headings, one a line
anchors() {
	outside_code "$1" | sed -n 's/^#\{1,6\} \{1,\}//p' |
		LC_ALL=C tr '[:upper:]' '[:lower:]' | LC_ALL=C sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g' |
		awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}

for f in "${docs[@]}"; do
	dir=$(dirname "$f")
	while IFS= read -r link; do
		case $link in http://* | https://* | mailto:*) continue ;; esac
		path=${link%%#*}
		anchor=
		[[ $link == *#* ]] && anchor=${link#*#}
		target=$f
		[[ -n $path ]] && target=$dir/$path
		if [[ ! -e $target ]]; then
			echo "$f: ($link): no such file: $target"
			bad=1
		elif [[ -n $anchor && $target == *.md ]] && ! anchors "$target" | grep -qxF -- "$anchor"; then
			echo "$f: ($link): no heading with the anchor #$anchor in $target"
			bad=1
		fi
	done < <(outside_code "$f" | grep -oE '\]\([^)[:space:]]+\)' | sed 's/^](\(.*\))$/\1/')
done

# results files named outside bench/results/ (the index's rows are links,
# checked above; it also names the files removed from it)
while IFS= read -r name; do
	if [[ ! -e bench/results/$name ]]; then
		echo "named but not in bench/results/: $name ($(git grep -lF "$name" -- . ':!bench/results/*' | tr '\n' ' '))"
		bad=1
	fi
done < <(git grep -ohE '\b[a-z][a-z0-9-]*-20[0-9]{2}-[0-9]{2}-[0-9]{2}[a-z0-9-]*\.(md|txt|log|patch)\b' \
	-- . ':!bench/results/*' | sort -u)

for path in bench/results/*; do
	name=${path##*/}
	[[ $name == README.md ]] && continue
	if ! grep -qF -- "[$name]($name)" bench/results/README.md; then
		echo "bench/results/README.md: no row for $name"
		bad=1
	fi
done

[[ $bad == 0 ]] && echo "doc links: ok"
exit $bad
