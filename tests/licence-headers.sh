#!/bin/sh
# licence-headers.sh: every C source and header the series adds to Valgrind's
# tree (coregrind-patch/files/**, and files a patch creates) carries
# upstream's licence notice word for word: the notice of a pristine upstream
# file of the same release (its lines from "This program is free software"
# to "contained in the file COPYING"), GPL version 3 or later.  The client
# headers (include/valgrind/jit.h, jit.hpp) stay permissive, like
# valgrind.h: no GPL notice, and a permission notice.  Upstream's own test
# programs carry no notice, and neither do the series' (*/tests/*).
set -u
: "${VGJIT_SRCDIR:?run through make check}" "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}"

FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }

pristine=$VGJIT_BUILDDIR/build/pristine/valgrind-$VALGRIND_VERSION
ref=$pristine/coregrind/m_debuginfo/image.c
[ -r "$ref" ] || { echo "SKIP: no pristine Valgrind tree ($ref); run make first"; exit 77; }

notice() {   # the licence notice of file $1, one line each, blanks kept
  sed -n '/This program is free software/,/contained in the file COPYING/p' "$1"
}
want=$(notice "$ref")
case $want in
  *"either version 3 of the"*) ;;
  *) echo "ERROR: $ref has no GPLv3+ notice to compare with"; exit 99 ;;
esac

n=0
files=$(cd "$VGJIT_SRCDIR/coregrind-patch/files" && find . -type f \( -name '*.c' -o -name '*.h' \) \
          ! -path '*/tests/*' | sed 's|^\./||' | sort)
for f in $files; do
  n=$((n + 1))
  path=$VGJIT_SRCDIR/coregrind-patch/files/$f
  [ "$(notice "$path")" = "$want" ] \
    || fail "$f: its licence notice is not upstream's (GPLv3+, as in coregrind/m_debuginfo/image.c)"
  grep -q '^   This file is part of \(Valgrind\|Callgrind\|Cachegrind\|Memcheck\)' "$path" \
    || fail "$f: no 'This file is part of ...' line"
  grep -q '^   Copyright (C) ' "$path" || fail "$f: no copyright line"
done

# Files a patch creates (--- /dev/null), other than tests.
for p in "$VGJIT_SRCDIR"/coregrind-patch/[0-9]*.patch; do
  awk '/^--- \/dev\/null/{getline; sub(/^\+\+\+ b\//, ""); print}' "$p"
done | grep '\.[ch]$' | grep -v '/tests/' | sort -u > /tmp/vgjit-licence-$$ || true
while read -r f; do
  [ -n "$f" ] || continue
  n=$((n + 1))
  p=$(grep -l "^+++ b/$f\$" "$VGJIT_SRCDIR"/coregrind-patch/[0-9]*.patch | head -n 1)
  body=$(awk -v f="$f" '
    $0 == "+++ b/" f {on=1; next}
    on && /^(diff |--- )/ {exit}
    on && /^\+/ {print substr($0, 2)}' "$p" \
    | sed -n '/This program is free software/,/contained in the file COPYING/p')
  [ "$body" = "$want" ] || fail "$f (created by $(basename "$p")): its licence notice is not upstream's"
done < /tmp/vgjit-licence-$$
rm -f /tmp/vgjit-licence-$$

# The client headers: permissive, never GPL.
for h in include/valgrind/jit.h include/valgrind/jit.hpp; do
  path=$VGJIT_SRCDIR/$h
  n=$((n + 1))
  if grep -q 'GNU General Public License' "$path"; then
    fail "$h carries a GPL notice; client headers are permissive like valgrind.h"
  fi
  grep -q 'any program, open or closed source, may' "$path" \
    || fail "$h does not say that any program may include it"
done
grep -q 'Permission is hereby granted' "$VGJIT_SRCDIR/include/valgrind/jit.h" \
  || fail "include/valgrind/jit.h has no permission notice"

[ $n -gt 2 ] || { echo "ERROR: no files of the series found"; exit 99; }
echo "$n files checked"
exit $FAILED
