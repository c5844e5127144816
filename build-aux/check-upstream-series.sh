#!/bin/bash
# check-upstream-series.sh: `make check-upstream-series` (slow; not part of
# `make check`).  Walks the commits that `make upstream-series` made
# (build/upstream-series/valgrind.git-work, tags series-0001, ...) in order
# in one work tree, as a maintainer taking the submissions one patch at a
# time would: upstream's autogen.sh and configure once at VALGRIND_3_27_1,
# then after each commit an incremental `make`, the programs of the
# regression tests that the series has added or changed by then, and
# upstream's `perl tests/vg_regtest` on those tests plus a smoke run
# (none/tests/cmdline1).  Prints one line per commit (built or not, tests
# passed/failed) and fails on the first commit that does not build or
# whose tests fail.  The work tree is build/upstream-series-check/valgrind;
# logs are next to it (series-0014-build.log, series-0014-tests.log).
#
# Environment (set by Makefile.am): VGJIT_BUILDDIR, VALGRIND_VERSION;
# optional CHECK_JOBS (make -j, default 2); CHECK_FROM=N starts at the
# Nth commit of the series (the earlier ones are skipped) and
# CHECK_REUSE=1 keeps the work tree configured and built by an earlier
# run (its build is then incremental from wherever it stopped), both for
# re-checking after a fix to a late patch.
set -uo pipefail

die() { printf 'error: %s\n' "$@" >&2; exit 1; }
note() { echo "check-upstream-series: $*"; }

: "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}"
V=$VALGRIND_VERSION
TAG=VALGRIND_${V//./_}
OUT=$VGJIT_BUILDDIR/build/upstream-series
REPO=$OUT/valgrind.git-work
CHECKDIR=$VGJIT_BUILDDIR/build/upstream-series-check
WORK=$CHECKDIR/valgrind
LOGS=$CHECKDIR
JOBS=${CHECK_JOBS:-2}
FROM=${CHECK_FROM:-1}
[ -d "$REPO/.git" ] || die "no $REPO: run make upstream-series first"
G() { git -C "$WORK" -c advice.detachedHead=false "$@"; }

# The series' tags in commit order (the series' order, not the names').
mapfile -t tags < <(git -C "$REPO" rev-list --reverse "$TAG..HEAD" |
  while read -r c; do git -C "$REPO" tag --points-at "$c" | grep '^series-' | head -1; done)
[ "${#tags[@]}" -gt 0 ] || die "$REPO has no series-NNNN tags"

if [ "${CHECK_REUSE:-0}" = 1 ] && [ -f "$WORK/config.status" ]; then
  note "reusing the configured work tree $WORK"
  G fetch -q --force --tags "$REPO" || die "cannot fetch from $REPO"
else
  rm -rf "$CHECKDIR"
  mkdir -p "$CHECKDIR"
  git clone -q "$REPO" "$WORK" || die "cannot clone $REPO"
  G checkout -q "$TAG" || die "no tag $TAG in $REPO"
  note "configuring and building $TAG once (logs $LOGS/0000-*.log)"
  # Maintainer mode: Valgrind's configure.ac has AM_MAINTAINER_MODE, so
  # without it a patch's Makefile.am change would not be built.
  ( cd "$WORK" && ./autogen.sh && ./configure --enable-only64bit --enable-maintainer-mode ) \
    > "$LOGS/0000-configure.log" 2>&1 || die "autogen.sh/configure of $TAG failed: $LOGS/0000-configure.log"
  ( cd "$WORK" && make -j"$JOBS" ) \
    > "$LOGS/0000-build.log" 2>&1 || die "$TAG does not build: $LOGS/0000-build.log"
  note "$TAG: built"
fi

# The regression tests the series has added or changed at the checked-out
# commit: every .vgtest added, and the .vgtest of every expected output
# added or changed (cmdline1.stdout.exp -> cmdline1.vgtest).
series_tests() {
  G diff --name-only --diff-filter=AM "$TAG" HEAD -- '*.vgtest' '*.exp' |
    while read -r f; do
      d=$(dirname "$f") b=$(basename "$f")
      stem=${b%.vgtest}
      [ "$stem" != "$b" ] || stem=${b%%.*}
      [ -f "$WORK/$d/$stem.vgtest" ] && echo "$d/$stem"
    done | LC_ALL=C sort -u
}

n=0
for t in "${tags[@]}"; do
  n=$((n + 1))
  [ "$n" -ge "$FROM" ] || continue
  G checkout -q "$t" || die "cannot check out $t"
  subject=$(G log -1 --format=%s)
  log=$LOGS/$t-build.log
  if ! (cd "$WORK" && make -j"$JOBS" && make -C tests -j"$JOBS" check) > "$log" 2>&1; then
    note "$t: NOT BUILT ($subject); log $log:"
    grep -E 'error|Error' "$log" | head -20 >&2
    exit 1
  fi
  mapfile -t tests < <(series_tests)
  tests=("none/tests/cmdline1" "${tests[@]}")
  mapfile -t tests < <(printf '%s\n' "${tests[@]}" | awk '!seen[$0]++')
  # The tests' programs, as `make check` would build them.
  tlog=$LOGS/$t-tests.log
  : > "$tlog"
  built=1
  for test in "${tests[@]}"; do
    d=$(dirname "$test")
    # gdbserver_tests need their check programs and the links to vgdb
    # and gdb that `make regtest` makes, besides their programs.
    if [ "$d" = gdbserver_tests ]; then
      (cd "$WORK" && make -C "$d" -j"$JOBS" check &&
       gdbserver_tests/make_local_links "$(sed -n 's/^GDB = //p' Makefile)") >> "$tlog" 2>&1 ||
        { built=0; echo "cannot make the checks and links of $d" >> "$tlog"; }
    fi
    prog=$(sed -n 's/^prog\(-asis\)\{0,1\}: *\([^ ]*\).*/\2/p' "$WORK/$test.vgtest" | head -1)
    [ -n "$prog" ] || continue
    case $prog in /*|../*) continue ;; esac
    (cd "$WORK/$d" && make -j"$JOBS" "$prog") >> "$tlog" 2>&1 || { built=0; echo "cannot build $d/$prog" >> "$tlog"; }
  done
  if [ "$built" = 0 ]; then
    note "$t: built; a test program does NOT build ($subject); log $tlog"
    exit 1
  fi
  # vg_regtest compares an output that has no expected file with
  # /dev/null.  Where /dev/null is not the null device (a regular file
  # that other programs write into), such comparisons fail at random, so
  # the expected empty outputs are then empty files in the work tree for
  # the run (removed after it, so that no commit finds them).
  empties=()
  if [ ! -c /dev/null ]; then
    echo "check-upstream-series: warning: /dev/null is not a character device; expecting empty outputs from empty files" >> "$tlog"
    for test in "${tests[@]}"; do
      streams="stdout stderr"
      grep -q '^progB:' "$WORK/$test.vgtest" && streams="$streams stdoutB stderrB"
      for st in $streams; do
        compgen -G "$WORK/$test.$st.exp*" > /dev/null && continue
        : > "$WORK/$test.$st.exp" && empties+=("$WORK/$test.$st.exp")
      done
    done
  fi
  (cd "$WORK" && perl tests/vg_regtest "${tests[@]}") >> "$tlog" 2>&1
  [ "${#empties[@]}" = 0 ] || rm -f "${empties[@]}"
  summary=$(grep -E '^== [0-9]+ tests?, ' "$tlog" | tail -1 | sed 's/^== //; s/ ==$//')
  if [ -z "$summary" ]; then
    note "$t: built; vg_regtest gave no summary ($subject); log $tlog"
    exit 1
  fi
  if echo "$summary" | grep -Eq '(^|, )[1-9][0-9]* [a-zA-Z]+ failures?'; then
    note "$t: built; tests FAILED ($summary): $subject; log $tlog"
    sed -n '/^-- Failed tests/,$p' "$tlog" | grep -v '^--' | sort -u >&2
    exit 1
  fi
  note "$t: built; ${#tests[@]} tests passed (${tests[*]}): $subject"
done
note "every commit of the series builds and passes its tests (${#tags[@]} commits)"
