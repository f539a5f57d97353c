#!/usr/bin/env bash
#
# test/build_postgres.sh VERSION -- build PostgreSQL VERSION (e.g. 17.11)
# from ../shared/postgres/postgresql-VERSION-src.tar.xz, once per machine,
# and print the path of its pg_config.
#
# The build goes to $GPUSCAN_PG_CACHE/VERSION (default
# /var/cache/gpuscan-postgres as root, else ~/.cache/gpuscan-postgres): a
# second run finds it there and only prints the path.  The tarball's
# SHA256SUMS entry is checked first.  Exit status 2 (and a line saying so on
# stderr) when the tarball is missing, so that callers can skip that
# version with a clear message; 1 on any other failure.
#
# Building needs bison and flex (and a C compiler); as root on Debian they
# are installed with apt-get when missing.  About 2 minutes on 2 cores.

set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$here/lib.sh"

version=${1:?usage: test/build_postgres.sh VERSION}
srcdir=${GPUSCAN_PG_SOURCES:-$GPUSCAN_ROOT/../shared/postgres}
tarball=$srcdir/postgresql-$version-src.tar.xz
if is_root; then
	cache=${GPUSCAN_PG_CACHE:-/var/cache/gpuscan-postgres}
else
	cache=${GPUSCAN_PG_CACHE:-$HOME/.cache/gpuscan-postgres}
fi
prefix=$cache/$version

if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.complete" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi
if [ ! -f "$tarball" ]; then
	msg "PostgreSQL $version: no source tarball at $tarball"
	exit 2
fi
if [ -f "$srcdir/SHA256SUMS" ]; then
	(cd "$srcdir" && grep " postgresql-$version-src.tar.xz\$" SHA256SUMS | sha256sum -c --quiet -) ||
		die "PostgreSQL $version: $tarball does not match $srcdir/SHA256SUMS"
fi

ensure_build_tools
missing=()
command -v bison >/dev/null 2>&1 || missing+=(bison)
command -v flex >/dev/null 2>&1 || missing+=(flex)
if [ ${#missing[@]} -gt 0 ]; then
	is_root && command -v apt-get >/dev/null 2>&1 ||
		die "building PostgreSQL $version needs: ${missing[*]}"
	msg "installing ${missing[*]} with apt-get"
	apt_install "${missing[@]}"
fi

build=$(mktemp -d /tmp/gpuscan-pgbuild.XXXXXX)
remove_on_exit "$build"
log=$build/build.log
msg "building PostgreSQL $version into $prefix (log: $log)"
tar -xJf "$tarball" -C "$build"
rm -rf "$prefix"
if ! (cd "$build/postgresql-$version" &&
		./configure --prefix="$prefix" --without-icu --without-readline --without-llvm \
			--without-zlib >"$log" 2>&1 &&
		make -j"$(nproc)" >>"$log" 2>&1 &&
		make install >>"$log" 2>&1); then
	tail -n 40 "$log" >&2
	rm -rf "$prefix"
	die "PostgreSQL $version did not build"
fi
touch "$prefix/.complete"
msg "PostgreSQL $version built"
echo "$prefix/bin/pg_config"
