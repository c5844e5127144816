#!/bin/sh
# install-deps-skew.sh: build-aux/install-deps.sh against a mirror whose
# architectures disagree, as bookworm-security's did when it offered
# liblzma5 5.4.1-1+deb12u2 for amd64 and only 5.4.1-1+deb12u1 for arm64 and
# i386 (liblzma5 is Multi-Arch: same: one version on every architecture).
#
# A local repository made with dpkg-deb and apt-ftparchive (no network)
# holds dummy packages: vgjit-skewlib (Multi-Arch: same) 1.0-0 and 1.0-1
# for amd64, arm64 and i386 and 1.0-2 for amd64 alone (suite "security"),
# the main package vgjit-mainpkg and the cross package vgjit-crossdep
# (arm64, i386), both depending on vgjit-skewlib; a private dpkg database
# has vgjit-skewlib 1.0-2 installed for amd64.  The script runs with its
# package lists replaced (VGJIT_DEPS_MAIN, VGJIT_DEPS_ARM64,
# VGJIT_DEPS_X86), in simulation (VGJIT_DEPS_SIMULATE=1: apt-get -s) and
# with apt pointed at the private repository, lists, cache and database
# through APT_CONFIG: the real system is not touched (its dpkg database is
# compared before and after).  Checked:
#   - plain `apt-get install vgjit-crossdep:arm64` fails (the skew is real);
#   - the main step installs all the same, and the cross steps succeed by
#     pinning vgjit-skewlib to 1.0-1 (the newest version all architectures
#     offer) on every architecture, saying that the amd64 one is downgraded;
#   - without vgjit-skewlib 1.0-1 for amd64 (no common version), the main
#     step still installs, the cross steps fail naming vgjit-skewlib, and
#     the script exits 0 with a warning, or 2 with --require-cross;
#   - a failed main step is fatal; --missing lists what is not installed.
# Exit status 77 (SKIP) when apt-ftparchive (apt-utils) or dpkg-deb is
# missing.
set -u
srcdir=${VGJIT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
script=$srcdir/build-aux/install-deps.sh

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; FAILED=1; }
pass() { echo "PASS: $*"; }
FAILED=0

for tool in apt-get apt-cache apt-config apt-ftparchive dpkg-deb dpkg-query; do
  command -v $tool > /dev/null || skip "$tool is not installed (build-aux/install-deps.sh installs apt-utils)"
done

T=$(mktemp -d /tmp/vgjit-deps-skew-XXXXXX) || exit 99
trap 'rm -rf "$T"' EXIT
real_status=$(md5sum < /var/lib/dpkg/status 2>/dev/null)

# deb NAME VERSION ARCH POOL [DEPENDS]: a dummy package, Multi-Arch: same
# unless it is the main package, into $T/repo/pool/POOL.
deb() {
  d=$T/src/$1_$2_$3
  mkdir -p "$d/DEBIAN" "$T/repo/pool/$4"
  {
    echo "Package: $1"
    echo "Version: $2"
    echo "Architecture: $3"
    echo "Maintainer: valgrind-jit tests <tests@invalid>"
    [ "$1" = vgjit-mainpkg ] || echo "Multi-Arch: same"
    [ -n "${5:-}" ] && echo "Depends: $5"
    echo "Description: dummy package of tests/install-deps-skew.sh"
  } > "$d/DEBIAN/control"
  dpkg-deb -Zgzip --root-owner-group --build "$d" "$T/repo/pool/$4/$1_$2_$3.deb" > /dev/null ||
    { echo "ERROR: dpkg-deb could not build $1 $2 $3"; exit 99; }
}
for a in arm64 i386; do
  deb vgjit-skewlib 1.0-1 $a stable
  deb vgjit-crossdep 1.0 $a stable vgjit-skewlib
done
deb vgjit-mainpkg 1.0 amd64 stable vgjit-skewlib
deb vgjit-skewlib 1.0-1 amd64 stable-amd64
deb vgjit-skewlib 1.0-2 amd64 security
# An older version on every architecture: the newest common one is chosen.
for a in amd64 arm64 i386; do
  deb vgjit-skewlib 1.0-0 $a old
done

# One suite per pool, each with a Packages index per architecture.
for s in stable stable-amd64 security old; do
  for a in amd64 arm64 i386; do
    mkdir -p "$T/repo/dists/$s/main/binary-$a"
    (cd "$T/repo" && apt-ftparchive -a $a packages "pool/$s") > "$T/repo/dists/$s/main/binary-$a/Packages" ||
      { echo "ERROR: apt-ftparchive packages failed"; exit 99; }
  done
  if ! apt-ftparchive -o APT::FTPArchive::Release::Suite=$s -o APT::FTPArchive::Release::Codename=$s \
      -o "APT::FTPArchive::Release::Architectures=amd64 arm64 i386" \
      -o APT::FTPArchive::Release::Components=main \
      release "$T/repo/dists/$s" > "$T/repo/dists/$s.Release"; then
    echo "ERROR: apt-ftparchive release failed"; exit 99
  fi
  mv "$T/repo/dists/$s.Release" "$T/repo/dists/$s/Release"
done

# state NAME SUITES...: a private apt configuration $T/NAME/apt.conf
# (sources, lists, cache, dpkg database, architectures) reading SUITES,
# its lists updated, vgjit-skewlib 1.0-2 installed for amd64.
state() {
  S=$T/$1; shift
  mkdir -p "$S/lists/partial" "$S/cache/archives/partial" "$S/etc/apt.conf.d" \
    "$S/etc/sources.list.d" "$S/etc/preferences.d" "$S/dpkg/updates" "$S/log"
  : > "$S/etc/apt.conf"
  for s in "$@"; do
    echo "deb [trusted=yes] file:$T/repo $s main"
  done > "$S/etc/sources.list"
  installed "$S" vgjit-skewlib amd64 1.0-2
  cat > "$S/apt.conf" <<EOF
Dir::Etc::main "$S/etc/apt.conf";
Dir::Etc::Parts "$S/etc/apt.conf.d";
Dir::Etc::SourceList "$S/etc/sources.list";
Dir::Etc::SourceParts "$S/etc/sources.list.d";
Dir::Etc::Preferences "$S/etc/preferences";
Dir::Etc::PreferencesParts "$S/etc/preferences.d";
Dir::State::status "$S/dpkg/status";
Dir::State::Lists "$S/lists";
Dir::State::extended_states "$S/extended_states";
Dir::Cache "$S/cache";
Dir::Log "$S/log";
APT::Architecture "amd64";
APT::Architectures { "amd64"; "arm64"; "i386"; };
APT::Sandbox::User "root";
Debug::NoLocking "true";
EOF
  APT_CONFIG=$S/apt.conf apt-get update > "$S/update.log" 2>&1 ||
    { cat "$S/update.log"; echo "ERROR: apt-get update of the local repository failed"; exit 99; }
}

# installed DIR NAME ARCH VERSION: NAME:ARCH VERSION is installed in DIR's
# dpkg database.
installed() {
  {
    echo "Package: $2"
    echo "Status: install ok installed"
    echo "Architecture: $3"
    [ "$2" = vgjit-mainpkg ] || echo "Multi-Arch: same"
    echo "Version: $4"
    echo "Maintainer: valgrind-jit tests <tests@invalid>"
    echo "Description: dummy"
    echo
  } >> "$1/dpkg/status"
}

# deps STATE ARGS...: install-deps.sh ARGS in simulation against STATE's
# apt configuration; its output in $T/out, its exit status in $status.
deps() {
  st=$1; shift
  APT_CONFIG=$T/$st/apt.conf VGJIT_DEPS_SIMULATE=1 VGJIT_DEPS_MAIN=${main:-vgjit-mainpkg} \
    VGJIT_DEPS_ARM64=vgjit-crossdep:arm64 VGJIT_DEPS_X86=vgjit-crossdep:i386 \
    sh "$script" "$@" > "$T/out" 2>&1
  status=$?
  sed 's/^/  | /' "$T/out"
}
has() {   # has PREFIX WHAT: a line of $T/out starts with PREFIX
  if awk -v p="$1" 'index($0, p) == 1 { found = 1 } END { exit !found }' "$T/out"; then
    pass "$2"
  else
    fail "$2: no line starting with \"$1\""
  fi
}
exits() {   # exits STATUS WHAT
  if [ "$status" -eq "$1" ]; then pass "$2 (exit $status)"; else fail "$2: exit $status, not $1"; fi
}

# A: the skewed mirror; 1.0-1 is offered on all three architectures.
state skew stable stable-amd64 security old
echo "== the skew: plain apt-get install vgjit-crossdep:arm64"
if APT_CONFIG=$T/skew/apt.conf apt-get -s install vgjit-crossdep:arm64 > "$T/out" 2>&1; then
  sed 's/^/  | /' "$T/out"
  fail "apt-get installs vgjit-crossdep:arm64 as is: the repository is not skewed"
else
  pass "apt-get alone cannot install vgjit-crossdep:arm64"
fi

echo "== install-deps.sh --require-cross on the skewed mirror"
deps skew --require-cross
exits 0 "main and cross steps succeed"
has "install-deps: main step: installing vgjit-mainpkg" "the main step comes first"
has "Inst vgjit-mainpkg " "the main package installs"
has " vgjit-crossdep:arm64 : Depends: vgjit-skewlib:arm64 but" "the arm64 step fails as is"
has "install-deps: downgrading vgjit-skewlib:amd64 from 1.0-2 to 1.0-1" "the amd64 downgrade is said"
has "Inst vgjit-skewlib [1.0-2] (1.0-1 " "vgjit-skewlib:amd64 goes to 1.0-1"
has "Inst vgjit-skewlib:arm64 (1.0-1 " "vgjit-skewlib:arm64 1.0-1 installs"
has "Inst vgjit-crossdep:arm64 " "the arm64 package installs"
has "Inst vgjit-skewlib:i386 (1.0-1 " "vgjit-skewlib:i386 1.0-1 installs"
has "Inst vgjit-crossdep:i386 " "the i386 package installs"

echo "== install-deps.sh --missing arm64"
deps skew --missing arm64
has "vgjit-crossdep:arm64" "--missing names the cross package"

echo "== a failed main step is fatal"
main=vgjit-nosuchpkg deps skew
exits 1 "no such main package"
has "install-deps:   E: Unable to locate package vgjit-nosuchpkg" "the error says why"
if grep -q "arm64 step" "$T/out"; then fail "the cross steps ran after the main step failed"; else pass "no cross step after it"; fi

# B: no version of vgjit-skewlib is offered for every architecture.
state nocommon stable security
echo "== install-deps.sh on a mirror without a common version"
deps nocommon
exits 0 "a failed cross step alone is not fatal"
has "Inst vgjit-mainpkg " "the main package installs"
has "install-deps: warning: the arm64 step failed; not installed: vgjit-crossdep:arm64" "the arm64 step's failure is a warning"
has "install-deps: warning:   vgjit-skewlib is Multi-Arch: same" "the warning names vgjit-skewlib"
has "install-deps: warning: the x86 step failed; not installed: vgjit-crossdep:i386" "the x86 step's failure is a warning"
echo "== install-deps.sh --require-cross on it"
deps nocommon --require-cross
exits 2 "a failed cross step is fatal with --require-cross"
has "Inst vgjit-mainpkg " "the main package installs"
has "install-deps: error:   vgjit-skewlib is Multi-Arch: same" "the error names vgjit-skewlib"

# C: everything installed.
installed "$T/nocommon" vgjit-mainpkg amd64 1.0
installed "$T/nocommon" vgjit-crossdep arm64 1.0
installed "$T/nocommon" vgjit-crossdep i386 1.0
echo "== install-deps.sh with everything installed"
deps nocommon --require-cross
exits 0 "nothing to do"
has "install-deps: all required Debian packages are installed" "it says so"

[ "$(md5sum < /var/lib/dpkg/status 2>/dev/null)" = "$real_status" ] ||
  fail "the real dpkg database changed"
exit $FAILED
