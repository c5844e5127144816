# valgrind-tree-quilt.sh: sourced by valgrind-tree.sh (its variables and helper
# functions are in scope): the quilt tree of the series, for `make
# patch-tree`, `make edit-patch` and `make refresh-patch`.

# ---------------------------------------------------------------------------
# Editing the series with quilt
# ---------------------------------------------------------------------------

# quilt in the quilt tree, with the project's settings (build-aux/quiltrc).
quilt_in_tree() {
  command -v quilt > /dev/null || die "quilt is not installed (build-aux/install-deps.sh installs it)"
  (cd "$QUILT_TREE" && QUILTRC="$VGJIT_SRCDIR/build-aux/quiltrc" quilt "$@")
}

# The series as the quilt tree last saw it: a change made elsewhere (a git
# pull, an edit of a patch file) means the tree must be made again.
series_sum() {
  (cd "$PATCHDIR" && cat series $(series_patches)) | sha256sum | cut -d' ' -f1
}

# Unrefreshed edits in the quilt tree: the applied patches whose files
# differ from what the patch says.
quilt_unrefreshed() {
  local p
  [ -d "$QUILT_TREE/.pc" ] || return 0
  for p in $(quilt_in_tree applied 2>/dev/null || true); do
    [ -z "$(quilt_in_tree diff -z -P "$p" 2>/dev/null)" ] || echo "$p"
  done
}

ensure_quilt_tree() {
  ensure_pristine
  local want
  want="$(cat "$PRISTINE_ID_FILE") $(series_sum)"
  if [ -d "$QUILT_TREE" ] && [ "$(cat "$QUILT_TREE.id" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  if [ -d "$QUILT_TREE" ]; then
    local dirty
    dirty=$(quilt_unrefreshed)
    [ -z "$dirty" ] || die "coregrind-patch/ changed, and $QUILT_TREE has edits not refreshed into:" \
        $dirty "refresh them (make refresh-patch) or remove $QUILT_TREE"
  fi
  rm -rf "$QUILT_TREE" "$QUILT_TREE.tmp"
  mkdir -p "$(dirname "$QUILT_TREE")"
  note "copying the pristine tree to $QUILT_TREE"
  cp -a "$PRISTINE" "$QUILT_TREE.tmp"
  # New files that later patches change: there from the start, in the
  # form the patch that adds them gives them, for those patches to apply.
  local f
  for f in $(changed_new_files); do
    mkdir -p "$QUILT_TREE.tmp/$(dirname "$f")"
    base_version "$f" "$QUILT_TREE.tmp/$f"
  done
  ln -s "$PATCHDIR" "$QUILT_TREE.tmp/patches"
  mv "$QUILT_TREE.tmp" "$QUILT_TREE"
  quilt_in_tree push -a -q > /dev/null || die "the series does not apply with quilt (make check-series)"
  echo "$want" > "$QUILT_TREE.id"
}

# quilt_goto PATCH: make PATCH the top applied patch.
quilt_goto() {
  if quilt_in_tree applied 2>/dev/null | grep -qxF -- "$1"; then
    [ "$(quilt_in_tree top)" = "$1" ] || quilt_in_tree pop -q "$1"
  else
    quilt_in_tree push -q "$1"
  fi
}

cmd_patch_tree() {
  ensure_quilt_tree
  if [ -n "${VGJIT_PATCH:-}" ]; then
    quilt_goto "$VGJIT_PATCH"
  elif quilt_in_tree unapplied > /dev/null 2>&1; then
    quilt_in_tree push -a -q
  fi
  note "quilt tree: $QUILT_TREE, top patch $(quilt_in_tree top)"
  note "quilt there: cd $QUILT_TREE && QUILTRC=$VGJIT_SRCDIR/build-aux/quiltrc quilt ..."
}

cmd_edit_patch() {
  local file=${VGJIT_FILE:-} patch=${VGJIT_PATCH:-}
  [ -n "$file" ] || die "usage: make edit-patch FILE=path/in/valgrind [PATCHNAME=NNNN-name.patch]"
  ensure_quilt_tree
  [ -n "$patch" ] || patch=$(quilt_in_tree patches "$file" 2>/dev/null | tail -n 1 || true)
  [ -n "$patch" ] || die "no patch of the series changes $file; name one with PATCHNAME=NNNN-name.patch" \
      "(a new file belongs under coregrind-patch/files/)"
  quilt_goto "$patch"
  note "editing $file in $patch (then: make refresh-patch)"
  quilt_in_tree edit "$file"
}

cmd_refresh_patch() {
  [ -d "$QUILT_TREE/.pc" ] || die "no quilt tree; make edit-patch FILE=... first"
  quilt_in_tree refresh
  echo "$(cat "$PRISTINE_ID_FILE") $(series_sum)" > "$QUILT_TREE.id"
  note "refreshed coregrind-patch/$(quilt_in_tree top); \`make\` builds it"
}

