#!/bin/bash
# upstream-series.sh: `make upstream-series`.  Writes the patch series as
# mail-ready patches (git format-patch) against upstream's release
# VALGRIND_3_27_1, grouped in the submissions coregrind-patch/series names
# in its "# Part N (AAAA-BBBB): ..." comments, part 1 first:
#
#   build/upstream-series/partN/0000-cover-letter.patch, 0001-....patch, ...
#
# Each patch of the series becomes one commit: its diff, plus the whole new
# files under coregrind-patch/files/ that it is the first to name (in a
# Makefile.am or an #include, say), so that each commit builds on its own;
# a new file that a later patch changes is added in its base version
# (build-aux/series-files.sh) and changed by that patch's hunks.
# The commit's subject and body are the patch's Subject: and rationale.
# The base is a git repository of the pristine tree, tagged VALGRIND_3_27_1
# (with --with-valgrind-src=<upstream git checkout> the base is that tag's
# tree).  The result is checked: every patch applies with `git am` to a
# fresh clone of the base in order, and every subject is at most 72
# characters.
#
# Environment (set by Makefile.am): VGJIT_SRCDIR, VGJIT_BUILDDIR,
# VALGRIND_VERSION.
set -euo pipefail

die() { printf 'error: %s\n' "$@" >&2; exit 1; }
note() { echo "upstream-series: $*"; }

: "${VGJIT_SRCDIR:?}" "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}"
V=$VALGRIND_VERSION
TAG=VALGRIND_${V//./_}
PATCHDIR=$VGJIT_SRCDIR/coregrind-patch
FILESDIR=$PATCHDIR/files
PRISTINE=$VGJIT_BUILDDIR/build/pristine/valgrind-$V
OUT=$VGJIT_BUILDDIR/build/upstream-series
REPO=$OUT/valgrind.git-work
[ -d "$PRISTINE" ] || die "no pristine tree $PRISTINE: run make first"

export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-$(git -C "$VGJIT_SRCDIR" config user.name 2>/dev/null || echo valgrind-jit)}
export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-$(git -C "$VGJIT_SRCDIR" config user.email 2>/dev/null || echo valgrind-jit@invalid)}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE=${GIT_AUTHOR_DATE:-2026-05-20T00:00:00Z} GIT_COMMITTER_DATE=${GIT_AUTHOR_DATE:-2026-05-20T00:00:00Z}
G() { git -C "$REPO" -c gc.auto=0 -c core.autocrlf=false -c init.defaultBranch=master "$@"; }

rm -rf "$OUT"
mkdir -p "$REPO"
note "base: the pristine Valgrind $V tree as $TAG"
cp -a --no-preserve=ownership "$PRISTINE/." "$REPO/"
G init -q
G add -A -f
G commit -q -m "Valgrind $V"
G tag "$TAG"

mapfile -t patches < <(grep -v '^[[:space:]]*\(#\|$\)' "$PATCHDIR/series")
series_patches() { printf '%s\n' "${patches[@]}"; }
# base_version: a new file as the patch that adds it adds it (a later
# patch may change it).
# shellcheck source=series-files.sh
. "$VGJIT_SRCDIR/build-aux/series-files.sh"
mapfile -t newfiles < <(cd "$FILESDIR" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
declare -A owner
# The added lines of a patch that build or include a file: those of its
# Makefile.am sections and its #include lines.
build_lines() {
  awk '/^\+\+\+ / { mk = ($2 ~ /Makefile\.am$/); next }
       /^\+/ && (mk || /#[ \t]*include/)' "$PATCHDIR/$1"
}
for f in "${newfiles[@]}"; do
  b=$(basename "$f")
  # The first patch that builds or includes the file owns it; failing
  # that, the first that names it at all.
  for p in "${patches[@]}"; do
    if build_lines "$p" | grep -q "\\b${b//./\\.}\\b"; then owner[$f]=$p; break; fi
  done
  if [ -z "${owner[$f]:-}" ]; then
    for p in "${patches[@]}"; do
      if grep -q "^+.*\\b${b//./\\.}\\b" "$PATCHDIR/$p"; then owner[$f]=$p; break; fi
    done
  fi
  # A test program is named by its .vgtest (prog:), which its patch adds.
  if [ -z "${owner[$f]:-}" ] && [[ $f == */tests/*.c ]]; then
    stem=$(basename "$f" .c)
    for p in "${patches[@]}"; do
      if grep -q "^+.*\\b$stem\\b" "$PATCHDIR/$p"; then owner[$f]=$p; break; fi
    done
  fi
  [ -n "${owner[$f]:-}" ] || die "coregrind-patch/files/$f: no patch of the series names it"
done

n=0
for p in "${patches[@]}"; do
  n=$((n + 1))
  (cd "$REPO" && patch -p1 -s --no-backup-if-mismatch --fuzz=0 < "$PATCHDIR/$p") \
    || die "$p does not apply"
  for f in "${newfiles[@]}"; do
    [ "${owner[$f]}" = "$p" ] || continue
    mkdir -p "$REPO/$(dirname "$f")"
    base_version "$f" "$REPO/$f"      # a link (include/jit.h) becomes its file
  done
  subject=$(sed -n '1s/^Subject: *\(\[PATCH[^]]*\] *\)\{0,1\}//p' "$PATCHDIR/$p")
  [ -n "$subject" ] || die "$p has no Subject: line"
  [ "${#subject}" -le 72 ] || die "$p: its subject has ${#subject} characters (at most 72): $subject"
  # The rationale: the lines after the subject, up to the first diff.
  awk 'NR > 1 && /^(--- |diff |Index: )/ { exit } NR > 1 { print }' "$PATCHDIR/$p" > "$OUT/body"
  { echo "$subject"; echo; cat "$OUT/body"; } | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$OUT/msg"
  G add -A -f
  G commit -q -F "$OUT/msg"
  G tag "series-${p%%-*}"      # series-0008 for 0008-....patch
done
rm -f "$OUT/body" "$OUT/msg"

# Submissions: "# Part N (AAAA-BBBB): title." comments of the series.
# AAAA and BBBB are the number prefixes of the part's first and last patch
# (0012, 0021); the parts cover the series in order, without gaps.
mapfile -t parts < <(sed -n 's/^# Part \([0-9]*\) (\([0-9]\{4\}[a-z]*\)-\([0-9]\{4\}[a-z]*\)): *\(.*\)$/\1 \2 \3 \4/p' "$PATCHDIR/series")
first=${patches[0]%%-*} last=${patches[$((n - 1))]%%-*}
[ "${#parts[@]}" -gt 0 ] || parts=("1 $first $last the series")
declare -A index
for i in "${!patches[@]}"; do index[${patches[$i]%%-*}]=$i; done
expect=0
for part in "${parts[@]}"; do
  read -r num from to title <<< "$part"
  [ -n "${index[$from]:-}" ] || die "series: part $num starts at $from, which is no patch of the series"
  [ -n "${index[$to]:-}" ] || die "series: part $num ends at $to, which is no patch of the series"
  [ "${index[$from]}" = "$expect" ] || die "series: part $num starts at $from, not right after the previous part"
  [ "${index[$to]}" -ge "${index[$from]}" ] || die "series: part $num ends before it starts"
  expect=$((index[$to] + 1))
  base=$TAG
  [ "${index[$from]}" = 0 ] || base=series-${patches[$((index[$from] - 1))]%%-*}
  dir=$OUT/part$num
  G format-patch -q --cover-letter --no-signature --subject-prefix="PATCH part $num" \
    -o "$dir" "$base..series-$to"
  # The cover letter: the part's paragraph of the series file.
  blurb=$(awk -v n="$num" '
    $0 ~ "^# Part " n " " { on = 1; next }
    on && (/^#[[:space:]]*$/ || !/^#/) { exit }
    on { sub(/^# ?/, ""); sub(/^Part [0-9]+ \([^)]*\): */, ""); print }' "$PATCHDIR/series")
  short=$(printf '%s' "$title" | sed 's/[.]*$//')
  cover=$dir/0000-cover-letter.patch
  applies="The patches apply in order to $TAG."
  [ "$base" = "$TAG" ] || applies="The patches apply in order to $TAG with the earlier parts applied."
  python3 - "$cover" "$short" "$blurb

$applies" <<'EOF'
import sys
path, short, blurb = sys.argv[1:4]
s = open(path).read()
s = s.replace("*** SUBJECT HERE ***", short, 1)
s = s.replace("*** BLURB HERE ***", blurb, 1)
open(path, "w").write(s)
EOF
  note "part $num: $(ls "$dir" | grep -vc cover-letter) patch(es) in $dir"
done
[ "$expect" = "$n" ] || die "series: the parts end before the last patch, $last"

# Check: a fresh clone of the base takes every part with git am, in order.
check=$OUT/check.git-work
git clone -q --branch "$TAG" "$REPO" "$check" 2> /dev/null || git clone -q "$REPO" "$check"
git -C "$check" checkout -q "$TAG"
for part in "${parts[@]}"; do
  read -r num _ <<< "$part"
  for m in "$OUT/part$num"/0*.patch; do
    case $m in *0000-cover-letter.patch) continue ;; esac
    git -C "$check" am -q --whitespace=nowarn "$m" || die "git am of $m failed"
  done
done
[ -z "$(git -C "$check" diff "series-$last" -- . 2>/dev/null || true)" ] \
  || die "applying the mails does not give the series' tree"
# The last commit holds every new file in its final form.
for f in "${newfiles[@]}"; do
  cmp -s "$check/$f" "$FILESDIR/$f" \
    || die "$f at the end of the series differs from coregrind-patch/files/$f"
done
rm -rf "$check"
note "every patch applies with git am to $TAG in order; the base and one commit per patch are in $REPO"
