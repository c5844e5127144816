#!/bin/sh
# hostile-regress.sh: every reproducer saved under
# tests/fixtures/hostile/regress/ (a mutated input that once killed
# Valgrind, with the seed code it describes and the tool it ran under)
# replayed through the staged Valgrind; fails on any death, hang or wrong
# client result that tests/fixtures/hostile/known-failures does not list.
set -u
: "${VGJIT_SRCDIR:?run through make check}" "${VGJIT_TESTS_BUILDDIR:?}"
exec "$VGJIT_TESTS_BUILDDIR/hostile_campaign" \
  --replay="$VGJIT_SRCDIR/tests/fixtures/hostile/regress" \
  --known="$VGJIT_SRCDIR/tests/fixtures/hostile/known-failures" \
  --out="$VGJIT_TESTS_BUILDDIR/hostile-regress.out" --strict-readers
