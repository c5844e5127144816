#!/bin/sh
# series-applies.sh: coregrind-patch/series applies to a pristine copy of the
# pinned Valgrind release strictly: every patch with no fuzz and no offsets,
# in order.  (The build itself accepts fuzz with a warning; this test is what
# keeps the patches exact.)
set -u
: "${VGJIT_SRCDIR:?run through make check}" "${VGJIT_BUILDDIR:?}"
exec "${VGJIT_BASH:-bash}" "$VGJIT_SRCDIR/build-aux/valgrind-tree.sh" check-series
