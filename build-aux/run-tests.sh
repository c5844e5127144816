#!/bin/sh
# run-tests.sh: run the whole test suite from any state of the tree: installs
# missing Debian packages, bootstraps and configures when that has not been
# done yet (extra arguments go to configure), then `make check`.
set -eu
cd "$(dirname "$0")/.."
build-aux/install-deps.sh
if [ ! -f Makefile ]; then
  [ -x configure ] || autoreconf -fi
  ./configure "$@"
fi
exec make -j"$(nproc)" check
