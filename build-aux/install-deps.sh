#!/bin/sh
# install-deps.sh: install the Debian packages that building and testing
# valgrind-jit need, if any is missing.  Runs `apt-get update` once, and only
# when something must be installed; uses sudo when not run as root.
#
# Add a package here when the project starts to need it (one per line).
# binutils: objdump, which the tests of --dump-jit-code run as KCachegrind
# does.  erlang-base: Erlang/OTP, whose JIT the GDB JIT interface tests run.
#
# usage: install-deps.sh [--gui]
#   --gui  install only what `make check-gui` needs besides the above:
#          KCachegrind, Xvfb and a D-Bus session (make check does not)
set -eu

if [ "${1:-}" = --gui ]; then
  packages="kcachegrind xvfb dbus binutils"
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
quilt
binutils
llvm-14
clang-14
openjdk-17-jdk-headless
erlang-base
"

# Node.js, a JIT the producer tests run under Valgrind: Debian's nodejs
# unless a `node` is on PATH already.
if ! command -v node >/dev/null 2>&1; then
  packages="$packages nodejs"
fi
fi

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
$sudo apt-get update
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
