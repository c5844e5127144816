#!/bin/sh
# check-format.sh: the project's C++ (*.cpp and *.hpp under tool/, tests/,
# bench/ and examples/) is laid out as the top-level .clang-format says,
# by Debian's clang-format-14 (build-aux/install-deps.sh installs it;
# $CLANG_FORMAT names another).  Prints each file that `make format` would
# change and fails; skipped (77) without clang-format-14.
#
# usage: check-format.sh           check (make check, make check-format)
#        check-format.sh --apply   format the files in place (make format)
#        check-format.sh --list    print the files it covers
set -u
srcdir=${VGJIT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cf=${CLANG_FORMAT:-clang-format-14}
cd "$srcdir" || exit 99
[ -f .clang-format ] || { echo "ERROR: no .clang-format in $srcdir"; exit 99; }

files=$(find tool tests bench examples -type f \( -name '*.cpp' -o -name '*.hpp' \) | LC_ALL=C sort)

case ${1:-} in
  --list) printf '%s\n' $files; exit 0 ;;
  --apply | "") ;;
  *) echo "usage: check-format.sh [--apply|--list]" >&2; exit 99 ;;
esac

if ! command -v "$cf" >/dev/null 2>&1; then
  echo "SKIP: no $cf (Debian: clang-format-14; build-aux/install-deps.sh)"
  exit 77
fi

if [ "${1:-}" = --apply ]; then
  # shellcheck disable=SC2086  # the names hold no blanks
  exec "$cf" -i --style=file $files
fi

n=0
bad=0
for f in $files; do
  n=$((n + 1))
  if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
    echo "not formatted: $f"
    bad=$((bad + 1))
  fi
done
if [ "$bad" -ne 0 ]; then
  echo "FAIL: $bad of $n C++ files differ from .clang-format ($cf); run \`make format\`"
  exit 1
fi
echo "PASS: $n C++ files follow .clang-format ($cf)"
