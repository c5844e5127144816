#!/bin/sh
# fetch-qemu.sh OUTDIR
#
# Makes OUTDIR/qemu-x86_64 a QEMU x86-64 user-mode emulator of version 8.1
# or later (the first with -perfmap and -jitdump in user mode), for
# `make check-producers`.  Debian 12 ships QEMU 7.2; Debian's
# bookworm-backports suite has a newer, statically linked qemu-user, which
# is downloaded (not installed) through a private apt configuration
# (build-aux/debian-apt.sh) and unpacked.  Cached: an OUTDIR/qemu-x86_64 of
# a suitable version is kept.  Prints the binary's path on success; exits 1
# with a message otherwise.
set -eu
out=$1
bin="$out/qemu-x86_64"

fail() {
  echo "error: $*" >&2
  echo "error: check-producers needs qemu-x86_64 8.1 or later (set VGJIT_QEMU to one)" >&2
  exit 1
}

# Succeeds if $1 runs and reports version 8.1 or later.
recent_enough() {
  v=$("$1" --version 2>/dev/null | sed -n 's/^qemu-x86_64 version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  [ -n "$v" ] || return 1
  set -- $v
  [ "$1" -gt 8 ] || { [ "$1" -eq 8 ] && [ "$2" -ge 1 ]; }
}

if [ -x "$bin" ] && recent_enough "$bin"; then
  echo "$bin"
  exit 0
fi

command -v dpkg-deb >/dev/null 2>&1 || fail "dpkg-deb is not available"
. "$(dirname "$0")/debian-apt.sh"
debian_apt_begin
echo "fetching qemu-user from Debian's bookworm-backports ($mirror)" >&2
private_apt "$work" \
  "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main" \
  || fail "apt-get update of the private source list failed"
mkdir -p "$work/dl"
(cd "$work/dl" && $apt download qemu-user) > "$work/download.log" 2>&1 \
  || { cat "$work/download.log" >&2; fail "apt-get download qemu-user failed"; }
deb=$(ls "$work"/dl/qemu-user_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "apt-get download did not deliver qemu-user"
dpkg-deb -x "$deb" "$work/root" || fail "cannot unpack $deb"
[ -x "$work/root/usr/bin/qemu-x86_64" ] || fail "$deb has no usr/bin/qemu-x86_64"
recent_enough "$work/root/usr/bin/qemu-x86_64" || fail "$deb holds a QEMU older than 8.1"
mkdir -p "$out"
cp "$work/root/usr/bin/qemu-x86_64" "$bin.tmp" && mv "$bin.tmp" "$bin"
echo "$bin"
