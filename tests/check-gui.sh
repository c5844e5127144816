#!/bin/bash
# check-gui.sh - KCachegrind's Machine Code view on JIT code (`make check-gui`).
#
# Runs the example JIT (minijit, calls.mj) under the staged Callgrind with
# --dump-instr=yes --dump-jit-code=yes, opens the profile in the real
# KCachegrind under Xvfb with its Machine Code tab in front, and checks that
# KCachegrind found the ELF file the profile names as the JIT object
# (next to the profile, KCachegrind started in another directory) and that
# the objdump it ran for the selected JIT function (collatz_next of
# calls.mj, both of its tiers) printed that function's jitted instructions
# at the profile's cost addresses: the lines the Machine Code view lists.  KCachegrind runs
# $OBJDUMP when set; here a wrapper that logs its arguments and output.
#
# usage: check-gui.sh [SCREENSHOT.png]   (also saves a screenshot there, with
#   xwd and netpbm: build-aux/install-deps.sh --gui)
# environment: VGJIT_STAGE (default: ../stage), MINIJIT (default:
#   ../examples/minijit of the build tree), VGJIT_SRCDIR (the source tree),
#   VGJIT_KEEP_TMP (keep the scratch directory)
# Exit status 0 on success, 77 (skipped) if kcachegrind, xvfb-run or objdump
# is missing, 1 on failure.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${VGJIT_SRCDIR:-$(dirname "$here")}
stage=${VGJIT_STAGE:-$srcdir/stage}
minijit=${MINIJIT:-$(dirname "$stage")/examples/minijit}
shot=${1:-}

fail() { echo "check-gui: FAIL: $*" >&2; exit 1; }
for tool in kcachegrind xvfb-run dbus-run-session objdump; do
    command -v "$tool" > /dev/null || { echo "check-gui: SKIP: no $tool (Debian: kcachegrind xvfb binutils)"; exit 77; }
done
[ -x "$stage/bin/valgrind" ] || fail "no staged Valgrind at $stage (run make)"
[ -x "$minijit" ] || fail "no minijit at $minijit (run make)"

work=$(mktemp -d "${TMPDIR:-/tmp}/vgjit-gui.XXXXXX")
[ -n "${VGJIT_KEEP_TMP:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/profile" "$work/config" "$work/elsewhere"

profile=$work/profile/callgrind.out.calls
elf=callgrind.out.calls.minijit:calls.mj.elf
fn=collatz_next
"$stage/bin/valgrind" --tool=callgrind --dump-instr=yes --dump-jit-code=yes \
    --callgrind-out-file="$profile" "$minijit" "$srcdir/examples/calls.mj" \
    > "$work/run.out" 2> "$work/run.err" || { cat "$work/run.err" >&2; fail "callgrind run failed"; }
[ -f "$work/profile/$elf" ] || fail "no $elf next to the profile"
grep -q "^c\?ob=([0-9]*) $elf\$" "$profile" || fail "the profile does not name $elf"

# The instruction addresses with costs of fn in the ELF file's object
# (addresses absolute or relative to the previous cost line).
addrs=$(awk -v elf="$elf" -v want="$fn" '
    function hex(t,   i, v) { v = 0; t = tolower(substr(t, 3))
        for (i = 1; i <= length(t); i++) v = v * 16 + index("0123456789abcdef", substr(t, i, 1)) - 1
        return v }
    # "(id) name" defines id, "(id)" refers to it (compressed names).
    function named(kind, line,   id, name) {
        if (line !~ /^\([0-9]+\)/) return line
        id = line; sub(/\).*/, ")", id); name = line; sub(/^\([0-9]+\) ?/, "", name)
        if (name != "") names[kind id] = name
        return names[kind id] }
    /^ob=/  { cur = named("ob", substr($0, 4)); next }
    /^cob=/ { named("ob", substr($0, 5)); next }
    /^fn=/  { infn = (cur == elf && named("fn", substr($0, 4)) == want); next }
    /^cfn=/ { named("fn", substr($0, 5)); next }
    /^calls=/ { skipnext = 1; next }
    /^(0x[0-9a-f]+|[-+][0-9]+|\*) / {
        t = $1
        if (t ~ /^0x/) a = hex(t); else if (t != "*") a = a + t
        if (skipnext) { skipnext = 0; next }
        if (infn) printf "%x\n", a
    }' "$profile" | sort -u)
[ -n "$addrs" ] || fail "no instruction costs of $fn in $elf"

# KCachegrind's configuration (kcachegrindrc, read from
# $XDG_CONFIG_HOME): fn active, Machine Code in front in the bottom tabs
# (of the first tab view, TabView-1 in 22.12), no tip of the day, the
# window as large as the screen.
cat > "$work/config/kcachegrindrc" <<EOF
[MainView-TabView-0]
ActiveBottom=InstrView
ActiveItemType=Function
ActiveItemName=$fn

[MainView-TabView-1]
ActiveBottom=InstrView
ActiveItemType=Function
ActiveItemName=$fn

[TipOfDay]
RunOnStart=false

[MainWindow]
1400x900 screen: Width=1400
1400x900 screen: Height=900
EOF

# The objdump KCachegrind runs: logs its arguments and its output.
cat > "$work/objdump" <<EOF
#!/bin/sh
echo "ARGS: \$*" >> "$work/objdump.log"
objdump "\$@" | tee -a "$work/objdump.log"
EOF
chmod +x "$work/objdump"

cat > "$work/gui.sh" <<EOF
#!/bin/bash
cd "$work/elsewhere"
OBJDUMP="$work/objdump" XDG_CONFIG_HOME="$work/config" HOME="$work" \
    dbus-run-session -- kcachegrind "$profile" > "$work/kcachegrind.log" 2>&1 &
pid=\$!
for i in \$(seq 1 120); do
    grep -q "^ARGS: " "$work/objdump.log" 2> /dev/null && break
    sleep 0.5
done
sleep 4
[ -z "$shot" ] || { xwd -root -silent | xwdtopnm 2> /dev/null | pnmtopng > "$shot"; } || true
kill \$pid 2> /dev/null || true
wait \$pid 2> /dev/null || true
EOF
chmod +x "$work/gui.sh"
timeout 180 xvfb-run -a -s "-screen 0 1400x900x24" "$work/gui.sh" || true

[ -s "$work/objdump.log" ] || { cat "$work/kcachegrind.log" >&2; fail "KCachegrind never ran objdump"; }
args=$(grep "^ARGS: " "$work/objdump.log" | head -1)
echo "check-gui: KCachegrind ran objdump ${args#ARGS: }"
case "$args" in
    *"-C -d --start-address=0x"*"--stop-address=0x"*"$work/profile/$elf") ;;
    *) fail "KCachegrind did not run objdump on $work/profile/$elf: $args" ;;
esac
# Every cost address of fn is an instruction line of that output.
missing=0
for a in $addrs; do
    grep -Eq "^ *$a:	([0-9a-f]{2} )+ *	" "$work/objdump.log" || { echo "check-gui: no instruction at 0x$a" >&2; missing=$((missing + 1)); }
done
[ "$missing" = 0 ] || fail "$missing cost addresses of $fn are not instructions in KCachegrind's objdump output"
n=$(echo "$addrs" | wc -l)
echo "check-gui: PASS: the Machine Code view of $fn (minijit:calls.mj) lists its $n instructions with costs from $elf"
