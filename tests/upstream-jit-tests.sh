#!/bin/sh
# upstream-jit-tests.sh: the regression tests in upstream's format that the
# series adds (every TOOL/tests/jit_*.vgtest of coregrind-patch/files/) pass
# in the patched build tree, run by upstream's tests/vg_regtest.  `make
# regtest-upstream` runs them with the whole upstream suite, stock against
# patched; this runs only them, in seconds, so that `make check` and
# `make check-mutants` see them.  The programs are built in the build tree
# (build/valgrind-V); they run under the Valgrind of $VGJIT_STAGE (a
# mutant's, under `make check-mutants`).
set -u
: "${VGJIT_STAGE:?run through make check}" "${VGJIT_SRCDIR:?}" "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}"

tree=$VGJIT_BUILDDIR/build/valgrind-$VALGRIND_VERSION
files=$VGJIT_SRCDIR/coregrind-patch/files
vg=$VGJIT_STAGE/bin/valgrind
[ -x "$vg" ] || { echo "ERROR: no staged Valgrind ($vg)"; exit 99; }
[ -f "$tree/tests/vg_regtest" ] || { echo "ERROR: no built Valgrind tree ($tree)"; exit 99; }

vgtests=$(cd "$files" && ls -1 */tests/jit_*.vgtest 2> /dev/null)
[ -n "$vgtests" ] || { echo "ERROR: no jit_*.vgtest under $files"; exit 99; }

# The test programs (named by each .vgtest's prog:) and the prereq helpers.
(cd "$tree" && make -s -C tests arch_test os_test > /dev/null) \
  || { echo "ERROR: building tests/arch_test and os_test failed"; exit 99; }
for t in $vgtests; do
  dir=$(dirname "$t")
  prog=$(sed -n 's/^prog: *//p' "$files/$t")
  # A program of another tool's tests (prog: ../../TOOL/tests/P) is built there.
  (cd "$tree/$dir/$(dirname "$prog")" && make -s "$(basename "$prog")" > /dev/null) \
    || { echo "ERROR: building $dir/$prog failed"; exit 99; }
done

# vg_regtest writes its overall log in the directory it runs in: a
# scratch directory, so that a concurrent `make regtest-upstream` keeps
# its own.
T=$(mktemp -d /tmp/vgjit-regtest-XXXXXX) || exit 99
trap 'rm -rf "$T"' EXIT
set --
for t in $vgtests; do set -- "$@" "$tree/$t"; done
(cd "$T" && perl "$tree/tests/vg_regtest" --valgrind="$vg" \
   --valgrind-lib="$VGJIT_STAGE/libexec/valgrind" "$@") > "$T/log" 2>&1
cat "$T/log"
summary=$(grep -E '^== [0-9]+ tests' "$T/log")
[ -n "$summary" ] || { echo "ERROR: vg_regtest printed no summary"; exit 99; }
case $summary in
  "== "*" 0 stderr failures, 0 stdout failures, 0 stderrB failures, 0 stdoutB failures, 0 post failures =="*)
    ;;
  *)
    for t in $vgtests; do
      for d in "$tree/${t%.vgtest}".std*.diff*; do
        [ -f "$d" ] && { echo "--- $d"; cat "$d"; }
      done
    done
    echo "FAIL: $summary"
    exit 1 ;;
esac
n=$(echo "$vgtests" | wc -l)
echo "$summary" | grep -q "^== $n tests" \
  || { echo "FAIL: $n tests expected: $summary"; exit 1; }
echo "PASS: $n upstream-format tests of the series"
