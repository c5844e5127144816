# series-files.sh: sourced by valgrind-tree.sh and upstream-series.sh.
# How the patch series and coregrind-patch/files/ fit together.
#
# A file new to Valgrind lives under files/ in its final form and is added
# by the first patch that builds or includes it.  A later patch may change
# such a file (a part that hooks its feature into a file an earlier part
# added): it carries that change as ordinary hunks against the file.  The
# file as its owning patch adds it is then its *base version*: the final
# form with those later hunks taken back, last patch first.  Applying the
# series to a pristine tree therefore never applies hunks to new files (the
# overlay of files/ gives their final form), and every such hunk must take
# back cleanly from the final form (check-series fails otherwise).
#
# Needs: PATCHDIR, FILESDIR, PRISTINE, and functions die and series_patches
# from the sourcing script.

# Paths (relative to the tree top, -p1) that a unified diff touches: the
# file names of each "--- " line directly followed by a "+++ " line.
patch_paths() {
  awk '
    function strip(s) { sub(/\t.*/, "", s); sub(/^[^\/]*\//, "", s); return s }
    prev != "" && /^\+\+\+ / {
      a = substr(prev, 5); b = substr($0, 5)
      if (a !~ /^\/dev\/null/) print strip(a)
      if (b !~ /^\/dev\/null/) print strip(b)
      prev = ""; next
    }
    { prev = ($0 ~ /^--- /) ? $0 : "" }
  ' "$1" | LC_ALL=C sort -u
}

# diff_sections PATCH only|except PATH...: the file sections of unified
# diff PATCH for the PATHs given (only) or for every other path (except).
# The text before the first section goes with "except".
diff_sections() {
  local patch=$1 mode=$2
  shift 2
  awk -v mode="$mode" -v paths="$*" '
    function strip(s) { sub(/\t.*/, "", s); sub(/^[^\/]*\//, "", s); return s }
    BEGIN { n = split(paths, p, " "); for (i = 1; i <= n; i++) listed[p[i]] = 1
            on = (mode == "except") }
    held != "" {
      if (/^\+\+\+ /) {
        on = ((strip(substr($0, 5)) in listed) == (mode == "only"))
        if (on) { print held; print }
        held = ""; next
      }
      if (on) print held
      held = ""
    }
    /^--- / { held = $0; next }
    on { print }
    END { if (held != "" && on) print held }
  ' "$patch"
}

# New files (under files/, absent from the pristine tree) that a patch of
# the series changes, one path a line.
changed_new_files() {
  local p f
  for p in $(series_patches); do
    for f in $(patch_paths "$PATCHDIR/$p"); do
      if [ -f "$FILESDIR/$f" ] && [ ! -e "$PRISTINE/$f" ]; then echo "$f"; fi
    done
  done | LC_ALL=C sort -u
}

# base_version FILE DEST: write to DEST the new file FILE (a path under
# files/) as the patch that adds it adds it: its final form with the
# hunks of the patches that change it taken back, last patch first.
# Exits through die when a patch's hunks do not take back with no fuzz and
# no offset (its hunks and files/FILE disagree).
base_version() {
  local f=$1 dest=$2 p log hunks
  cp -L "$FILESDIR/$f" "$dest"
  hunks=$(mktemp)
  for p in $(series_patches | tac); do
    patch_paths "$PATCHDIR/$p" | grep -qxF -- "$f" || continue
    diff_sections "$PATCHDIR/$p" only "$f" > "$hunks"
    if ! log=$(patch -R -F0 --batch --no-backup-if-mismatch -r - "$dest" < "$hunks" 2>&1) \
       || echo "$log" | grep -Eq 'offset|fuzz'; then
      rm -f "$hunks"
      echo "$log" >&2
      die "coregrind-patch/$p changes $f, but its hunks do not take back from" \
          "coregrind-patch/files/$f with no fuzz and no offset: regenerate them" \
          "(diff -u the file without the change against files/$f)"
    fi
  done
  rm -f "$hunks"
}

# replace_section PATCH PATH NEW: rewrite unified diff PATCH with the
# section for PATH replaced, in place, by the diff in file NEW.
replace_section() {
  local patch=$1 path=$2 new=$3
  awk -v path="$path" -v new="$new" '
    function strip(s) { sub(/\t.*/, "", s); sub(/^[^\/]*\//, "", s); return s }
    held != "" {
      if (/^\+\+\+ /) {
        skip = (strip(substr($0, 5)) == path)
        if (skip) { while ((getline l < new) > 0) print l; close(new) }
        else { print held; print }
        held = ""; next
      }
      if (!skip) print held
      held = ""
    }
    /^--- / { held = $0; next }
    !skip { print }
    END { if (held != "" && !skip) print held }
  ' "$patch" > "$patch.tmp" && mv "$patch.tmp" "$patch"
}

# refresh_new_file_hunks: after an edit of a new file under files/ that
# moved the lines a later patch changes, write each later patch's hunks
# against it again (exact line numbers and context), last patch first.
# Hunks that no longer take back at all (fuzz needed) stop it through die:
# those need a hand edit.
refresh_new_file_hunks() {
  local f p newer older hunks
  hunks=$(mktemp)
  for f in $(changed_new_files); do
    newer=$(mktemp)
    cp -L "$FILESDIR/$f" "$newer"
    for p in $(series_patches | tac); do
      patch_paths "$PATCHDIR/$p" | grep -qxF -- "$f" || continue
      diff_sections "$PATCHDIR/$p" only "$f" > "$hunks"
      older=$(mktemp)
      cp "$newer" "$older"
      patch -R -F0 --batch --no-backup-if-mismatch -s -r - "$older" < "$hunks" \
        || die "coregrind-patch/$p: its hunks against $f do not take back without fuzz; edit them by hand"
      diff -u --label "a/$f" --label "b/$f" "$older" "$newer" > "$hunks.new" \
        || [ $? = 1 ] || die "diff of $f failed"
      replace_section "$PATCHDIR/$p" "$f" "$hunks.new"
      echo "refreshed coregrind-patch/$p: $f"
      rm -f "$newer" "$hunks.new"
      newer=$older
    done
    rm -f "$newer"
  done
  rm -f "$hunks"
}
