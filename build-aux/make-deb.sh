#!/bin/bash
# make-deb.sh: `make deb`.  Builds the Debian binary package valgrind-jit
# (debian/) with dpkg-buildpackage from a copy of this tree, then runs
# lintian on it.
#
# The copy (build/deb/valgrind-jit-<version>/) holds the files git knows
# (tracked, and new ones not ignored, with their working-tree content), or
# automake's distribution files outside a git checkout, and the pinned
# Valgrind tarball in download/, so the package build fetches nothing.
# Output: build/deb/valgrind-jit_<version>_<arch>.deb (its path is also in
# build/deb/latest), lintian's report in build/deb/lintian.log.  Fails when
# dpkg-buildpackage fails or lintian reports an error.
#
# Environment (set by Makefile.am): VGJIT_SRCDIR, VGJIT_BUILDDIR,
# VALGRIND_VERSION, VALGRIND_DEBVERSION, VALGRIND_SHA256, VALGRIND_TARBALL,
# and optionally VGJIT_JOBS (parallel jobs; default nproc).
set -euo pipefail

die() { printf 'error: %s\n' "$@" >&2; exit 1; }
note() { echo "make-deb: $*"; }

: "${VGJIT_SRCDIR:?}" "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}" \
  "${VALGRIND_DEBVERSION:?}" "${VALGRIND_SHA256:?}"
VALGRIND_TARBALL=${VALGRIND_TARBALL:-}
JOBS=${VGJIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS || true

for tool in dpkg-buildpackage dh lintian dpkg-parsechangelog; do
  command -v "$tool" > /dev/null \
    || die "$tool is not installed (build-aux/install-deps.sh installs debhelper, dpkg-dev and lintian)"
done

cd "$VGJIT_SRCDIR"
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
case $version in
  "$VALGRIND_DEBVERSION"+jit*) ;;
  *) die "debian/changelog's version $version does not extend Valgrind's Debian version" \
         "$VALGRIND_DEBVERSION (configure.ac) with +jitN" ;;
esac
upver=${version#*:}; upver=${upver%%-*}
out=$VGJIT_BUILDDIR/build/deb
copy=$out/valgrind-jit-$upver

tarname=valgrind_${VALGRIND_VERSION}.orig.tar.bz2
tarball=$VGJIT_BUILDDIR/download/$tarname
[ -f "$tarball" ] || tarball=$VALGRIND_TARBALL
[ -n "$tarball" ] && [ -f "$tarball" ] \
  || die "no $tarname: run make first (it fetches or copies it into download/)"
[ "$(sha256sum "$tarball" | cut -d' ' -f1)" = "$VALGRIND_SHA256" ] \
  || die "$tarball does not match the pinned sha256"

chmod -R u+w "$out" 2>/dev/null || true
rm -rf "$out"
mkdir -p "$copy/download"
if git -C "$VGJIT_SRCDIR" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  note "copying the files git knows into $copy"
  git -C "$VGJIT_SRCDIR" ls-files -z --cached --others --exclude-standard \
    | (cd "$VGJIT_SRCDIR" && xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh) \
    | (cd "$VGJIT_SRCDIR" && tar --null -T - -cf -) | tar -xf - -C "$copy"
else
  note "copying the distribution files into $copy"
  make -C "$VGJIT_BUILDDIR" distdir distdir="$copy" > "$out/distdir.log" 2>&1 \
    || die "make distdir failed (see $out/distdir.log)"
fi
[ -f "$copy/debian/rules" ] || die "$copy has no debian/rules"
cp "$tarball" "$copy/download/$tarname"

note "dpkg-buildpackage -b in $copy (log: $out/build.log; Valgrind builds from scratch: minutes)"
if ! (cd "$copy" && DEB_BUILD_OPTIONS="nocheck parallel=$JOBS" \
        dpkg-buildpackage -b -us -uc -rfakeroot) > "$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  die "dpkg-buildpackage failed (see $out/build.log)"
fi

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb=$out/valgrind-jit_${version#*:}_$arch.deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
echo "$deb" > "$out/latest"

note "lintian $deb (log: $out/lintian.log)"
status=0
lintian --fail-on error --info "$deb" > "$out/lintian.log" 2>&1 || status=$?
cat "$out/lintian.log"
[ "$status" = 0 ] || die "lintian reports errors for $deb (see $out/lintian.log)"
note "built $deb"
