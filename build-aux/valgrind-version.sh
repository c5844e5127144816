#!/bin/sh
# valgrind-version.sh DIR: print the Valgrind version (e.g. 3.27.1) of the
# source tree DIR, read from the version macros of its configure.ac
# (v_major_ver, v_minor_ver, v_micro_ver).  Exit 1 if DIR has none.
set -eu
ac=$1/configure.ac
[ -f "$ac" ] || { echo "valgrind-version.sh: $ac: no such file" >&2; exit 1; }
v=$(sed -n 's/^m4_define(\[v_\(major\|minor\|micro\)_ver\], *\[\([0-9]*\)\]).*/\2/p' "$ac" | tr '\n' . | sed 's/\.$//')
case $v in
  *.*.*) echo "$v" ;;
  *) echo "valgrind-version.sh: no version macros in $ac" >&2; exit 1 ;;
esac
