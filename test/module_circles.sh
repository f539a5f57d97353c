#!/usr/bin/env bash
#
# test/module_circles.sh -- the circles between the modules of src/, from
# their includes, against the ones known today (test/module_circles.known),
# and the layers of its folders: which folder may include which
#
#   test/module_circles.sh           check: fails on a circle not known
#   test/module_circles.sh --print   print today's circles, one a line
#
# A module is a file of src/ without its ending, named by its path under
# src/: functions/sum.c and functions/sum.h are module functions/sum.
# Module x depends on module y where x.c or x.h includes "y.h" (headers
# that no file of src/ implements, as PostgreSQL's, kernels' and common's,
# are left out).  A folder of src/ (a subsystem: functions/, service/, ...)
# depends on another where one of its modules depends on one of the
# other's.  A circle is a set of two or more modules (or folders) each of
# which depends on every other, directly or through others (a strongly
# connected component).  Each line of the known file is one circle, its
# members sorted and separated by spaces; a folder is written with a
# trailing slash.  The check fails where a circle is not within one known
# circle: a new circle, or a module or folder that joined one.  A known
# circle that shrank or went passes; then shrink the known file too
# (--print writes today's).  Prints "N passed, N failed, N skipped" last,
# as the other checks do.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
KNOWN=test/module_circles.known

# module_edges -- "x y" for each include of module y's header by module x
module_edges() {
	local f x y
	for f in src/*.c src/*/*.c src/*/*.h; do
		[ -f "$f" ] || continue
		x=${f#src/}
		x=${x%.*}
		sed -nE 's/^#include "([a-z_0-9/]+)\.h".*/\1/p' "$f" | while read -r y; do
			[ "$y" != "$x" ] && { [ -f "src/$y.c" ] || [ -f "src/$y.h" ]; } && echo "$x $y"
		done
	done | sort -u
}

# folder_edges -- "x/ y/" for each module edge between two folders
folder_edges() {
	module_edges | awk '{
		split($1, a, "/"); split($2, b, "/")
		if ($1 ~ /\//) { x = a[1] "/" } else { x = "./" }
		y = b[1] "/"
		if (x != y) print x, y
	}' | sort -u
}

# edges -- the module edges and the folder edges
edges() {
	module_edges
	folder_edges
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

# The layers: the folders each folder of src/ may include besides itself
# (docs/design.md, "The tree").  The service's process runs service/,
# ipc/ and cpu/ only; a session runs everything but service/.
declare -A LAYERS=(
	[cpu]=""
	[pg]="cpu"
	[ipc]="cpu"
	[service]="ipc cpu"
	[dispatch]="ipc pg cpu"
	[client]="dispatch ipc pg cpu"
	[functions]="client dispatch ipc pg cpu"
	[planner]="functions client dispatch ipc pg cpu"
)

# layer_breaks -- "x/m y/n" for each include that its folder's layer does not allow
layer_breaks() {
	local x y fx fy
	module_edges | while read -r x y; do
		[[ "$x" == */* ]] || continue
		fx=${x%%/*}
		fy=${y%%/*}
		[ "$fx" = "$fy" ] && continue
		if [ -z "${LAYERS[$fx]+set}" ]; then
			echo "$x $y (folder $fx/ has no layer in test/module_circles.sh)"
		elif [[ " ${LAYERS[$fx]} " != *" $fy "* ]]; then
			echo "$x $y"
		fi
	done
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
		echo "FAILED a circle between modules (or folders) of src/ that $KNOWN does not know: $circle"
	fi
done < <(circles)
if [ "$failed" = 0 ]; then
	echo "ok     no new circle between the modules or folders of src/ ($passed known ones, $KNOWN)"
fi
breaks=$(layer_breaks)
if [ -z "$breaks" ]; then
	passed=$((passed + 1))
	echo "ok     every folder of src/ includes only the folders of its layer"
else
	failed=$((failed + 1))
	echo "FAILED includes across the layers of src/ (module, and the module it includes):"
	sed 's/^/    /' <<<"$breaks"
fi
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
