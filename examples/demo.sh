#!/bin/bash
# demo.sh - shows valgrind-jit at work on minijit, the example JIT.
#
# usage: demo.sh [SAMPLE.mj]        (default: fib.mj next to this script)
# environment: VGJIT_STAGE  the staged patched Valgrind (default: ../stage
#                           relative to this script's directory)
#              MINIJIT      the minijit binary (default: examples/minijit
#                           in the parent of VGJIT_STAGE)
#
# `make demo` runs it with the build tree's paths.  It builds nothing: it
# runs minijit on the sample under the staged Callgrind (callgrind_annotate
# with the per-line annotation of the .mj source), Cachegrind (cg_annotate)
# and Memcheck, and prints short, thresholded reports.  Then it shows a
# Memcheck stack trace through tier-1 code, which keeps no frame pointer,
# with and without the unwind information minijit registers, and with a
# call that tier 1 inlined (errors/bounds_tier1.mj without bounds checks).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
stage=${VGJIT_STAGE:-$here/../stage}
minijit=${MINIJIT:-$(dirname "$stage")/examples/minijit}
sample=${1:-$here/fib.mj}

die() { echo "demo.sh: $*" >&2; exit 1; }
[ -x "$stage/bin/valgrind" ] || die "no staged Valgrind at $stage/bin/valgrind (run make first)"
[ -x "$minijit" ] || die "no minijit at $minijit (run make first)"
[ -r "$sample" ] || die "cannot read $sample"
sample=$(cd "$(dirname "$sample")" && pwd)/$(basename "$sample")

work=$(mktemp -d "${TMPDIR:-/tmp}/vgjit-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

banner() {
    printf '\n'
    printf '=%.0s' {1..78}
    printf '\n== %s\n' "$*"
    printf '=%.0s' {1..78}
    printf '\n\n'
}

# Valgrind's own summary lines, without the "==PID== " prefix.
vg_summary() { sed -n 's/^==[0-9]*== //p' "$1" | grep -E "$2" || true; }

banner "The program: $(basename "$sample"), run natively by minijit"
(cd "$work" && "$minijit" --verbose "$sample")

banner "1. Callgrind: valgrind --tool=callgrind minijit $(basename "$sample")"
(cd "$work" && "$stage/bin/valgrind" --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    "$minijit" "$sample" >"$work/callgrind.stdout" 2>"$work/callgrind.log") ||
    { cat "$work/callgrind.log" >&2; die "callgrind run failed"; }
cat "$work/callgrind.stdout"
vg_summary "$work/callgrind.log" 'Collected|refs'
echo
echo "--- callgrind_annotate --threshold=95 $(basename "$sample") (functions by self cost, then the"
echo "    source line by line; MiniJit functions are in object minijit:$(basename "$sample"), and"
echo "    Callgrind names recursive activations NAME'2)"
# Run from $work: callgrind_annotate shortens file names under the current
# directory, and the source file is matched by its full name.
(cd "$work" && "$stage/bin/callgrind_annotate" --threshold=95 --auto=no --context=2 \
    callgrind.out "$sample")

banner "2. Cachegrind: valgrind --tool=cachegrind --cache-sim=yes minijit $(basename "$sample")"
(cd "$work" && "$stage/bin/valgrind" --tool=cachegrind --cache-sim=yes \
    --cachegrind-out-file="$work/cachegrind.out" \
    "$minijit" "$sample" >"$work/cachegrind.stdout" 2>"$work/cachegrind.log") ||
    { cat "$work/cachegrind.log" >&2; die "cachegrind run failed"; }
vg_summary "$work/cachegrind.log" 'I *refs|D *refs|D1 *misses|LL misses'
echo
echo "--- cg_annotate --threshold 2 --show Ir,Dr,Dw,D1mr,D1mw:"
(cd "$work" && "$stage/bin/cg_annotate" --threshold 2 --show Ir,Dr,Dw,D1mr,D1mw --context 2 cachegrind.out)

banner "3. Memcheck: valgrind --leak-check=full minijit $(basename "$sample")"
(cd "$work" && "$stage/bin/valgrind" --tool=memcheck --leak-check=full \
    "$minijit" "$sample" >"$work/memcheck.stdout" 2>"$work/memcheck.log") ||
    { cat "$work/memcheck.log" >&2; die "memcheck run failed"; }
cat "$work/memcheck.stdout"
vg_summary "$work/memcheck.log" 'in use at exit|All heap blocks|definitely|ERROR SUMMARY'

bad=$here/errors/bounds_tier1.mj
banner "4. Memcheck: an invalid read in tier-1 code, three calls deep (errors/bounds_tier1.mj)"
echo "minijit --no-bounds-checks turns the program's index error into a read past the end"
echo "of the array.  lookup, scale and check run tier-1 code, which keeps no frame pointer;"
echo "main runs tier-0 code, which does.  minijit registers tier-1 code with its .eh_frame,"
echo "so the stack goes through every MiniJit frame into the engine (--tier-names shows the"
echo "tiers):"
echo
# Valgrind's report of the read, from its first line to the block it missed.
invalid_read() {
    (cd "$work" && "$stage/bin/valgrind" --tool=memcheck --num-callers=8 \
        "$minijit" --tier-names --no-bounds-checks "$@" "$bad" >/dev/null 2>"$work/stack.log") ||
        { cat "$work/stack.log" >&2; die "memcheck run failed"; }
    sed -n 's/^==[0-9]*== //p' "$work/stack.log" | sed -n '/^Invalid read/,/^ Address/p'
}
invalid_read
echo
echo "--- the same with minijit --no-unwind-info: without CFI the unwinder follows rbp, which"
echo "    these tier-1 functions leave alone, so it still points at main's frame: the trace"
echo "    jumps from lookup to main's caller, and scale, check and main are lost:"
echo
invalid_read --no-unwind-info
echo
echo "--- the same with minijit --inline: tier 1 compiles lookup's body into scale and"
echo "    registers the inlined call (VgJitCode's inline table), so Memcheck shows lookup"
echo "    as an inlined frame at scale's address, as for inlined calls in ELF code:"
echo
invalid_read --inline
