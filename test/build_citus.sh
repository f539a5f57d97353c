#!/usr/bin/env bash
#
# test/build_citus.sh -- build Citus from ../shared/citus/citus-*.tar.xz for
# the PostgreSQL of $PG_CONFIG, once per machine, and install it there.
#
# The built tree is kept in $GPUSCAN_CITUS_CACHE/<citus version>-pg<major>
# (default /var/cache/gpuscan-citus as root, else ~/.cache/gpuscan-citus):
# a second run only installs it again (make install), which takes seconds.
# Prints the Citus version.  Exit status 2 (with a line on stderr) when no
# source tarball is there, so that callers can skip the Citus check with a
# clear message; 1 on any other failure.
#
# Needs libcurl, lz4, zstd and Kerberos headers; as root on Debian they are
# installed with apt-get when missing.  About 2 minutes on 2 cores.

set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$here/lib.sh"

srcdir=${GPUSCAN_CITUS_SOURCES:-$GPUSCAN_ROOT/../shared/citus}
tarball=$(ls "$srcdir"/citus-*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$tarball" ]; then
	msg "Citus: no source tarball in $srcdir"
	exit 2
fi
if [ -f "$srcdir/SHA256SUMS" ]; then
	(cd "$srcdir" && grep " $(basename "$tarball")\$" SHA256SUMS | sha256sum -c --quiet -) ||
		die "Citus: $tarball does not match $srcdir/SHA256SUMS"
fi
version=$(basename "$tarball" .tar.xz)
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if is_root; then
	cache=${GPUSCAN_CITUS_CACHE:-/var/cache/gpuscan-citus}
else
	cache=${GPUSCAN_CITUS_CACHE:-$HOME/.cache/gpuscan-citus}
fi
tree=$cache/$version-pg$major

if [ ! -f "$tree/.built" ]; then
	ensure_build_tools
	if is_root && command -v apt-get >/dev/null 2>&1; then
		for pkg in libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev; do
			dpkg -s "$pkg" >/dev/null 2>&1 || apt_install "$pkg"
		done
	fi
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	# PostgreSQL 15.20 and later export have_createdb_privilege(), which this
	# Citus also defines: take the patch that ../shared/citus provides
	if [ -f "$srcdir/have_createdb_privilege.patch" ] &&
			grep -q have_createdb_privilege "$("$PG_CONFIG" --includedir-server)/commands/dbcommands.h"; then
		(cd "$tree" && patch -s -p1 <"$srcdir/have_createdb_privilege.patch")
	fi
	msg "building $version for PostgreSQL $major in $tree"
	if ! (cd "$tree" && ./configure PG_CONFIG="$PG_CONFIG" >build.log 2>&1 &&
			make -j"$(nproc)" >>build.log 2>&1); then
		tail -n 40 "$tree/build.log" >&2
		die "Citus did not build (log: $tree/build.log)"
	fi
	touch "$tree/.built"
fi
(cd "$tree" && make install >>"$tree/install.log" 2>&1) || {
	tail -n 20 "$tree/install.log" >&2
	die "Citus did not install into $("$PG_CONFIG" --pkglibdir)"
}
echo "$version"
