#!/bin/sh
# fetch-valgrind-source.sh VERSION DEBIAN_VERSION SHA256 OUTFILE
#
# Downloads Valgrind's unmodified upstream tarball from Debian's source
# packages (valgrind_VERSION.orig.tar.bz2) into OUTFILE and verifies its
# sha256.  The machine's own apt configuration is left untouched: a private
# sources list, lists directory and cache directory are handed to apt-get,
# with the mirror URI read from the machine's own Debian entry.
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

command -v apt-get >/dev/null 2>&1 || fail "apt-get is not available"

# The mirror URI of the machine's own Debian entry (deb822 or one-line format).
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f")
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i ~ /\/debian\/?$/) { print $i; exit } }' "$f")
    [ -n "$mirror" ] && break
  done
fi
[ -n "$mirror" ] || fail "no Debian mirror found in the machine's apt sources"

work=$(mktemp -d "${TMPDIR:-/tmp}/vgjit-apt.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/parts" "$work/dl"
for suite in sid forky; do
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main"
done > "$work/sources.list"

apt="apt-get -q -o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=$work/parts \
 -o Dir::State::Lists=$work/lists -o Dir::Cache::archives=$work/archives -o APT::Sandbox::User=root"
echo "fetching $tarname through Debian's source packages ($mirror)"
$apt update >"$work/update.log" 2>&1 || { cat "$work/update.log" >&2; fail "apt-get update of the private source list failed"; }
(cd "$work/dl" && $apt source --download-only "valgrind=$debversion") >"$work/source.log" 2>&1 \
  || { cat "$work/source.log" >&2; fail "apt-get source valgrind=$debversion failed"; }
[ -f "$work/dl/$tarname" ] || fail "apt-get source did not deliver $tarname"
verify "$work/dl/$tarname" || fail "the downloaded tarball does not match the pinned hash"
mkdir -p "$(dirname "$out")"
mv "$work/dl/$tarname" "$out.tmp" && mv "$out.tmp" "$out"
echo "cached $out"
