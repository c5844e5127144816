#!/bin/bash
# series-parts-own-their-features.sh: a part of coregrind-patch/series that
# hooks its feature into a new file an earlier part added carries the
# change in its own patch (build-aux/series-files.sh), so that each part
# builds alone and a reviewer finds each feature in the part named after it.
#
# Checked on a copy of the project's coregrind-patch/ and build-aux/:
#  1. The new files as the earlier parts add them say nothing of the later
#     parts' features: Part 6's creator names and stack scan
#     (jit_creator, jitcreator, unwind_without_cfi, --jit-unwind-scan) are
#     absent from every file added before 0031, and Part 5's v.info jit
#     (jit_info_command, print_live_fns) from every file added before 0030,
#     and Part 4's one-look-up answer for Callgrind's binding
#     (jit_get_fnname_linenum) from every file added before 0023.
#  2. check-series fails, naming the patch and the file, when a new file's
#     final form no longer agrees with a later patch's hunks against it
#     (one call of Part 6's binding in callgrind/latenames.c taken out).
set -u
: "${VGJIT_SRCDIR:?run through make check}" "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}"
bash=${VGJIT_BASH:-bash}
pristine=$VGJIT_BUILDDIR/build/pristine/valgrind-$VALGRIND_VERSION
[ -d "$pristine" ] || { echo "ERROR: no pristine tree $pristine (run make first)"; exit 99; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src/include"
cp -a "$VGJIT_SRCDIR/coregrind-patch" "$VGJIT_SRCDIR/build-aux" "$src/"
cp -a "$VGJIT_SRCDIR/include/valgrind" "$src/include/"   # files/include/jit.h links there

fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

# 1. Base versions: what each patch adds, before later parts change it.
base_mentions() {  # base_mentions FIRST-LATER-PATCH REGEX: files added earlier that match
  PATCHDIR=$src/coregrind-patch FILESDIR=$src/coregrind-patch/files PRISTINE=$pristine \
  LATER=$1 PATTERN=$2 "$bash" -c '
    set -eu
    die() { echo "error: $*" >&2; exit 1; }
    series_patches() { grep -v "^[[:space:]]*\(#\|$\)" "$PATCHDIR/series"; }
    . "$(dirname "$PATCHDIR")/build-aux/series-files.sh"
    changed=$(changed_new_files)
    # The patch that adds each new file: the first whose added Makefile.am
    # or #include lines name it (as make upstream-series decides).
    for f in $(cd "$FILESDIR" && find . -type f -o -type l | sed "s|^\./||" | LC_ALL=C sort); do
      b=$(basename "$f")
      owner=
      for p in $(series_patches); do
        if awk "/^\+\+\+ / { mk = (\$2 ~ /Makefile\\.am\$/); next } /^\+/ && (mk || /#[ \t]*include/)" \
             "$PATCHDIR/$p" | grep -q "\\b${b//./\\.}\\b"; then owner=$p; break; fi
      done
      [ -n "$owner" ] || continue
      [[ "$owner" < "$LATER" ]] || continue
      if echo "$changed" | grep -qxF -- "$f"; then
        base_version "$f" "$PATCHDIR/.base"
      else
        cp -L "$FILESDIR/$f" "$PATCHDIR/.base"
      fi
      if grep -Eq -- "$PATTERN" "$PATCHDIR/.base"; then echo "$f (added by $owner)"; fi
    done
    rm -f "$PATCHDIR/.base"'
}
part6=$(base_mentions 0031 'jit_creator|jitcreator|unwind_without_cfi|jit-unwind-scan')
check "no file added before 0031 names Part 6's creator names or stack scan${part6:+: $part6}" \
  test -z "$part6"
part5=$(base_mentions 0030 'jit_info_command|jit_print_live_fns|jit_pending_print_info')
check "no file added before 0030 names Part 5's v.info jit${part5:+: $part5}" test -z "$part5"
part4=$(base_mentions 0023 'jit_get_fnname_linenum|jit_shown_fnname')
check "no file added before Part 4 has Callgrind's one-look-up binding${part4:+: $part4}" \
  test -z "$part4"

# 2. A final form that a later patch's hunks no longer fit.
lat=$src/coregrind-patch/files/callgrind/latenames.c
grep -q 'return bind_creator_name(fn, a);' "$lat" || { echo "ERROR: $lat has no creator binding to take out"; exit 99; }
sed -i '0,/return bind_creator_name(fn, a);/s//return fn;/' "$lat"
out=$(VGJIT_SRCDIR=$src "$bash" "$src/build-aux/valgrind-tree.sh" check-series 2>&1)
status=$?
check "check-series fails when latenames.c disagrees with 0032's hunks" test "$status" -ne 0
check "and names the patch and the file" \
  grep -q '0032-.*changes callgrind/latenames.c' <<< "$out"

[ "$fail" = 0 ] || { echo "$out" | tail -5; exit 1; }
