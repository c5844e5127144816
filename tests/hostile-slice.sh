#!/bin/sh
# hostile-slice.sh: the first HOSTILE_SLICE_CASES cases of the hostile
# campaign (hostile_campaign.cpp; every family, every tool) through the
# staged Valgrind.  Fails on any Valgrind death, hang or wrong client
# result that tests/fixtures/hostile/known-failures does not list; the
# full campaign is `make check-hostile`.
set -u
: "${VGJIT_SRCDIR:?run through make check}" "${VGJIT_TESTS_BUILDDIR:?}"
exec "$VGJIT_TESTS_BUILDDIR/hostile_campaign" --seed=1 --first=0 \
  --cases="${HOSTILE_SLICE_CASES:-300}" --cc="${HOSTILE_CC:-gcc}" \
  --known="$VGJIT_SRCDIR/tests/fixtures/hostile/known-failures" \
  --out="$VGJIT_TESTS_BUILDDIR/hostile-slice.out" --strict-readers
