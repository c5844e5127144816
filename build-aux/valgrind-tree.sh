#!/bin/bash
# valgrind-tree.sh COMMAND
#
# Builds the pinned upstream Valgrind with the project's core patch, and an
# unpatched ("stock") Valgrind of the same release.  Called by the top-level
# Makefile, which passes the configuration in the environment (see "Inputs").
#
# Commands:
#   stage         Make stage/ hold a Valgrind built from pristine upstream +
#                 coregrind-patch/ (series, then files/).  Incremental.
#   stock         Build and install the unpatched Valgrind (cached).
#   check-series  Apply the series strictly (no fuzz, no offsets) to pristine
#                 copies of the files it touches; exit 1 if it does not apply.
#   install       make install (with DESTDIR) of the patched build copy into
#                 the configured prefix.
#   uninstall     The reverse.
#   regtest       Run upstream's regression tests in the stock and the patched
#                 build copies and report regressions of the patched one.
#   pristine      Only unpack the pristine upstream tree.
#   inner [stock] [patched]
#                 Build self-hosting copies of the stock and the patched
#                 Valgrind, or only the one(s) named (configured
#                 --enable-inner, run in place), which can run under an
#                 outer Valgrind: `make bench` counts their own
#                 instructions with an outer Cachegrind (cached).
#   patch-tree    Make build/quilt/valgrind-V, a quilt tree of the series
#                 (pristine copy, `patches` -> coregrind-patch/), with the
#                 series applied up to $VGJIT_PATCH (default: all).
#   edit-patch    In that tree, make the patch that changes $VGJIT_FILE (or
#                 $VGJIT_PATCH) the top one and run `quilt edit` ($EDITOR).
#   refresh-patch `quilt refresh` of the top patch of that tree: writes the
#                 edits made there into coregrind-patch/NNNN-*.patch.
#   refresh-new-file-hunks
#                 Write again the hunks that later patches carry against
#                 new files of coregrind-patch/files/ (after an edit of
#                 such a file moved their lines; build-aux/series-files.sh).
#   cross-arm64   Cross-build the patched Valgrind for aarch64 (Debian's
#                 aarch64-linux-gnu toolchain) in build/cross-arm64, run in
#                 place under QEMU by `make check-arm64` (incremental).
#   cross-x86     Build the patched Valgrind for x86 (32-bit,
#                 --enable-only32bit, gcc -m32) in build/cross-x86, run in
#                 place by `make check-x86` (incremental).
#   x86-include   Make build/x86-include/asm (the -m32 stand-in for
#                 /usr/include/asm) and print the directory's path.
#
# Layout of the build tree ($VGJIT_BUILDDIR):
#   download/valgrind_V.orig.tar.bz2   verified upstream tarball (cache)
#   build/pristine/valgrind-V/         pristine upstream tree (never built in)
#   build/valgrind-V/                  patched build copy
#   build/valgrind-V.state/            manifest and stamps of the build copy
#   build/valgrind-stock/              unpatched build copy
#   build/stock-install/               its installation
#   build/regtest/                     results of `make regtest-upstream`
#   build/inner-stock/, inner-patched/ self-hosting copies (`make bench`)
#   build/quilt/valgrind-V/            quilt tree for editing patches
#   build/cross-arm64/                 the patched tree built for aarch64
#   build/cross-x86/                   the patched tree built for x86 (32-bit)
#   build/x86-include/asm              -> /usr/include/x86_64-linux-gnu/asm
#   stage/                             staged patched Valgrind (bin/valgrind)
#
# How the staged and the installed Valgrind find their tools: Valgrind bakes
# $(pkglibexecdir) into the launcher and every tool at configure time, and
# both honour $VALGRIND_LIB instead when it is set.  The patched copy is
# configured with the project's --prefix, so `make install` yields a normal
# Valgrind.  stage/ is the same build installed with prefix=stage; its
# bin/valgrind is a small script that sets VALGRIND_LIB to stage's
# libexec/valgrind and runs the real launcher, libexec/valgrind-jit/valgrind.
#
# Inputs (environment):
#   VGJIT_SRCDIR VGJIT_BUILDDIR      absolute source and build directories
#   VALGRIND_VERSION VALGRIND_DEBVERSION VALGRIND_SHA256
#   VALGRIND_TARBALL   optional: a local copy of the tarball (no network)
#   VALGRIND_SRC       optional: a pristine upstream tree (e.g. git checkout)
#   VGJIT_PREFIX       the project's configured prefix
#   VGJIT_JOBS         parallel jobs (default: nproc)
#   VGJIT_VERBOSE      1: show the upstream build's output instead of logging it
#   DESTDIR            for install/uninstall
set -euo pipefail
shopt -s inherit_errexit

die() {
  printf '%s\n' "$@" | sed 's/^/error: /' >&2
  exit 1
}
note() { echo "valgrind-tree: $*"; }
warn() { echo "warning: $*" >&2; }

: "${VGJIT_SRCDIR:?}" "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}" \
  "${VALGRIND_DEBVERSION:?}" "${VALGRIND_SHA256:?}"
VALGRIND_TARBALL=${VALGRIND_TARBALL:-}
VALGRIND_SRC=${VALGRIND_SRC:-}
VGJIT_PREFIX=${VGJIT_PREFIX:-/usr/local}
VGJIT_JOBS=${VGJIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
VGJIT_VERBOSE=${VGJIT_VERBOSE:-0}

# The upstream builds are driven by their own make with their own -j; the
# outer make's flags (jobserver descriptors, -n, -k) must not leak into them.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS || true
MAKE_CMD=make

V=$VALGRIND_VERSION
TARNAME="valgrind_${V}.orig.tar.bz2"
PATCHDIR="$VGJIT_SRCDIR/coregrind-patch"
SERIES="$PATCHDIR/series"
FILESDIR="$PATCHDIR/files"
DOWNLOAD="$VGJIT_BUILDDIR/download"
CACHED_TARBALL="$DOWNLOAD/$TARNAME"
BUILD="$VGJIT_BUILDDIR/build"
PRISTINE_PARENT="$BUILD/pristine"
PRISTINE="$PRISTINE_PARENT/valgrind-$V"
PRISTINE_ID_FILE="$PRISTINE_PARENT/source-id"
TREE="$BUILD/valgrind-$V"
STATE="$BUILD/valgrind-$V.state"
STAGE="$VGJIT_BUILDDIR/stage"
STOCK_TREE="$BUILD/valgrind-stock"
STOCK_INSTALL="$BUILD/stock-install"
REGTEST_DIR="$BUILD/regtest"
QUILT_TREE="$BUILD/quilt/valgrind-$V"
CONFIGURE_ARGS=(--enable-only64bit "--prefix=$VGJIT_PREFIX")

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# ---------------------------------------------------------------------------
# Obtaining the pristine upstream tree
# ---------------------------------------------------------------------------

# The identity of the upstream source in use: what the pristine tree was made
# from.  A change (e.g. reconfiguring with --with-valgrind-src) re-derives
# everything.
source_id() {
  if [ -n "$VALGRIND_SRC" ]; then echo "src $VALGRIND_SRC"
  else echo "tarball $VALGRIND_SHA256"; fi
}

tarball_help() {
  echo "Get $TARNAME (sha256 $VALGRIND_SHA256), e.g. from Debian's"
  echo "source package valgrind $VALGRIND_DEBVERSION, and run:"
  echo "  ./configure --with-valgrind-tarball=PATH"
}

# Make $CACHED_TARBALL exist and match the pinned hash.
ensure_tarball() {
  mkdir -p "$DOWNLOAD"
  if [ -f "$CACHED_TARBALL" ]; then
    if [ "$(sha256_of "$CACHED_TARBALL")" = "$VALGRIND_SHA256" ]; then return 0; fi
    warn "$CACHED_TARBALL does not match the pinned sha256; removing it"
    rm -f "$CACHED_TARBALL"
  fi
  if [ -n "$VALGRIND_TARBALL" ]; then
    [ -f "$VALGRIND_TARBALL" ] || die "--with-valgrind-tarball=$VALGRIND_TARBALL: no such file" "$(tarball_help)"
    local got
    got=$(sha256_of "$VALGRIND_TARBALL")
    if [ "$got" != "$VALGRIND_SHA256" ]; then
      die "$VALGRIND_TARBALL is not the pinned Valgrind $V tarball:" \
          "  its sha256 is $got" \
          "  expected      $VALGRIND_SHA256" \
          "$(tarball_help)"
    fi
    cp "$VALGRIND_TARBALL" "$CACHED_TARBALL.tmp"
    mv "$CACHED_TARBALL.tmp" "$CACHED_TARBALL"
    note "copied $VALGRIND_TARBALL to $CACHED_TARBALL"
    return 0
  fi
  if ! sh "$VGJIT_SRCDIR/build-aux/fetch-valgrind-source.sh" "$V" "$VALGRIND_DEBVERSION" \
         "$VALGRIND_SHA256" "$CACHED_TARBALL"; then
    rm -f "$CACHED_TARBALL" "$CACHED_TARBALL.tmp"
    die "could not download the Valgrind $V source (see above)." "$(tarball_help)"
  fi
  [ "$(sha256_of "$CACHED_TARBALL")" = "$VALGRIND_SHA256" ] \
    || { rm -f "$CACHED_TARBALL"; die "the downloaded $TARNAME does not match the pinned sha256." "$(tarball_help)"; }
}

# Check that DIR holds Valgrind $V (configure.ac's version macros).
check_upstream_version() {
  local dir=$1 got
  [ -f "$dir/configure.ac" ] && [ -d "$dir/coregrind" ] \
    || die "$dir does not look like a Valgrind source tree (no configure.ac or coregrind/)"
  got=$(sh "$VGJIT_SRCDIR/build-aux/valgrind-version.sh" "$dir" 2>/dev/null || echo unknown)
  [ "$got" = "$V" ] || die "$dir is Valgrind $got, but this project is pinned to Valgrind $V"
}

ensure_pristine() {
  local id
  id=$(source_id)
  if [ -d "$PRISTINE" ] && [ -f "$PRISTINE_ID_FILE" ] && [ "$(cat "$PRISTINE_ID_FILE")" = "$id" ] ; then
    return 0
  fi
  rm -rf "$PRISTINE_PARENT"
  mkdir -p "$PRISTINE_PARENT/tmp"
  if [ -n "$VALGRIND_SRC" ]; then
    [ -d "$VALGRIND_SRC" ] || die "--with-valgrind-src=$VALGRIND_SRC: no such directory"
    check_upstream_version "$VALGRIND_SRC"
    note "copying $VALGRIND_SRC to $PRISTINE"
    mkdir -p "$PRISTINE_PARENT/tmp/valgrind-$V"
    tar -C "$VALGRIND_SRC" --exclude=.git -cf - . | tar -C "$PRISTINE_PARENT/tmp/valgrind-$V" -xf -
  else
    ensure_tarball
    note "unpacking $CACHED_TARBALL"
    tar -C "$PRISTINE_PARENT/tmp" -xjf "$CACHED_TARBALL"
    [ -d "$PRISTINE_PARENT/tmp/valgrind-$V" ] || die "$CACHED_TARBALL does not contain valgrind-$V/"
    check_upstream_version "$PRISTINE_PARENT/tmp/valgrind-$V"
  fi
  mv "$PRISTINE_PARENT/tmp/valgrind-$V" "$PRISTINE"
  rmdir "$PRISTINE_PARENT/tmp"
  echo "$id" > "$PRISTINE_ID_FILE"
}

# ---------------------------------------------------------------------------
# The patch series
# ---------------------------------------------------------------------------

# Names of the patches in series order (blank lines and # comments skipped).
series_patches() {
  [ -f "$SERIES" ] || return 0
  sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$SERIES" | grep -v '^$' || true
}

# patch_paths, diff_sections, changed_new_files, base_version: how the
# series and files/ fit together (a later patch may change a new file).
# shellcheck source=series-files.sh
. "$(dirname "${BASH_SOURCE[0]}")/series-files.sh"

# Files under coregrind-patch/files, relative to it (editor droppings skipped).
# Symbolic links are followed (files/include/jit.h links to the project's
# include/valgrind/jit.h); a dangling one is an error.
overlay_files() {
  [ -d "$FILESDIR" ] || return 0
  local broken
  broken=$(cd "$FILESDIR" && find -L . -type l -printf '%P\n')
  [ -z "$broken" ] || die "coregrind-patch/files: dangling symbolic link(s): $broken"
  (cd "$FILESDIR" && find -L . -type f ! -name '*~' ! -name '.#*' ! -name '*.sw[po]' \
     ! -name '*.orig' ! -name '*.rej' -printf '%P\n' | LC_ALL=C sort)
}

# derive OUTDIR STRICT
# Produce in OUTDIR the content that the series and files/ give to every
# file they touch, starting from pristine copies, and write OUTDIR.manifest:
# one "path<TAB>sha256" line per touched file ("-" for a file that the series
# deletes).  With STRICT=1 no fuzz is allowed, and a patch that needs fuzz or
# offsets leaves OUTDIR.fuzzy.  Never touches the build copy.
derive() {
  local out=$1 strict=$2 p path log list
  rm -rf "$out" "$out.manifest" "$out.fuzzy"
  mkdir -p "$out"
  list="$out.paths"
  : > "$list"
  local patches newchanged apply
  patches=$(series_patches)
  # Hunks against new files are not applied: files/ gives their final form.
  newchanged=$(changed_new_files)
  apply="$out.apply"
  for p in $patches; do
    [ -f "$PATCHDIR/$p" ] || die "coregrind-patch/series lists $p, but coregrind-patch/$p does not exist"
    patch_paths "$PATCHDIR/$p" > "$out.p"
    [ -s "$out.p" ] || die "coregrind-patch/$p contains no unified diff (--- / +++ headers)"
    while IFS= read -r path; do
      case "$path" in
        /*|*../*) die "coregrind-patch/$p touches $path, outside the Valgrind tree" ;;
      esac
      if ! grep -qxF -- "$path" "$list"; then
        echo "$path" >> "$list"
        if [ -f "$PRISTINE/$path" ]; then
          mkdir -p "$out/$(dirname "$path")"
          cp -p "$PRISTINE/$path" "$out/$path"
        fi
      fi
    done < "$out.p"
    local fuzz=()
    if [ "$strict" = 1 ]; then fuzz=(-F0); fi
    # shellcheck disable=SC2086 # one path a word
    diff_sections "$PATCHDIR/$p" except $newchanged > "$apply"
    # A patch that changes only new files has nothing to apply here.
    grep -q '^+++ ' "$apply" || continue
    if ! log=$(cd "$out" && patch -p1 --batch --forward --no-backup-if-mismatch -r - "${fuzz[@]}" -i "$apply" 2>&1); then
      echo "$log" >&2
      die "coregrind-patch/$p does not apply to pristine Valgrind $V" \
          "(after the patches before it in coregrind-patch/series)." \
          "Regenerate it against a pristine tree: build/pristine/valgrind-$V is one."
    fi
    if echo "$log" | grep -Eq 'offset|fuzz'; then
      echo "$log" | grep -E 'offset|fuzz' | sed "s|^|  coregrind-patch/$p: |" >&2
      if [ "$strict" = 1 ]; then
        touch "$out.fuzzy"
      else
        warn "coregrind-patch/$p applies only with fuzz or offsets; make check will fail until it is regenerated"
      fi
    fi
  done
  rm -f "$out.p" "$apply"
  local f
  # Each later change of a new file takes back from its final form.
  for f in $newchanged; do base_version "$f" "$out.base"; done
  rm -f "$out.base"
  overlay_files > "$out.files"
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    mkdir -p "$out/$(dirname "$f")"
    cp "$FILESDIR/$f" "$out/$f"
    grep -qxF -- "$f" "$list" || echo "$f" >> "$list"
  done < "$out.files"
  rm -f "$out.files"
  LC_ALL=C sort -u "$list" | while IFS= read -r path; do
    if [ -f "$out/$path" ]; then
      printf '%s\t%s\n' "$path" "$(sha256_of "$out/$path")"
    else
      printf '%s\t-\n' "$path"
    fi
  done > "$out.manifest"
  rm -f "$list"
}

# ---------------------------------------------------------------------------
# The patched build copy
# ---------------------------------------------------------------------------

current_sum() {  # current_sum TREE PATH: sha256 or "-" when absent
  if [ -f "$1/$2" ]; then sha256_of "$1/$2"; else echo -; fi
}
pristine_sum() {
  if [ -f "$PRISTINE/$1" ]; then sha256_of "$PRISTINE/$1"; else echo -; fi
}
manifest_sum() {  # manifest_sum FILE PATH: the recorded sum, empty if none
  [ -f "$1" ] || return 0
  awk -F'\t' -v p="$2" '$1 == p { print $2; exit }' "$1"
}

run_logged() {  # run_logged LOGFILE DESCRIPTION CMD...: run in the current dir
  local log=$1 what=$2; shift 2
  note "$what (log: $log)"
  if [ "$VGJIT_VERBOSE" = 1 ]; then
    "$@" 2>&1 | tee "$log"
    return "${PIPESTATUS[0]}"
  fi
  if ! "$@" > "$log" 2>&1; then
    echo "---- last lines of $log ----" >&2
    tail -n 40 "$log" >&2
    echo "----" >&2
    return 1
  fi
}

# Run upstream's autogen.sh without letting it configure the enclosing git
# repository (it runs `git config` when inside a work tree).
run_autogen() {
  local tree=$1 log=$2
  (cd "$tree" && GIT_CEILING_DIRECTORIES="$(dirname "$tree")" GIT_DIR=/nonexistent \
     run_logged "$log" "running autogen.sh in $tree" ./autogen.sh) \
    || die "autogen.sh failed in $tree (see $log)"
}

# autogen.sh rewrites configure and every Makefile.in, even when their
# content stays the same; new mtimes would make the upstream build rerun
# configure (which regenerates include/valgrind.h and so recompiles dozens of
# objects).  run_autogen_keeping_mtimes gives unchanged outputs their old
# mtimes back, and sets CONFIGURE_CHANGED=1 when configure itself changed
# (then configure must run again; otherwise make regenerates the Makefiles
# whose Makefile.in changed through config.status).
CONFIGURE_CHANGED=0
run_autogen_keeping_mtimes() {
  local snap="$STATE/autogen-snap" f
  CONFIGURE_CHANGED=0
  rm -rf "$snap"
  mkdir -p "$snap"
  (cd "$TREE" && find . -path ./autom4te.cache -prune -o -type f \( -name 'Makefile*.in' -o -path ./configure \
     -o -path ./aclocal.m4 -o -path ./config.h.in \) -printf '%P\n') > "$snap.list"
  tar -C "$TREE" -cf - -T "$snap.list" | tar -C "$snap" -xf -
  run_autogen "$TREE" "$STATE/autogen.log"
  while IFS= read -r f; do
    if cmp -s "$TREE/$f" "$snap/$f"; then touch -r "$snap/$f" "$TREE/$f"; fi
  done < "$snap.list"
  if [ ! -f "$snap/configure" ] || ! cmp -s "$TREE/configure" "$snap/configure" \
     || ! cmp -s "$TREE/config.h.in" "$snap/config.h.in"; then
    CONFIGURE_CHANGED=1
  fi
  rm -rf "$snap" "$snap.list"
}

write_wrapper() {
  local launcher="$STAGE/libexec/valgrind-jit/valgrind"
  if [ -f "$STAGE/bin/valgrind" ] && ! grep -q 'VGJIT-STAGE-WRAPPER' "$STAGE/bin/valgrind" 2>/dev/null; then
    mkdir -p "$(dirname "$launcher")"
    mv -f "$STAGE/bin/valgrind" "$launcher"
  fi
  [ -x "$launcher" ] || die "the staged launcher $launcher is missing"
  cat > "$STAGE/bin/valgrind.tmp" <<'EOF'
#!/bin/sh
# VGJIT-STAGE-WRAPPER: the staged valgrind-jit Valgrind (not for installation).
# Valgrind finds its tools in the libexec directory baked in at configure
# time (the project's --prefix) unless VALGRIND_LIB names another one; this
# script points it at the staged tools and runs the real launcher.
stage=$(dirname "$(dirname "$(readlink -f "$0")")")
VALGRIND_LIB="$stage/libexec/valgrind"
export VALGRIND_LIB
exec "$stage/libexec/valgrind-jit/valgrind" "$@"
EOF
  chmod +x "$STAGE/bin/valgrind.tmp"
  mv -f "$STAGE/bin/valgrind.tmp" "$STAGE/bin/valgrind"
}

# The manual: the tarball ships the HTML manual (docs/html/) and the man
# pages (docs/*.1) generated from docs/xml/*.xml, the tools' docs/*.xml and
# NEWS; the series changes only those sources, and upstream's own targets
# (docs/Makefile.am: man-pages, html-docs) regenerate the outputs whenever
# a source differs from the one they were last made from.
regen_docs() {
  local sum
  sum=$(cd "$TREE" && cat NEWS docs/xml/*.xml ./*/docs/*.xml | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$STATE/docs-sum" 2>/dev/null)" = "$sum" ] && [ -f "$TREE/docs/valgrind.1" ] \
     && [ -f "$TREE/docs/html/index.html" ]; then
    return 0
  fi
  command -v xsltproc > /dev/null \
    || die "xsltproc is not installed: it regenerates Valgrind's manual and man pages" \
           "from the patched XML (build-aux/install-deps.sh installs it with docbook-xsl)"
  rm -f "$STATE/docs-sum"
  (cd "$TREE/docs" && run_logged "$STATE/docs.log" "regenerating the man pages and the HTML manual" \
     $MAKE_CMD man-pages html-docs) \
    || die "regenerating Valgrind's manual failed (see $STATE/docs.log)"
  # xsltproc reports a broken cross reference and goes on: refuse it here.
  if grep -E 'no ID for constraint linkend|XRef to nonexistent id|No localization exists' \
       "$STATE/docs.log" > "$STATE/docs.errors"; then
    die "the manual has broken cross references (see $STATE/docs.errors)"
  fi
  echo "$sum" > "$STATE/docs-sum"
}

cmd_stage() {
  ensure_pristine
  mkdir -p "$BUILD"
  local id
  id=$(cat "$PRISTINE_ID_FILE")
  if [ ! -d "$TREE" ] || [ ! -f "$STATE/source-id" ] || [ "$(cat "$STATE/source-id")" != "$id" ]; then
    rm -rf "$TREE" "$STATE" "$TREE.tmp"
    note "copying the pristine tree to $TREE"
    cp -a "$PRISTINE" "$TREE.tmp"
    mv "$TREE.tmp" "$TREE"
    mkdir -p "$STATE"
    echo "$id" > "$STATE/source-id"
    # A tree without configure (a git checkout) needs autogen.sh once.
    [ -f "$TREE/configure" ] || touch "$STATE/need-autogen"
  fi

  # What the series produces now.
  derive "$STATE/derived" 0

  # Bring the build copy to the derived state, touching only files whose
  # content changes (so that make rebuilds only what depends on them).
  local changed=0 build_system_changed=0 path want cur
  {
    cut -f1 "$STATE/derived.manifest"
    if [ -f "$STATE/manifest" ]; then cut -f1 "$STATE/manifest"; fi
  } | LC_ALL=C sort -u > "$STATE/paths"
  while IFS= read -r path; do
    want=$(manifest_sum "$STATE/derived.manifest" "$path")
    [ -n "$want" ] || want=$(pristine_sum "$path")   # no longer touched: back to pristine
    cur=$(current_sum "$TREE" "$path")
    [ "$cur" = "$want" ] && continue
    changed=$((changed + 1))
    # coregrind-patch/ is the source of truth: an edit made in the build
    # copy is kept aside, never merged (edit with `make edit-patch`).
    if [ "$cur" != - ] && [ "$cur" != "$(manifest_sum "$STATE/manifest" "$path")" ] \
       && [ "$cur" != "$(pristine_sum "$path")" ]; then
      warn "$TREE/$path was edited by hand; kept as $path.hand-edit and overwritten" \
           "(make edit-patch FILE=$path edits the series, HACKING.md)"
      cp "$TREE/$path" "$TREE/$path.hand-edit"
    fi
    if [ "$want" = - ]; then
      note "removing $path"
      rm -f "$TREE/$path"
    else
      local from="$STATE/derived/$path"
      [ -n "$(manifest_sum "$STATE/derived.manifest" "$path")" ] || from="$PRISTINE/$path"
      note "updating $path"
      mkdir -p "$TREE/$(dirname "$path")"
      cp "$from" "$TREE/$path.vgjit-tmp"
      mv "$TREE/$path.vgjit-tmp" "$TREE/$path"
    fi
    case "$path" in
      *.am|configure.ac|*.m4|*.in) build_system_changed=1 ;;
    esac
  done < "$STATE/paths"
  cp "$STATE/derived.manifest" "$STATE/manifest"
  # Recorded before building, so that an interrupted build is redone.
  if [ "$build_system_changed" = 1 ]; then touch "$STATE/need-autogen"; fi
  if [ "$changed" -gt 0 ]; then rm -f "$STATE/staged"; fi

  local want_args
  want_args=$(printf '%s\n' "${CONFIGURE_ARGS[@]}")
  if [ -f "$STATE/staged" ] && [ ! -f "$STATE/need-autogen" ] && [ -f "$TREE/config.status" ] \
     && [ "$(cat "$STATE/configure-args" 2>/dev/null)" = "$want_args" ] \
     && [ -x "$STAGE/bin/valgrind" ] && [ -x "$STAGE/libexec/valgrind-jit/valgrind" ] \
     && [ -f "$STATE/docs-sum" ]; then
    note "stage/ is up to date"
    return 0
  fi
  rm -f "$STATE/staged"

  if [ -f "$STATE/need-autogen" ]; then
    if [ -f "$TREE/config.status" ]; then
      run_autogen_keeping_mtimes
      if [ "$CONFIGURE_CHANGED" = 1 ]; then rm -f "$STATE/configure-args"; fi  # configure runs below
    else
      run_autogen "$TREE" "$STATE/autogen.log"
    fi
    rm -f "$STATE/need-autogen"
  fi
  if [ ! -f "$TREE/config.status" ] || [ "$(cat "$STATE/configure-args" 2>/dev/null)" != "$want_args" ]; then
    local was_configured=0
    [ -f "$TREE/config.status" ] && was_configured=1
    local old_args
    old_args=$(cat "$STATE/configure-args" 2>/dev/null || true)
    rm -f "$STATE/configure-args"
    (cd "$TREE" && run_logged "$STATE/configure.log" "configuring $TREE: ${CONFIGURE_ARGS[*]}" \
       ./configure "${CONFIGURE_ARGS[@]}") || die "configure failed in $TREE (see $STATE/configure.log)"
    # The install path is compiled into every object (-DVG_LIBDIR): when the
    # prefix changed, nothing built before may be kept.
    if [ "$was_configured" = 1 ] && [ -n "$old_args" ] && [ "$old_args" != "$want_args" ]; then
      note "configure arguments changed: cleaning $TREE"
      (cd "$TREE" && $MAKE_CMD clean > /dev/null)
    fi
    echo "$want_args" > "$STATE/configure-args"
  fi
  (cd "$TREE" && run_logged "$STATE/make.log" "building $TREE with $VGJIT_JOBS jobs" \
     $MAKE_CMD -j"$VGJIT_JOBS") || die "building the patched Valgrind failed (see $STATE/make.log)"
  regen_docs
  (cd "$TREE" && run_logged "$STATE/install.log" "staging into $STAGE" \
     $MAKE_CMD install prefix="$STAGE" exec_prefix="$STAGE") \
     || die "staging the patched Valgrind failed (see $STATE/install.log)"
  write_wrapper
  touch "$STATE/staged"
  note "staged: $STAGE/bin/valgrind ($("$STAGE/bin/valgrind" --version))"
}

cmd_install() {
  [ -f "$STATE/staged" ] || die "the patched Valgrind is not built; run make first"
  local want_args
  want_args=$(printf '%s\n' "${CONFIGURE_ARGS[@]}")
  [ "$(cat "$STATE/configure-args")" = "$want_args" ] \
    || die "the patched Valgrind was configured for another prefix; run make first"
  (cd "$TREE" && $MAKE_CMD install DESTDIR="${DESTDIR:-}") || die "make install failed in $TREE"
}

cmd_uninstall() {
  [ -f "$TREE/Makefile" ] || { note "no patched build copy; nothing to uninstall"; return 0; }
  (cd "$TREE" && $MAKE_CMD uninstall DESTDIR="${DESTDIR:-}")
  # Upstream's docs/Makefile.am copies the manual (html/, the man pages, the
  # PDF and PostScript manuals) in an install-data-hook and has no
  # uninstall counterpart: remove what that hook installs.
  local dirs datadir mandir d=${DESTDIR:-}
  dirs=$(cd "$TREE/docs" && printf 'vgjit-print-dirs:\n\t@echo $(datadir) $(mandir)\n' \
           | $MAKE_CMD -s --no-print-directory -f Makefile -f - vgjit-print-dirs) \
    || die "cannot read the install directories from $TREE/docs/Makefile"
  read -r datadir mandir <<< "$dirs"
  [ -n "$datadir" ] && [ -n "$mandir" ] || die "empty install directories in $TREE/docs/Makefile"
  local page
  for page in "$TREE"/docs/*.1; do
    if [ -e "$page" ]; then rm -f "$d$mandir/man1/${page##*/}"; fi
  done
  rm -rf "$d$datadir/doc/valgrind/html"
  rm -f "$d$datadir/doc/valgrind/valgrind_manual.pdf" "$d$datadir/doc/valgrind/valgrind_manual.ps"
  rmdir "$d$datadir/doc/valgrind" 2>/dev/null || true
}

# ---------------------------------------------------------------------------
# Stock (unpatched) Valgrind
# ---------------------------------------------------------------------------

cmd_stock() {
  ensure_pristine
  local id stamp="$STOCK_TREE.vgjit-done"
  id="$(cat "$PRISTINE_ID_FILE") prefix=$STOCK_INSTALL"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ] && [ -x "$STOCK_INSTALL/bin/valgrind" ]; then
    note "stock Valgrind is up to date: $STOCK_INSTALL/bin/valgrind"
    return 0
  fi
  rm -rf "$STOCK_TREE" "$STOCK_TREE.tmp" "$STOCK_INSTALL" "$stamp"
  note "copying the pristine tree to $STOCK_TREE"
  cp -a "$PRISTINE" "$STOCK_TREE.tmp"
  mv "$STOCK_TREE.tmp" "$STOCK_TREE"
  [ -f "$STOCK_TREE/configure" ] || run_autogen "$STOCK_TREE" "$BUILD/stock-autogen.log"
  (cd "$STOCK_TREE" && run_logged "$BUILD/stock-configure.log" "configuring $STOCK_TREE" \
     ./configure --enable-only64bit --prefix="$STOCK_INSTALL") || die "configure failed in $STOCK_TREE"
  (cd "$STOCK_TREE" && run_logged "$BUILD/stock-make.log" "building $STOCK_TREE with $VGJIT_JOBS jobs" \
     $MAKE_CMD -j"$VGJIT_JOBS") || die "building the stock Valgrind failed (see $BUILD/stock-make.log)"
  (cd "$STOCK_TREE" && run_logged "$BUILD/stock-install.log" "installing into $STOCK_INSTALL" \
     $MAKE_CMD install) || die "installing the stock Valgrind failed"
  echo "$id" > "$stamp"
  note "stock: $STOCK_INSTALL/bin/valgrind ($("$STOCK_INSTALL/bin/valgrind" --version))"
}

# ---------------------------------------------------------------------------
# Self-hosting copies (make bench)
# ---------------------------------------------------------------------------

# inner_one NAME SOURCE-TREE ID: $BUILD/inner-NAME, a copy of SOURCE-TREE
# configured with --enable-inner (upstream's self-hosting: an outer Valgrind
# can run it) and built in place (vg-in-place); rebuilt only when ID, which
# names the source tree's content, changes.
inner_one() {
  local name=$1 src=$2 id=$3
  local dir="$BUILD/inner-$name" stamp="$BUILD/inner-$name.vgjit-done"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ] && [ -x "$dir/vg-in-place" ]; then
    note "self-hosting $name Valgrind is up to date: $dir/vg-in-place"
    return 0
  fi
  rm -rf "$dir" "$dir.tmp" "$stamp"
  note "copying $src to $dir"
  cp -a "$src" "$dir.tmp"
  mv "$dir.tmp" "$dir"
  (cd "$dir" && run_logged "$BUILD/inner-$name-configure.log" "configuring $dir with --enable-inner" \
     ./configure --enable-only64bit --enable-inner --prefix="$dir/not-installed") \
    || die "configure failed in $dir"
  (cd "$dir" && run_logged "$BUILD/inner-$name-make.log" "building $dir with $VGJIT_JOBS jobs" \
     $MAKE_CMD -j"$VGJIT_JOBS") || die "building $dir failed (see $BUILD/inner-$name-make.log)"
  echo "$id" > "$stamp"
  note "self-hosting $name Valgrind: $dir/vg-in-place"
}

# cmd_inner [stock] [patched]: the named self-hosting copies (both when
# none is named).
cmd_inner() {
  local which=${*:-stock patched} w
  cmd_stage
  for w in $which; do
    case $w in
      stock) cmd_stock
             inner_one stock "$STOCK_TREE" "$(cat "$PRISTINE_ID_FILE")" ;;
      patched) inner_one patched "$TREE" "$(cat "$PRISTINE_ID_FILE") $(sha256_of "$STATE/manifest")" ;;
      *) die "inner: unknown copy '$w' (stock or patched)" ;;
    esac
  done
}

# ---------------------------------------------------------------------------
# Strict series check (make check)
# ---------------------------------------------------------------------------

cmd_check_series() {
  ensure_pristine
  local out="$BUILD/check-series"
  mkdir -p "$BUILD"
  local n
  n=$(series_patches | wc -l)
  derive "$out" 1
  if [ -f "$out.fuzzy" ]; then
    rm -f "$out.fuzzy"
    die "the patch series applies only with fuzz or offsets (see above);" \
        "regenerate the patches listed against build/pristine/valgrind-$V"
  fi
  # Patches present but not listed are probably a mistake.
  local p listed
  listed=$(series_patches)
  for p in "$PATCHDIR"/*.patch "$PATCHDIR"/*.diff; do
    [ -f "$p" ] || continue
    echo "$listed" | grep -qxF "$(basename "$p")" || warn "coregrind-patch/$(basename "$p") is not listed in coregrind-patch/series"
  done
  note "coregrind-patch/series: $n patch(es) apply to pristine Valgrind $V with no fuzz and no offsets;" \
       "$(overlay_files | wc -l) file(s) from coregrind-patch/files; $(wc -l < "$out.manifest") path(s) touched"
  rm -rf "$out" "$out.manifest"
}

# The quilt tree, upstream's regression tests and the builds for other
# platforms live in files of their own.
for part in quilt regtest cross; do
  # shellcheck source=/dev/null
  . "$(dirname "${BASH_SOURCE[0]}")/valgrind-tree-$part.sh"
done

# One valgrind-tree.sh at a time per build tree: two makes (say, two shells
# in the same tree) must not patch or build the same copy at once.
lock_build_tree() {
  mkdir -p "$BUILD"
  exec 9> "$BUILD/.lock"
  if ! flock -n 9; then
    note "waiting for another build in $BUILD to finish"
    flock 9
  fi
}

case "${1:-}" in
  stage|stock|check-series|install|uninstall|regtest|pristine|inner|patch-tree|edit-patch|refresh-patch|refresh-new-file-hunks|cross-arm64|cross-x86|x86-include)
    lock_build_tree ;;
esac

case "${1:-}" in
  stage) cmd_stage ;;
  stock) cmd_stock ;;
  check-series) cmd_check_series ;;
  install) cmd_install ;;
  uninstall) cmd_uninstall ;;
  regtest) cmd_regtest ;;
  pristine) ensure_pristine ;;
  inner) shift; cmd_inner "$@" ;;
  patch-tree) cmd_patch_tree ;;
  edit-patch) cmd_edit_patch ;;
  refresh-patch) cmd_refresh_patch ;;
  refresh-new-file-hunks) ensure_pristine; refresh_new_file_hunks ;;
  cross-arm64) cmd_cross_arm64 ;;
  cross-x86) cmd_cross_x86 ;;
  x86-include) x86_include; echo "$X86_INCLUDE" ;;
  *) die "usage: $0 stage|stock|check-series|install|uninstall|regtest|pristine|inner|patch-tree|edit-patch|refresh-patch|refresh-new-file-hunks|cross-arm64|cross-x86|x86-include" ;;
esac
