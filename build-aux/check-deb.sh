#!/bin/bash
# check-deb.sh: `make check-deb`.  Installs the package `make deb` built into
# a throw-away Debian 12 (bookworm) root in which Debian's own valgrind is
# installed, with `apt-get install ./valgrind-jit_...deb`, checks that it
# replaced Debian's valgrind and installed what it should, runs Memcheck and
# Callgrind there on small JITs built on this machine, then removes it with
# `apt-get remove` (and purges it) and checks that none of its files is
# left.  The root is made by mmdebstrap from the Debian mirror this
# machine's apt uses (read from /etc/apt/sources.list*), and deleted after.
#
# Environment: VGJIT_SRCDIR, VGJIT_BUILDDIR (set by Makefile.am); DEB=path
# checks that package instead of build/deb/latest's; CC (default cc).
# Slow (a few minutes: the root is downloaded), so not part of `make check`.
# Exit status: 0 pass, 1 fail, 77 skip (no mmdebstrap, not x86-64).
set -euo pipefail

: "${VGJIT_SRCDIR:?run through make check-deb}" "${VGJIT_BUILDDIR:?}"
note() { echo "check-deb: $*"; }
skip() { echo "SKIP: $*"; exit 77; }
die() { echo "ERROR: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || skip "the test JITs emit x86-64 code"
command -v mmdebstrap > /dev/null || skip "mmdebstrap is not installed (build-aux/install-deps.sh installs it)"
CC=${CC:-cc}
command -v "$CC" > /dev/null || skip "no C compiler ($CC)"

deb=${DEB:-}
if [ -z "$deb" ]; then
  [ -f "$VGJIT_BUILDDIR/build/deb/latest" ] || die "no package: run make deb first (or give DEB=path)"
  deb=$(cat "$VGJIT_BUILDDIR/build/deb/latest")
fi
[ -f "$deb" ] || die "no such package: $deb"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

# The Debian mirror this machine's apt uses for bookworm: the first URI of a
# "deb" entry whose suites include bookworm, in one-line (.list) or deb822
# (.sources) form.
mirror=$(
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                       if ($(i+1) == "bookworm") print $i }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
         { types = uris = suites = ""
           for (k = 1; k <= NF; k++) {
             if ($k ~ /^Types:/) types = $k
             if ($k ~ /^URIs:/) uris = $k
             if ($k ~ /^Suites:/) suites = $k
           }
           if (types ~ /(^|[ \t])deb([ \t]|$)/ && suites ~ /[ \t]bookworm([ \t]|$)/) {
             sub(/^URIs:[ \t]*/, "", uris); split(uris, u, /[ \t]+/); print u[1]
           } }' "$f"
  done | head -n 1)
[ -n "$mirror" ] || skip "no Debian 12 (bookworm) mirror in /etc/apt/sources.list*"
note "mirror: $mirror"

T=$(mktemp -d /tmp/vgjit-check-deb-XXXXXX)
trap 'rm -rf "$T"' EXIT

# The test JITs, built here against the headers the package installs.
dpkg-deb -x "$deb" "$T/pkg"
[ -f "$T/pkg/usr/include/valgrind/jit.h" ] || die "the package has no /usr/include/valgrind/jit.h"
"$CC" -O1 -g -I"$T/pkg/usr/include" -o "$T/jit_probe" "$VGJIT_SRCDIR/tests/install_client.c"
minijit=$VGJIT_BUILDDIR/examples/minijit
[ -x "$minijit" ] || minijit=

# Run inside the root by mmdebstrap's customize hook (with /proc, /sys and
# /dev mounted there); $1 is the root.  Every check failing makes the hook,
# and so mmdebstrap and this test, fail.
cat > "$T/hook.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
R=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# No grep -q after a pipe: under pipefail, the writer's SIGPIPE would fail it.
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }

echo "== before: $(in_root dpkg-query -W -f='${Package} ${Version}' valgrind)"
cp "$DEB" "$R/tmp/"
cp "$T/jit_probe" "$R/tmp/jit_probe"
[ -z "$MINIJIT" ] || { cp "$MINIJIT" "$R/tmp/minijit"; cp "$VGJIT_SRCDIR/examples/fib.mj" "$R/tmp/fib.mj"; }

echo "== apt-get install ./$(basename "$DEB")"
in_root env DEBIAN_FRONTEND=noninteractive sh -c "cd /tmp && apt-get install -y ./$(basename "$DEB")"
status=$(in_root dpkg-query -W -f='${Status}' valgrind 2>/dev/null || true)
case $status in *" installed") fail "Debian's valgrind is still installed ($status)" ;; esac
in_root dpkg-query -W -f='${Status}\n' valgrind-jit | grep ' installed$' > /dev/null || fail "valgrind-jit is not installed"
version=$(in_root valgrind --version)
[ "$version" = "valgrind-3.27.1" ] || fail "valgrind --version says $version"
for f in /usr/bin/valgrind /usr/bin/vg-jit /usr/bin/callgrind_annotate \
         /usr/include/valgrind/valgrind.h /usr/include/valgrind/jit.h /usr/include/valgrind/jit.hpp \
         /usr/share/man/man1/valgrind.1.gz /usr/share/man/man1/vg-jit.1.gz \
         /usr/share/doc/valgrind/html/manual-core-adv.html /usr/share/doc/valgrind-jit/copyright; do
  [ -e "$R$f" ] || fail "$f is not installed"
done
pc=$(in_root dpkg -L valgrind-jit | grep '/pkgconfig/valgrind-jit\.pc$' || true)
[ -n "$pc" ] && grep -q '^Cflags: -I' "$R$pc" || fail "no valgrind-jit.pc with Cflags"
zgrep -F 'jit\-gdb\-interface' "$R/usr/share/man/man1/valgrind.1.gz" > /dev/null \
  || fail "valgrind.1 does not document --jit-gdb-interface"
zgrep 'vg-jit' "$R/usr/share/man/man1/vg-jit.1.gz" > /dev/null || fail "vg-jit.1 is empty"
in_root vg-jit --version | grep '^vg-jit ' > /dev/null || fail "vg-jit --version"

echo "== memcheck"
in_root valgrind --tool=memcheck /tmp/jit_probe > "$T/memcheck.out" 2>&1 || true
cat "$T/memcheck.out"
grep -q 'Conditional jump or move depends on uninitialised value' "$T/memcheck.out" \
  || fail "Memcheck reports no error in the jitted code"
grep -q 'at 0x[0-9A-F]*: jit_install_probe' "$T/memcheck.out" \
  || fail "Memcheck's error does not name the jitted function jit_install_probe"

echo "== callgrind"
in_root valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out /tmp/jit_probe > "$T/callgrind.out" 2>&1 \
  || { cat "$T/callgrind.out"; fail "Callgrind exits non-zero"; }
grep -Eq '^c?fn=\([0-9]+\) jit_install_probe$' "$R/tmp/cg.out" || fail "Callgrind's profile has no function jit_install_probe"
if [ -x "$R/tmp/minijit" ]; then
  in_root valgrind --tool=callgrind --callgrind-out-file=/tmp/cg-minijit.out /tmp/minijit /tmp/fib.mj \
    > "$T/minijit.out" 2>&1 || { cat "$T/minijit.out"; fail "Callgrind on minijit exits non-zero"; }
  # (names are compressed: a name is written once, in an fn= or cfn= line)
  grep -Eq '^c?fn=\([0-9]+\) fib$' "$R/tmp/cg-minijit.out" \
    || fail "Callgrind's profile of minijit has no jitted function fib"
  grep -Eq '^c?ob=\([0-9]+\) minijit:fib\.mj$' "$R/tmp/cg-minijit.out" \
    || fail "Callgrind's profile of minijit has no JIT object minijit:fib.mj"
  in_root callgrind_annotate /tmp/cg-minijit.out > "$T/annotate.out" 2>&1 \
    || { cat "$T/annotate.out"; fail "callgrind_annotate fails"; }
  grep -q 'fib' "$T/annotate.out" || fail "callgrind_annotate does not show fib"
fi

echo "== apt-get remove valgrind-jit"
in_root dpkg -L valgrind-jit > "$T/files"
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y valgrind-jit
# (apt-get cannot purge a package it knows from no repository: dpkg can)
in_root dpkg --purge valgrind-jit
in_root dpkg-query -W -f='${Status}' valgrind-jit 2>/dev/null | grep ' installed$' > /dev/null \
  && fail "valgrind-jit is still installed"
left=0
while IFS= read -r f; do
  [ -n "$f" ] && [ "$f" != "/." ] || continue
  if [ -e "$R$f" ] && [ ! -d "$R$f" ]; then echo "left: $f"; left=$((left + 1)); fi
done < "$T/files"
[ "$left" = 0 ] || fail "$left files of the package are left after apt-get remove/purge"
[ ! -e "$R/usr/bin/valgrind" ] || fail "/usr/bin/valgrind is left"
echo "== $(wc -l < "$T/files") paths installed and removed; $fails failure(s)"
exit $((fails > 0))
EOF
chmod +x "$T/hook.sh"

note "testing $(basename "$deb") in a bookworm root with Debian's valgrind (mmdebstrap; log: $T/mmdebstrap.log)"
status=0
DEB=$deb T=$T MINIJIT=$minijit VGJIT_SRCDIR=$VGJIT_SRCDIR \
  mmdebstrap --variant=apt --include=valgrind,ca-certificates \
    --customize-hook="$T/hook.sh" bookworm "$T/root" "$mirror" > "$T/mmdebstrap.log" 2>&1 || status=$?
sed -n '/^== before/,$p' "$T/mmdebstrap.log" | grep -v '^I: ' || true
if [ "$status" != 0 ]; then
  echo "---- last lines of the mmdebstrap log ----"
  tail -n 30 "$T/mmdebstrap.log"
  echo "FAIL: $(basename "$deb") in a Debian 12 root (see above)"
  exit 1
fi
note "PASS: $(basename "$deb") installs over Debian 12's valgrind, runs Memcheck and Callgrind on JIT code, and is removed cleanly"
