# valgrind-tree-cross.sh: sourced by valgrind-tree.sh (its variables and helper
# functions are in scope): the patched tree built for other platforms,
# for `make check-arm64` and `make check-x86`.

# ---------------------------------------------------------------------------
# Builds for other platforms (make check-arm64, make check-x86)
# ---------------------------------------------------------------------------

# cross_build DIR PLATFORM LOG-NAME CONFIGURE-ARGS...
# The patched tree built for another platform in DIR: a copy of the staged
# build copy's sources, configured with CONFIGURE-ARGS and run in place
# (DIR/.in_place holds the tools, for VALGRIND_LIB; PLATFORM is their
# suffix, e.g. arm64-linux).  Only the tools the platform's tests run are
# built: the core, Memcheck, Cachegrind and Callgrind.  Incremental: a
# source file the series changed is copied over and rebuilt; a changed
# build system (an *.am, configure.ac) or other CONFIGURE-ARGS make a
# fresh copy.  Warnings are errors of the port: the tree builds without
# any.
CROSS_SUBDIRS="include VEX coregrind memcheck cachegrind callgrind"
cross_build() {
  local dir=$1 platform=$2 logname=$3
  shift 3
  cmd_stage
  local stamp="$dir.vgjit-done" id fresh=0 path
  id="$(cat "$PRISTINE_ID_FILE") $(sha256_of "$STATE/manifest") $*"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ] && [ -x "$dir/.in_place/callgrind-$platform" ]; then
    note "the $platform build is up to date: $dir"
    return 0
  fi
  rm -f "$stamp"
  # (A tree configured before its arguments were recorded keeps them.)
  if [ ! -f "$dir/config.status" ] \
     || { [ -f "$dir.vgjit-configure" ] && [ "$(cat "$dir.vgjit-configure")" != "$*" ]; }; then
    fresh=1
  else
    # The files the series touches now or touched at the last build (one
    # it no longer touches is pristine again in $TREE).
    while IFS= read -r path; do
      if [ ! -e "$TREE/$path" ]; then
        [ -e "$dir/$path" ] || continue
        note "$platform: removing $path"
        rm -f "$dir/$path"
        continue
      fi
      cmp -s "$TREE/$path" "$dir/$path" && continue
      case "$path" in
        *.am|configure.ac|*.m4|*.in) fresh=1; break ;;
      esac
      note "$platform: updating $path"
      mkdir -p "$dir/$(dirname "$path")"
      cp "$TREE/$path" "$dir/$path"
    done < <(cut -f1 "$STATE/manifest" "$dir.manifest" 2>/dev/null | LC_ALL=C sort -u)
  fi
  if [ "$fresh" = 1 ]; then
    rm -rf "$dir" "$dir.tmp" "$dir.manifest" "$dir.vgjit-configure"
    note "copying the sources of $TREE to $dir"
    mkdir -p "$dir.tmp"
    # Sources and the generated build system only: the host's objects,
    # programs and configuration stay behind.
    (cd "$TREE" && tar --exclude='*.o' --exclude='*.a' --exclude='*.so' --exclude=.in_place \
       --exclude=.deps --exclude=config.status --exclude=config.log --exclude=config.h \
       --exclude=Makefile --exclude='*-amd64-linux' --exclude=autom4te.cache -cf - .) \
      | tar -C "$dir.tmp" -xf -
    mv "$dir.tmp" "$dir"
    (cd "$dir" && run_logged "$BUILD/$logname-configure.log" \
       "configuring $dir for $platform" \
       ./configure "$@" --prefix="$dir/not-installed") \
      || die "configure failed in $dir (see $BUILD/$logname-configure.log)"
    printf '%s\n' "$*" > "$dir.vgjit-configure"
  fi
  # Each directory on its own (SUBDIRS=... on the command line would reach
  # the tools' own subdirectories too), then the top level's in-place
  # files (default.supp).
  (cd "$dir" && run_logged "$BUILD/$logname-make.log" \
     "building $dir ($CROSS_SUBDIRS) with $VGJIT_JOBS jobs" \
     sh -c 'for d in "$@"; do '"$MAKE_CMD"' -C "$d" -j'"$VGJIT_JOBS"' || exit 1; done
            '"$MAKE_CMD"' all-local' sh $CROSS_SUBDIRS) \
    || die "building the $platform Valgrind failed (see $BUILD/$logname-make.log)"
  if grep -n 'warning:' "$BUILD/$logname-make.log" > "$BUILD/$logname-warnings.log"; then
    cat "$BUILD/$logname-warnings.log" >&2
    die "the $platform build has warnings (above; $BUILD/$logname-make.log)"
  fi
  cp "$STATE/manifest" "$dir.manifest"
  echo "$id" > "$stamp"
  note "$platform Valgrind: $dir/.in_place (launcher $dir/coregrind/valgrind)"
}

# arm64: cross-built with Debian's aarch64-linux-gnu toolchain, run under
# QEMU user mode by `make check-arm64`.
CROSS_ARM64="$BUILD/cross-arm64"
cmd_cross_arm64() {
  command -v aarch64-linux-gnu-gcc > /dev/null \
    || die "aarch64-linux-gnu-gcc is not installed (build-aux/install-deps.sh)"
  cross_build "$CROSS_ARM64" arm64-linux cross-arm64 --host=aarch64-linux-gnu --enable-only64bit
}

# x86 (32-bit): upstream's --enable-only32bit on this amd64 machine, with
# gcc -m32 (Debian's gcc-12-multilib, g++-12-multilib), run natively by
# `make check-x86`.  Debian's gcc-multilib would add the link
# /usr/include/asm -> x86_64-linux-gnu/asm that -m32 compilations need
# (the kernel's headers are the same for both), but it conflicts with the
# aarch64 cross compiler; the same link in $BUILD/x86-include, passed as
# -isystem, does its job for this build and the x86 test programs.
CROSS_X86="$BUILD/cross-x86"
X86_INCLUDE="$BUILD/x86-include"
cmd_cross_x86() {
  x86_include
  printf 'int main(void) { return 0; }\n' > "$BUILD/x86-probe.c"
  gcc -m32 -isystem "$X86_INCLUDE" -o "$BUILD/x86-probe" "$BUILD/x86-probe.c" 2> "$BUILD/x86-probe.log" \
    || die "gcc -m32 cannot link a program (build-aux/install-deps.sh installs gcc-12-multilib):" \
           "$(cat "$BUILD/x86-probe.log")"
  rm -f "$BUILD/x86-probe" "$BUILD/x86-probe.c" "$BUILD/x86-probe.log"
  cross_build "$CROSS_X86" x86-linux cross-x86 --enable-only32bit "CPPFLAGS=-isystem $X86_INCLUDE"
}

# The directory whose asm/ stands for /usr/include/asm in -m32 builds.
x86_include() {
  local asm=/usr/include/x86_64-linux-gnu/asm
  [ -d "$asm" ] || die "$asm does not exist (Debian's linux-libc-dev)"
  mkdir -p "$X86_INCLUDE"
  [ "$(readlink "$X86_INCLUDE/asm" 2>/dev/null)" = "$asm" ] || ln -sfn "$asm" "$X86_INCLUDE/asm"
}

