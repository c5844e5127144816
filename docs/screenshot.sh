#!/bin/bash
# screenshot.sh - the README's picture: KCachegrind's Source Code and
# Machine Code views of a function the example JIT (minijit) compiled.
#
# Runs minijit on examples/calls.mj under Callgrind with --dump-instr=yes
# --dump-jit-code=yes, opens the profile in KCachegrind under Xvfb with
# collatz_next selected, the Source Code tab on top and the Machine Code
# tab below, waits until KCachegrind has run objdump, and saves the screen
# as a PNG (the method of tests/check-gui.sh, which checks what the view
# lists).  `make screenshot` runs it.
#
# usage: screenshot.sh OUT.png
# environment: VALGRIND (default: the build tree's stage/bin/valgrind),
#   MINIJIT (default: the build tree's examples/minijit), VGJIT_SRCDIR
# Needs kcachegrind, xvfb-run, dbus-run-session, objdump, xwd, xwdtopnm and
# pnmtopng (Debian: kcachegrind xvfb dbus binutils x11-apps netpbm;
# build-aux/install-deps.sh --gui installs them).  Exit status 0 when the
# picture was written, 1 otherwise.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${VGJIT_SRCDIR:-$(dirname "$here")}
valgrind=${VALGRIND:-$srcdir/stage/bin/valgrind}
minijit=${MINIJIT:-$srcdir/examples/minijit}
out=${1:?usage: screenshot.sh OUT.png}
case $out in /*) ;; *) out=$PWD/$out ;; esac

fail() { echo "screenshot: $*" >&2; exit 1; }
for tool in kcachegrind xvfb-run dbus-run-session objdump xwd xwdtopnm pnmtopng; do
    command -v "$tool" > /dev/null ||
        fail "no $tool (build-aux/install-deps.sh --gui installs what is needed)"
done
[ -x "$valgrind" ] || fail "no Valgrind at $valgrind (run make, or set VALGRIND)"
[ -x "$minijit" ] || fail "no minijit at $minijit (run make, or set MINIJIT)"

work=$(mktemp -d "${TMPDIR:-/tmp}/vgjit-shot.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/profile" "$work/config"
fn=collatz_next
"$valgrind" --tool=callgrind --dump-instr=yes --dump-jit-code=yes \
    --callgrind-out-file="$work/profile/callgrind.out.calls" \
    "$minijit" "$srcdir/examples/calls.mj" > /dev/null 2> "$work/run.err" ||
    { cat "$work/run.err" >&2; fail "the Callgrind run failed"; }

cat > "$work/config/kcachegrindrc" <<EOF
[MainView-TabView-0]
ActiveTop=SourceView
ActiveBottom=InstrView
ActiveItemType=Function
ActiveItemName=$fn

[MainView-TabView-1]
ActiveTop=SourceView
ActiveBottom=InstrView
ActiveItemType=Function
ActiveItemName=$fn

[TipOfDay]
RunOnStart=false

[MainWindow]
1400x900 screen: Width=1400
1400x900 screen: Height=900
EOF

# An objdump that notes it ran: the Machine Code view is filled then.
cat > "$work/objdump" <<EOF
#!/bin/sh
touch "$work/objdump.ran"
exec objdump "\$@"
EOF
chmod +x "$work/objdump"

cat > "$work/gui.sh" <<EOF
#!/bin/bash
cd "$work/profile"
OBJDUMP="$work/objdump" XDG_CONFIG_HOME="$work/config" HOME="$work" \
    dbus-run-session -- kcachegrind callgrind.out.calls > "$work/kcachegrind.log" 2>&1 &
pid=\$!
for i in \$(seq 1 120); do
    [ -e "$work/objdump.ran" ] && break
    sleep 0.5
done
sleep 4
xwd -root -silent | xwdtopnm 2> /dev/null | pnmtopng > "$work/shot.png"
kill \$pid 2> /dev/null || true
wait \$pid 2> /dev/null || true
EOF
chmod +x "$work/gui.sh"
timeout 180 xvfb-run -a -s "-screen 0 1400x900x24" "$work/gui.sh" || true

[ -e "$work/objdump.ran" ] || { cat "$work/kcachegrind.log" >&2; fail "KCachegrind never ran objdump"; }
[ -s "$work/shot.png" ] || fail "no picture was taken"
mv "$work/shot.png" "$out"
echo "screenshot: wrote $out"
