#!/bin/sh
# install-roundtrip.sh: `make install DESTDIR=D` puts the patched Valgrind,
# vg-jit, the headers, valgrind-jit.pc and the man pages under D/PREFIX; a
# client compiled with `pkg-config --cflags valgrind-jit` against that tree
# runs under the installed Valgrind and its jitted function is named in
# Memcheck's error; `make uninstall DESTDIR=D` then leaves no file behind.
#
# A DESTDIR tree is not where Valgrind's compiled-in tool directory points,
# so the installed launcher is run with VALGRIND_LIB set to the installed
# D/PREFIX/libexec/valgrind (what Valgrind honours instead), and pkg-config
# with PKG_CONFIG_SYSROOT_DIR=D (which prefixes D to the -I directory).
# Exit status 77 (SKIP) when a precondition is missing.
set -u
: "${VGJIT_SRCDIR:?run through make check}" "${VGJIT_BUILDDIR:?}"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; FAILED=1; }
FAILED=0

[ "$(uname -m)" = x86_64 ] || skip "the client's jitted code is x86-64"
command -v pkg-config > /dev/null || skip "pkg-config is not installed"
CC=${CC:-cc}
command -v "$CC" > /dev/null || skip "no C compiler ($CC)"

prefix=$(sed -n 's/^prefix = //p' "$VGJIT_BUILDDIR/Makefile")
[ -n "$prefix" ] || { echo "ERROR: no prefix in $VGJIT_BUILDDIR/Makefile"; exit 99; }
D=$(mktemp -d /tmp/vgjit-install-XXXXXX) || exit 99
trap 'chmod -R u+w "$D" 2>/dev/null; rm -rf "$D"' EXIT
P=$D$prefix

# The outer make's jobserver and flags must not reach these makes.
unset MAKEFLAGS MFLAGS MAKELEVEL || true
echo "make install DESTDIR=$D (prefix $prefix)"
make -C "$VGJIT_BUILDDIR" install DESTDIR="$D" > "$D.install.log" 2>&1 \
  || { cat "$D.install.log"; rm -f "$D.install.log"; echo "ERROR: make install failed"; exit 99; }
rm -f "$D.install.log"

for f in bin/valgrind bin/vg-jit bin/callgrind_annotate include/valgrind/valgrind.h \
         include/valgrind/jit.h include/valgrind/jit.hpp lib/pkgconfig/valgrind-jit.pc \
         share/man/man1/vg-jit.1 share/man/man1/valgrind.1 \
         libexec/valgrind/memcheck-amd64-linux; do
  [ -e "$P/$f" ] || fail "make install did not install $prefix/$f"
done
echo "installed: $(find "$D" \( -type f -o -type l \) | wc -l) files"

# The installed vg-jit and its man page.
"$P/bin/vg-jit" --version | grep -q '^vg-jit ' || fail "installed vg-jit --version"
if command -v man > /dev/null; then
  MANWIDTH=80 man -l "$P/share/man/man1/vg-jit.1" 2> /dev/null | grep -q 'vg-jit check' \
    || fail "man -l vg-jit.1 does not show the synopsis"
fi

# Valgrind's installed man page and HTML manual list the JIT options.
for opt in 'trace\\-jit' 'jit\\-dump' 'jit\\-perf\\-map'; do
  grep -q -- "$opt=" "$P/share/man/man1/valgrind.1" || fail "valgrind.1 does not list the option $opt"
done
grep -q 'opt.jit-perf-map' "$P/share/doc/valgrind/html/manual-core.html" \
  || fail "the HTML manual does not list --jit-perf-map"
grep -q 'Naming JIT-compiled code' "$P/share/doc/valgrind/html/manual-core-adv.html" \
  || fail "the HTML manual has no section on JIT code"

# A client compiled with the installed pkg-config flags only.
cflags=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_LIBDIR="$P/lib/pkgconfig" \
           PKG_CONFIG_SYSROOT_DIR="$D" pkg-config --cflags valgrind-jit) \
  || fail "pkg-config --cflags valgrind-jit"
echo "pkg-config --cflags valgrind-jit: $cflags"
case $cflags in *"$P/include"*) ;; *) fail "cflags do not point into the installed include directory" ;; esac
# shellcheck disable=SC2086
"$CC" -std=c99 $cflags -o "$D/client" "$VGJIT_SRCDIR/tests/install_client.c" \
  || fail "the client does not compile with the pkg-config flags"

if [ -x "$D/client" ]; then
  VALGRIND_LIB="$P/libexec/valgrind" "$P/bin/valgrind" --tool=memcheck \
    "$D/client" > "$D/out" 2> "$D/err"
  cat "$D/out" "$D/err"
  grep -q '^registered: 1, status 0$' "$D/out" || fail "the installed Valgrind did not record the registration"
  grep -Eq '^==[0-9]+==    at 0x[0-9A-F]+: jit_install_probe \(in \[jit\]\)$' "$D/err" \
    || fail "Memcheck's error does not name the jitted function"
fi
rm -f "$D/client" "$D/out" "$D/err"

echo "make uninstall DESTDIR=$D"
make -C "$VGJIT_BUILDDIR" uninstall DESTDIR="$D" > /dev/null 2>&1 || fail "make uninstall failed"
left=$(find "$D" \( -type f -o -type l \) | sed "s|^$D||")
if [ -n "$left" ]; then
  echo "$left" | head -20
  fail "make uninstall left $(echo "$left" | wc -l) files"
fi
[ "$FAILED" = 0 ] && echo PASS
exit "$FAILED"
