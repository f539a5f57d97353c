#!/usr/bin/env bash
#
# test/fetch_postgres16.sh -- PostgreSQL 16.2 (server, headers, PGXS,
# pg_regress) as built in the Python package pgserver 0.1.4, fetched with
# pip once per machine; prints the path of its pg_config.
#
# No PostgreSQL 16 sources are at hand (Debian 12 packages 15 only), but
# that wheel carries a relocatable build of 16.2 (pgserver/pginstall, its
# libpq in pgserver.libs).  It is downloaded with `pip download --no-deps`,
# its SHA-256 checked, unpacked to $GPUSCAN_PG_CACHE/16.2-pgserver-0.1.4
# (default /var/cache/gpuscan-postgres as root, else
# ~/.cache/gpuscan-postgres) keeping the files' modes, and a second run finds
# it there and only prints the path.  Its programs find libpq through an
# RPATH relative to themselves ($ORIGIN), which the copy of bin/ that
# test/lib.sh's temporary server runs from would lose: patchelf makes it the
# absolute path of pgserver.libs, as a source build's RPATH is.
#
# Exit status 2 (and a line saying why on stderr) when the wheel cannot be
# fetched (no pip, no network, not x86_64), so that callers can skip
# PostgreSQL 16 with a clear message; 1 on any other failure.  As root on
# Debian, pip (python3-pip) and patchelf are installed with apt-get when
# missing.

set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$here/lib.sh"

pkg=pgserver
pkg_version=0.1.4
pg_version=16.2
wheel=pgserver-0.1.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
wheel_sha256=d595789b47624a3d963aa9aa6359da9be31beb7e61f1a45541953242068b8813

if is_root; then
	cache=${GPUSCAN_PG_CACHE:-/var/cache/gpuscan-postgres}
else
	cache=${GPUSCAN_PG_CACHE:-$HOME/.cache/gpuscan-postgres}
fi
prefix=$cache/$pg_version-$pkg-$pkg_version
pg_config=$prefix/pgserver/pginstall/bin/pg_config

if [ -x "$pg_config" ] && [ -f "$prefix/.complete" ]; then
	echo "$pg_config"
	exit 0
fi

# cannot_fetch TEXT -- say why and exit 2 (the caller skips PostgreSQL 16)
cannot_fetch() {
	msg "PostgreSQL $pg_version: $*"
	exit 2
}

[ "$(uname -m)" = x86_64 ] || cannot_fetch "the $pkg $pkg_version wheel is built for x86_64 only"

if ! python3 -m pip --version >/dev/null 2>&1; then
	if is_root && command -v apt-get >/dev/null 2>&1; then
		msg "installing python3-pip with apt-get"
		( apt_install python3-pip ) || cannot_fetch "python3-pip could not be installed"
		hash -r
	fi
	python3 -m pip --version >/dev/null 2>&1 || cannot_fetch "no pip (python3 -m pip) to fetch $pkg $pkg_version with"
fi

work=$(mktemp -d /tmp/gpuscan-pgfetch.XXXXXX)
remove_on_exit "$work"
log=$work/pip.log
msg "fetching $pkg $pkg_version (PostgreSQL $pg_version) with pip"
# the wheel's tags, whatever python3 this is (only the wheel is used, not the module)
if ! python3 -m pip download --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
		--python-version 3.11 --implementation cp --abi cp311 \
		--dest "$work" "$pkg==$pkg_version" >"$log" 2>&1 || [ ! -f "$work/$wheel" ]; then
	tail -n 5 "$log" | sed 's/^/    /' >&2
	cannot_fetch "pip could not download $pkg==$pkg_version"
fi
(cd "$work" && echo "$wheel_sha256  $wheel" | sha256sum -c --quiet -) ||
	die "$work/$wheel does not have the expected SHA-256 $wheel_sha256"

if ! command -v patchelf >/dev/null 2>&1; then
	is_root && command -v apt-get >/dev/null 2>&1 ||
		die "using PostgreSQL $pg_version from $pkg $pkg_version needs patchelf"
	msg "installing patchelf with apt-get"
	apt_install patchelf
fi

rm -rf "$prefix"
mkdir -p "$prefix"
msg "unpacking it into $prefix"
# zipfile does not keep the modes (executables, pg_regress): set them from the entries
python3 - "$work/$wheel" "$prefix" <<-'EOF' || { rm -rf "$prefix"; die "cannot unpack $wheel"; }
	import os, sys, zipfile
	with zipfile.ZipFile(sys.argv[1]) as z:
	    for entry in z.infolist():
	        if not entry.filename.startswith(("pgserver/pginstall/", "pgserver.libs/")):
	            continue
	        path = z.extract(entry, sys.argv[2])
	        mode = (entry.external_attr >> 16) & 0o777
	        if mode and not entry.is_dir():
	            os.chmod(path, mode)
	EOF

# $ORIGIN-relative RPATHs to pgserver.libs -> its absolute path
libs=$prefix/pgserver.libs
while IFS= read -r -d '' f; do
	rpath=$(patchelf --print-rpath "$f" 2>/dev/null) || continue
	# shellcheck disable=SC2016
	case "$rpath" in
	*'$ORIGIN'*pgserver.libs*)
		patchelf --force-rpath --set-rpath "$libs" "$f" ||
			{ rm -rf "$prefix"; die "patchelf --set-rpath failed on $f"; }
		;;
	esac
done < <(find "$prefix/pgserver/pginstall" -type f \( -perm -u+x -o -name '*.so*' \) -print0)

if [ "$("$pg_config" --version 2>/dev/null)" != "PostgreSQL $pg_version" ]; then
	rm -rf "$prefix"
	die "$pg_config does not run or is not PostgreSQL $pg_version"
fi
touch "$prefix/.complete"
msg "PostgreSQL $pg_version ready in $prefix"
echo "$pg_config"
