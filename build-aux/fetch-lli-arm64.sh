#!/bin/sh
# fetch-lli-arm64.sh OUTDIR
#
# Makes OUTDIR/usr/lib/llvm-14/bin/lli the arm64 build of LLVM 14's lli, for
# the real-JIT cases of `make check-arm64` (tests/integration_arm64.cpp).
# Debian's llvm-14 package cannot be installed for amd64 and arm64 at once
# (it is not Multi-Arch), so its llvm-14-runtime:arm64 package, which holds
# lli, is downloaded with apt-get (not installed) and unpacked; lli's
# libraries (libllvm14:arm64 and its dependencies) are installed through
# multiarch by build-aux/install-deps.sh.  Cached: an unpacked lli is kept.
# Prints the binary's path on success; exits 1 with a message otherwise.
set -eu
out=$1
bin="$out/usr/lib/llvm-14/bin/lli"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
fail() {
  echo "error: $*" >&2
  exit 1
}
command -v apt-get >/dev/null 2>&1 || fail "apt-get is not available"
command -v dpkg-deb >/dev/null 2>&1 || fail "dpkg-deb is not available"
want=$(dpkg-query -W -f='${Version}' libllvm14:arm64 2>/dev/null) \
  || fail "libllvm14:arm64 is not installed (build-aux/install-deps.sh installs it)"
rm -rf "$out.tmp"
mkdir -p "$out.tmp/deb"
(cd "$out.tmp/deb" && apt-get download "llvm-14-runtime:arm64=$want" >&2) \
  || fail "apt-get download llvm-14-runtime:arm64=$want failed"
dpkg-deb -x "$out.tmp"/deb/llvm-14-runtime_*_arm64.deb "$out.tmp/root" \
  || fail "cannot unpack llvm-14-runtime:arm64"
[ -x "$out.tmp/root/usr/lib/llvm-14/bin/lli" ] || fail "llvm-14-runtime:arm64 holds no usr/lib/llvm-14/bin/lli"
rm -rf "$out"
mv "$out.tmp/root" "$out"
rm -rf "$out.tmp"
echo "$bin"
