#!/bin/bash
# fresh-root.sh: the README's first commands, timed, on a fresh Debian 12
# machine.  Makes a throw-away Debian 12 (bookworm) root with mmdebstrap
# (variant minbase, plus git and ca-certificates, with which a user clones
# the project) from the bookworm suites this machine's apt uses (bookworm,
# bookworm-updates, bookworm-security), clones the committed state of the
# source tree into /root/valgrind-jit there, and runs inside it (chroot,
# with /proc, /sys and /dev mounted), one after the other:
#   deps    build-aux/install-deps.sh
#   build   autoreconf -fi && ./configure && make -j"$(nproc)" && make demo
#   tests   build-aux/run-tests.sh (with --tests)
# printing each one's time and exit status; the first that fails ends the
# run.  What passes here but fails there (a package install-deps.sh does
# not install, a tool a fresh machine lacks) shows in the logs,
# DIR/deps.log, DIR/build.log and DIR/tests.log.  The mounts and the root
# are removed at exit, unless --keep.
#
# The root reaches the network as this machine does: it gets the
# certificates of /usr/local/share/ca-certificates (a TLS-inspecting
# proxy's) and apt's Acquire::http::Proxy, Acquire::Check-Valid-Until and
# Acquire::Check-Date (a dated snapshot mirror) when they are set here.
#
# usage: build-aux/fresh-root.sh [--tests] [--keep] [DIR]
#   DIR      where the root (DIR/root) and the logs go; default a new
#            /tmp/vgjit-fresh-XXXXXX
#   --tests  run build-aux/run-tests.sh too (an hour or more on 2 cores)
#   --keep   leave the root in place (its mounts are removed all the same)
# Runs as root.  Exit status: 0 when every step passed, 1 when one failed,
# 77 when mmdebstrap is missing or not run as root.
set -euo pipefail

tests=no keep=no dir=
while [ $# -gt 0 ]; do
  case $1 in
    --tests) tests=yes ;;
    --keep) keep=yes ;;
    -*) echo "usage: $0 [--tests] [--keep] [DIR]" >&2; exit 64 ;;
    *) dir=$1 ;;
  esac
  shift
done
note() { echo "fresh-root: $*"; }
[ "$(id -u)" = 0 ] || { echo "SKIP: fresh-root.sh runs as root (chroot, mount)"; exit 77; }
command -v mmdebstrap > /dev/null || { echo "SKIP: mmdebstrap is not installed"; exit 77; }
src=$(cd "$(dirname "$0")/.." && pwd)

# This machine's bookworm sources, "deb URI SUITE main" each, from the
# amd64 package indexes apt knows.
# shellcheck disable=SC2016  # apt's $(FIELD)s, not the shell's
mapfile -t sources < <(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
    'Created-By: Packages' 'Architecture: amd64' |
  awk '$2 ~ /^bookworm(-updates|-security)?$/ && !seen[$0]++ { print "deb " $1 " " $2 " main" }')
[ ${#sources[@]} -gt 0 ] || { echo "SKIP: no Debian 12 (bookworm) source in this machine's apt"; exit 77; }

if [ -z "$dir" ]; then dir=$(mktemp -d /tmp/vgjit-fresh-XXXXXX); fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
R=$dir/root
[ ! -e "$R" ] || { echo "ERROR: $R exists" >&2; exit 1; }

# shellcheck disable=SC2317  # called by the EXIT trap
unmount() {
  for m in dev sys proc; do
    if mountpoint -q "$R/$m"; then umount -R "$R/$m"; fi
  done
}
# shellcheck disable=SC2317
cleanup() {
  [ -d "$R" ] || return 0
  unmount
  if [ "$keep" = no ]; then rm -rf --one-file-system "$R"; fi
}
trap cleanup EXIT

# The apt settings with which this machine reaches its mirror.
apt_settings=$dir/apt-settings
: > "$apt_settings"
for key in Acquire::http::Proxy Acquire::Check-Valid-Until Acquire::Check-Date; do
  value=
  eval "$(apt-config shell value "$key")"
  if [ -n "$value" ]; then echo "$key \"$value\";" >> "$apt_settings"; fi
done

note "making a bookworm root (minbase, git, ca-certificates) in $R from: ${sources[*]}"
# shellcheck disable=SC2016  # $1 is the root, expanded by mmdebstrap's hook
if ! mmdebstrap --variant=minbase --include=git,ca-certificates \
    --customize-hook='mkdir -p "$1/usr/local/share/ca-certificates"' \
    --customize-hook='cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/" 2>/dev/null || true' \
    --customize-hook='chroot "$1" update-ca-certificates > /dev/null' \
    --customize-hook="cp '$apt_settings' \"\$1/etc/apt/apt.conf.d/99host-network\"" \
    bookworm "$R" "${sources[@]}" > "$dir/mmdebstrap.log" 2>&1; then
  tail -n 20 "$dir/mmdebstrap.log"
  echo "ERROR: mmdebstrap failed (log: $dir/mmdebstrap.log)" >&2
  exit 1
fi
git clone -q "$src" "$R/root/valgrind-jit"
note "cloned $(git -C "$R/root/valgrind-jit" log -1 --format='%h %s')"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --rbind /dev "$R/dev"
mount --make-rslave "$R/dev"

# step NAME COMMAND: COMMAND in the clone inside the root, logged to
# DIR/NAME.log; prints its time; returns its exit status.
step() {
  name=$1 command=$2
  note "$name: $command (log: $dir/$name.log)"
  start=$(date +%s) status=0
  chroot "$R" env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      bash -c "cd /root/valgrind-jit && $command" > "$dir/$name.log" 2>&1 || status=$?
  seconds=$(($(date +%s) - start))
  note "$name: exit status $status after $((seconds / 60)) min $((seconds % 60)) s"
  [ "$status" = 0 ] || tail -n 20 "$dir/$name.log"
  return "$status"
}
step deps 'build-aux/install-deps.sh' || exit 1
# shellcheck disable=SC2016  # $(nproc) of the root
step build 'autoreconf -fi && ./configure && make -j"$(nproc)" && make demo' || exit 1
status=0
if [ "$tests" = yes ]; then
  step tests 'build-aux/run-tests.sh' || status=1
  # Counted as .ci/run counts them (each Boost.Test case is one result).
  (cd "$R/root/valgrind-jit" &&
   find . \( -path ./build -o -path ./stage -o -path ./download -o -path ./.git \) -prune \
        -o -name '*.trs' -print0 | xargs -0 -r grep -H '^:test-result:') |
    awk '$2 ~ /^(PASS|XFAIL)$/ { p++ } $2 ~ /^SKIP$/ { s++ }
         $2 ~ /^(FAIL|XPASS|ERROR)$/ { f++; print "failed: " $0 }
         END { printf "%d passed, %d failed, %d skipped\n", p, f, s }'
fi
[ "$status" = 0 ] && note "PASS (logs: $dir)"
exit "$status"
