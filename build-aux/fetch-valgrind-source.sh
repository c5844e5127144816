#!/bin/sh
# fetch-valgrind-source.sh VERSION DEBIAN_VERSION SHA256 OUTFILE
#
# Downloads Valgrind's unmodified upstream tarball from Debian's source
# packages (valgrind_VERSION.orig.tar.bz2) into OUTFILE and verifies its
# sha256.  The machine's own apt configuration is left untouched
# (build-aux/debian-apt.sh).
set -eu
version=$1; debversion=$2; sha=$3; out=$4
tarname="valgrind_${version}.orig.tar.bz2"

fail() {
  echo "error: $*" >&2
  echo "error: could not obtain $tarname (sha256 $sha)." >&2
  echo "error: download it by hand and run: ./configure --with-valgrind-tarball=PATH" >&2
  exit 1
}

verify() {
  got=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$got" = "$sha" ] || { echo "error: $1 has sha256 $got, expected $sha" >&2; return 1; }
}

. "$(dirname "$0")/debian-apt.sh"
debian_apt_begin
mkdir -p "$work/dl"
echo "fetching $tarname through Debian's source packages ($mirror)"
private_apt "$work" \
  "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" \
  "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror forky main" \
  || fail "apt-get update of the private source list failed"
(cd "$work/dl" && $apt source --download-only "valgrind=$debversion") >"$work/source.log" 2>&1 \
  || { cat "$work/source.log" >&2; fail "apt-get source valgrind=$debversion failed"; }
[ -f "$work/dl/$tarname" ] || fail "apt-get source did not deliver $tarname"
verify "$work/dl/$tarname" || fail "the downloaded tarball does not match the pinned hash"
mkdir -p "$(dirname "$out")"
mv "$work/dl/$tarname" "$out.tmp" && mv "$out.tmp" "$out"
echo "cached $out"
