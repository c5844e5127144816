#!/bin/bash
# check-mutants.sh: `make check-mutants`.  Applies each single-point
# mutation of tests/mutants.list to a scratch copy of the patched Valgrind
# build tree, rebuilds it incrementally, and runs the test cases the list
# names for it against that build.  A mutation that no named case notices
# (every case still passes) SURVIVES; the script then exits 1 and names it.
#
# Steps:
#   1. Parse the list; check that every mutation's original snippet occurs
#      exactly once in its file of the build copy build/valgrind-V/ (which
#      `make` keeps equal to pristine upstream + coregrind-patch/); any
#      other count is an error before anything is built.
#   2. Run every named case against the normal stage/: all must pass, or a
#      mutant "killed" by it would prove nothing.
#   3. Copy the build copy once to build/mutants/valgrind-V (cp -a keeps
#      the timestamps, so make rebuilds only what a mutation touches).
#   4. For each mutation: write the mutated file, `make`, run the cases with
#      VGJIT_STAGE pointing at build/mutants/stage (a stage whose
#      bin/valgrind runs the scratch tree in place), restore the file.
#
# Environment (the top-level Makefile sets the first three):
#   VGJIT_SRCDIR VGJIT_BUILDDIR VALGRIND_VERSION
#   MUTANTS        only these mutations (names separated by spaces)
#   VGJIT_MUTANTS_LIST  another list file
#   VGJIT_JOBS     parallel jobs of make (default: nproc)
# Logs: build/mutants/logs/NAME.{build,PROGRAM}.log.
set -euo pipefail

: "${VGJIT_SRCDIR:?}" "${VGJIT_BUILDDIR:?}" "${VALGRIND_VERSION:?}"
LIST=${VGJIT_MUTANTS_LIST:-$VGJIT_SRCDIR/tests/mutants.list}
TREE=$VGJIT_BUILDDIR/build/valgrind-$VALGRIND_VERSION
STAGE=$VGJIT_BUILDDIR/stage
TESTS=$VGJIT_BUILDDIR/tests
WORK=$VGJIT_BUILDDIR/build/mutants
MTREE=$WORK/valgrind-$VALGRIND_VERSION
MSTAGE=$WORK/stage
SPEC=$WORK/spec
LOGS=$WORK/logs
JOBS=${VGJIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
ONLY=${MUTANTS:-}

unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS || true

die() { echo "check-mutants: error: $*" >&2; exit 2; }
note() { echo "check-mutants: $*"; }

[ -f "$LIST" ] || die "no mutation list $LIST"
[ -x "$STAGE/bin/valgrind" ] || die "no staged Valgrind at $STAGE (run make)"
[ -f "$TREE/config.status" ] || die "no built copy of Valgrind at $TREE (run make)"

# 1. Parse: one directory per mutation under $SPEC, holding the files
# name, file, tests ("PROGRAM FILTER" lines), original, replacement.
rm -rf "$SPEC" "$LOGS"
mkdir -p "$SPEC" "$LOGS"
perl -e '
  use strict; use warnings;
  my ($list, $spec, $only) = @ARGV;
  my %only = map { $_ => 1 } split " ", $only;
  my (@m, $cur, $mode);
  open my $in, "<", $list or die "check-mutants: error: cannot read $list\n";
  while (my $l = <$in>) {
    chomp $l;
    if (defined $mode) {
      if ($mode eq "original" && $l eq "replacement") { $mode = "replacement"; next }
      if ($mode eq "replacement" && $l eq "end") { undef $mode; next }
      $cur->{$mode} .= "$l\n";
      next;
    }
    next if $l =~ /^\s*(#|$)/;
    if ($l =~ /^mutant ([A-Za-z0-9-]+)$/) {
      $cur = { name => $1, line => $. , tests => [] }; push @m, $cur;
    } elsif (!$cur) {
      die "check-mutants: error: $list:$.: \"mutant NAME\" expected\n";
    } elsif ($l =~ /^file (\S+)$/) { $cur->{file} = $1 }
    elsif ($l =~ /^test ([A-Za-z0-9_]+|[A-Za-z0-9_-]+\.sh) (\S+)$/) { push @{$cur->{tests}}, "$1 $2" }
    elsif ($l eq "original") { $mode = "original"; $cur->{original} = "" }
    else { die "check-mutants: error: $list:$.: cannot parse: $l\n" }
  }
  die "check-mutants: error: $list: snippet of $cur->{name} not closed by \"end\"\n" if defined $mode;
  my %seen; my $n = 0;
  for my $x (@m) {
    my $where = "$list:$x->{line}: mutant $x->{name}";
    die "check-mutants: error: $where: defined twice\n" if $seen{$x->{name}}++;
    for my $k (qw(file original replacement)) {
      die "check-mutants: error: $where: no $k\n" unless defined $x->{$k};
    }
    die "check-mutants: error: $where: no test line\n" unless @{$x->{tests}};
    die "check-mutants: error: $where: empty original snippet\n" if $x->{original} eq "";
    die "check-mutants: error: $where: replacement equals the original\n"
      if $x->{original} eq $x->{replacement};
    next if %only && !$only{$x->{name}};
    my $d = sprintf "%s/%02d-%s", $spec, ++$n, $x->{name};
    mkdir $d or die;
    for my $k (qw(name file original replacement)) {
      open my $o, ">", "$d/$k" or die; print $o ($k eq "name" || $k eq "file" ? "$x->{$k}\n" : $x->{$k}); close $o;
    }
    open my $o, ">", "$d/tests" or die; print $o map { "$_\n" } @{$x->{tests}}; close $o;
  }
  for my $w (keys %only) { die "check-mutants: error: no mutant named $w in $list\n" unless $seen{$w} }
' "$LIST" "$SPEC" "$ONLY" || exit 2

# apply_snippet SRC SPECDIR DEST: DEST = SRC with the original snippet
# replaced; fails unless it occurs exactly once.
apply_snippet() {
  perl -e '
    use strict; use warnings;
    my ($src, $d, $dest) = @ARGV;
    local $/;
    my $read = sub { open my $f, "<", $_[0] or die "cannot read $_[0]\n"; my $s = <$f>; $s };
    my ($text, $orig, $repl) = map { $read->($_) } $src, "$d/original", "$d/replacement";
    my $count = () = $text =~ /\Q$orig\E/g;
    if ($count != 1) {
      print STDERR "check-mutants: error: mutant ", $read->("$d/name") =~ s/\n//r,
        ": the original snippet occurs $count times in $src (must be exactly once):\n$orig";
      exit 1;
    }
    $text =~ s/\Q$orig\E/$repl/;
    if (defined $dest) { open my $o, ">", $dest or die; print $o $text; close $o }
  ' "$@"
}

mutants=()
for d in "$SPEC"/*/; do
  [ -d "$d" ] || continue
  d=${d%/}
  file=$(cat "$d/file")
  [ -f "$TREE/$file" ] || die "mutant $(cat "$d/name"): no file $file in $TREE"
  apply_snippet "$TREE/$file" "$d" || exit 2
  while read -r prog filter; do
    case $prog in
      *.sh) [ -f "$VGJIT_SRCDIR/tests/$prog" ] || die "mutant $(cat "$d/name"): no shell test tests/$prog" ;;
      *) [ -x "$TESTS/$prog" ] || die "mutant $(cat "$d/name"): no test program $TESTS/$prog (run make check-programs in tests/)" ;;
    esac
  done < "$d/tests"
  mutants+=("$d")
done
[ "${#mutants[@]}" -gt 0 ] || die "no mutation selected"
note "${#mutants[@]} mutations, every snippet found exactly once"

# run_cases STAGE PROG FILTER LOG: runs the cases; returns their status.
# A shell test of tests/ (PROG ending in .sh) runs whole; its FILTER is
# ignored (write "-").
run_cases() {
  case $2 in
    *.sh)
      env VGJIT_STAGE="$1" VGJIT_SRCDIR="$VGJIT_SRCDIR" VGJIT_BUILDDIR="$VGJIT_BUILDDIR" \
          VGJIT_TESTS_BUILDDIR="$TESTS" \
          sh "$VGJIT_SRCDIR/tests/$2" < /dev/null > "$4" 2>&1 ;;
    *)
      env VGJIT_STAGE="$1" VGJIT_SRCDIR="$VGJIT_SRCDIR" VGJIT_BUILDDIR="$VGJIT_BUILDDIR" \
          VGJIT_TESTS_BUILDDIR="$TESTS" \
          "$TESTS/$2" --run_test="$3" --log_level=error --report_level=short --color_output=no \
          < /dev/null > "$4" 2>&1 ;;
  esac
}

# 2. The cases pass without mutation.
sort -u "$SPEC"/*/tests > "$WORK/cases"
while read -r prog filter; do
  log="$LOGS/baseline.$prog.$(echo "$filter" | cksum | cut -d' ' -f1).log"
  if ! run_cases "$STAGE" "$prog" "$filter" "$log"; then
    sed 's/^/  /' "$log" | tail -20 >&2
    die "$prog --run_test=$filter fails without any mutation (see $log)"
  fi
done < "$WORK/cases"
note "every named case passes on the unmutated stage"

# 3. The scratch tree and its stage.
note "copying $TREE to $MTREE"
chmod -R u+w "$MTREE" 2>/dev/null || true
rm -rf "$MTREE" "$MSTAGE"
cp -a "$TREE" "$MTREE"
mkdir -p "$MSTAGE/bin"
for f in "$STAGE"/*; do
  [ "$(basename "$f")" = bin ] || ln -s "$f" "$MSTAGE/"
done
for f in "$STAGE"/bin/*; do
  [ "$(basename "$f")" = valgrind ] || ln -s "$f" "$MSTAGE/bin/"
done
cat > "$MSTAGE/bin/valgrind" <<EOF
#!/bin/sh
# A mutated Valgrind of \`make check-mutants\`, run in place from its build tree.
VALGRIND_LIB='$MTREE/.in_place'
export VALGRIND_LIB
exec '$MTREE/coregrind/valgrind' "\$@"
EOF
chmod +x "$MSTAGE/bin/valgrind"

# 4. Each mutation.
survived=() killed=() broken=()
for d in "${mutants[@]}"; do
  name=$(cat "$d/name")
  file=$(cat "$d/file")
  note "mutant $name ($file)"
  apply_snippet "$TREE/$file" "$d" "$MTREE/$file"
  if ! (cd "$MTREE" && make -j"$JOBS") > "$LOGS/$name.build.log" 2>&1; then
    echo "  does not build (see $LOGS/$name.build.log)"
    broken+=("$name")
  else
    by=()
    while read -r prog filter; do
      log="$LOGS/$name.$prog.log"
      if run_cases "$MSTAGE" "$prog" "$filter" "$log"; then
        echo "  $prog: every case passes"
      else
        failed=$(grep -c 'error: in "' "$log" || true)
        cases=$(sed -n 's/.*error: in "\([^"]*\)".*/\1/p' "$log" | sort -u | tr '\n' ' ')
        echo "  $prog: killed: $failed failed checks in: $cases"
        by+=("$prog")
      fi
    done < "$d/tests"
    if [ "${#by[@]}" -gt 0 ]; then killed+=("$name"); else survived+=("$name"); fi
  fi
  cp -p "$TREE/$file" "$MTREE/$file"
  touch "$MTREE/$file"
done

echo "check-mutants: ${#killed[@]} killed, ${#survived[@]} survived, ${#broken[@]} did not build"
for n in "${survived[@]}"; do echo "check-mutants: SURVIVED: $n"; done
for n in "${broken[@]}"; do echo "check-mutants: DOES NOT BUILD: $n"; done
[ "${#survived[@]}" -eq 0 ] && [ "${#broken[@]}" -eq 0 ]
