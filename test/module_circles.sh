#!/usr/bin/env bash
#
# test/module_circles.sh -- the circles between the modules of src/, from
# their includes, against the ones known today (test/module_circles.known)
#
#   test/module_circles.sh           check: fails on a circle not known
#   test/module_circles.sh --print   print today's circles, one a line
#
# A module is a file name without its ending: x.c and x.h are module x.
# Module x depends on module y where x.c or x.h includes "y.h" (headers
# that no file of src/ implements, as PostgreSQL's, kernels' and common's,
# are left out).  A circle is a set of two or more modules each of which
# depends on every other, directly or through others (a strongly connected
# component).  Each line of the known file is one circle, its modules
# sorted and separated by spaces.  The check fails where a circle is not
# within one known circle: a new circle, or a module that joined one.  A
# known circle that shrank or went passes; then shrink the known file too
# (--print writes today's).  Prints "N passed, N failed, N skipped" last,
# as the other checks do.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
KNOWN=test/module_circles.known

# edges -- "x y" for each include of module y's header by module x
edges() {
	local f x y
	for f in src/*.c src/*.h; do
		x=$(basename "$f")
		x=${x%.*}
		sed -nE 's/^#include "([a-z_0-9]+)\.h".*/\1/p' "$f" | while read -r y; do
			[ "$y" != "$x" ] && { [ -f "src/$y.c" ] || [ -f "src/$y.h" ]; } && echo "$x $y"
		done
	done | sort -u
}

# circles -- the strongly connected components of two modules or more,
# from the transitive closure of the edges (a few dozen modules)
circles() {
	edges | awk '
		{ id($1); id($2); reach[idx[$1], idx[$2]] = 1 }
		function id(m) { if (!(m in idx)) { idx[m] = n; name[n] = m; n++ } }
		END {
			for (k = 0; k < n; k++)
				for (i = 0; i < n; i++)
					if ((i, k) in reach)
						for (j = 0; j < n; j++)
							if ((k, j) in reach)
								reach[i, j] = 1
			for (i = 0; i < n; i++) {
				if (i in done)
					continue
				line = ""
				for (j = 0; j < n; j++)
					if (j == i || (((i, j) in reach) && ((j, i) in reach))) {
						done[j] = 1
						line = line " " name[j]
					}
				print line
			}
		}' | while read -r line; do
		# sorted modules; only circles of two or more
		set -- $line
		[ $# -ge 2 ] && tr ' ' '\n' <<<"$line" | sort | tr '\n' ' ' | sed 's/ $//' && echo
	done | sort
}

if [ "${1:-}" = --print ]; then
	circles
	exit 0
fi

passed=0
failed=0
while read -r circle; do
	[ -n "$circle" ] || continue
	ok=0
	while read -r known; do
		# every module of the circle is in this known circle
		inside=1
		for m in $circle; do
			[[ " $known " == *" $m "* ]] || inside=0
		done
		[ "$inside" = 1 ] && ok=1
	done < <(grep -v '^#' "$KNOWN")
	if [ "$ok" = 1 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED a circle between modules of src/ that $KNOWN does not know: $circle"
	fi
done < <(circles)
if [ "$failed" = 0 ]; then
	echo "ok     no new circle between the modules of src/ ($passed known ones, $KNOWN)"
fi
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
