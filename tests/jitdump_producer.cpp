// jitdump_producer: a test JIT that describes its code the way JITs do for
// Linux perf, not through <valgrind/jit.h>: a jitdump file jit-<pid>.dump in
// the current directory (mapped read+exec, as perf producers map it so that
// profilers notice it) or the text perf map /tmp/perf-<pid>.map.  The
// integration tests (integration_producers.cpp) run it natively and under
// the staged Valgrind and check what the core made of the files.
//
// Usage: jitdump_producer MODE
//   late      run late_fn 1000 x (n = 1000) before its CODE_LOAD record is
//             written, then write the record, then run it 1000 x more
//   late-lookup  like late, but the record is read while Valgrind looks
//             up other new code: late_fn runs 1000 x unnamed; the records
//             of late_fn and next_fn are written; next_fn runs at once
//             (its translation misses a name, which makes Valgrind read
//             the file in the middle of a lookup); time passes; late_fn
//             runs 1000 x more
//   move      CODE_DEBUG_INFO + CODE_LOAD for `mover` at address A, run it;
//             copy its code to B, CODE_MOVE A -> B, run it at B; finally one
//             call at B reads 4 bytes past a malloc'd block (Memcheck error)
//   truncate  three good CODE_LOAD records, then a fourth cut in half (a
//             producer that crashed mid-write); run all four functions
//   garbage   good records with malformed ones between them (name not
//             terminated within total_size, unknown record id, empty name,
//             code_size 0, wrapping range, impossible nr_entry, CODE_MOVE
//             of unknown code)
//   counts    known numbers of each outcome: 3 good CODE_LOADs; 12 refused
//             as overlapping this program's text, 1 at memory that is not
//             executable, 1 with a size above VG_JIT_MAX_CODE_SIZE, 1
//             CODE_MOVE of code nobody loaded; 2 malformed (empty name,
//             code_size 0); 3 without code (CODE_DEBUG_INFO, an unknown
//             id, CODE_CLOSE): 23 records after the header
//   run-gap   five CODE_LOAD records at rising addresses in two writes
//             (the core registers the records of a write together, and
//             one by one when it cannot): run_a and run_e (which ran 10 x
//             before its record was written); then in_gap (its page made
//             read+write: refused as not code), run_c and run_d; then
//             each of the four functions runs 10 x (n = 100)
//   junk-names  what producers write in the wild: a function name with
//             control characters and a byte that is not UTF-8
//             (junk_\x01name\x7f\xff), and a line table one of whose file
//             names is junk (\x01\xfeSY:JS:^): run each 100 x (n = 1000)
//   hold      two functions (hold_a with a 3-entry line table, hold_b) in a
//             jitdump file, and a CODE_LOAD of hold_wait for a page that is
//             not executable (its name waits); hold_kept registered by a
//             client request and unregistered while its code stays (kept);
//             prints "ready" to stderr, then runs until a file "stop"
//             appears in the current directory (at most 120 s), so that a
//             test can query the running process through vgdb
//   header-after-mapping  late_header_a and late_header_b in a jitdump
//             named as JavaScriptCore names them (jit-<N>-<pid>.dump),
//             mapped executable while still empty and only then given
//             its header, as JavaScriptCore does; and empty.bin, mapped
//             executable and never written; each function runs 10 x
//             (n = 100)
//   perfmap   /tmp/perf-<pid>.map written line by line, one line in two
//             writes with code running in between; no jitdump
//   perfmap-symlink  /tmp/perf-<pid>.map is a symlink to a map file in
//             the current directory (must be ignored)
//   perfmap-foreign  /tmp/perf-<pid>.map owned by another user (needs
//             root to chown; prints "skip: ..." to stderr otherwise)
//   names WHEN FILE  a small call graph (names_top calls names_middle 20 x,
//             names_middle calls names_leaf 10 x, then names_top calls the
//             recursive names_fib(10)), announced in FILE = dump (jitdump
//             with CODE_DEBUG_INFO line tables) or map (a perf map, no
//             lines), dump40 (a jitdump whose CODE_DEBUG_INFO addresses
//             are 0x40 past the code, as V8 and LLVM's perf listener write
//             them), WHEN = early (written before the code runs) or late
//             (written after it ran: the jitdump is mapped first and gets
//             its records at the end; the perf map is created at the end
//             and left in place, as HotSpot's -XX:+DumpPerfMapAtExit
//             does).  The profiles of both must agree.
//   names late dump TAIL  as names late dump, and after the records the
//             file gets, still at exit: TAIL = grow, 1 GiB more (1024
//             CODE_LOAD records of 1 MiB of code each, at addresses where
//             nothing is mapped, so each is refused), or corrupt, a record
//             header whose total_size is smaller than a header followed by
//             4 KiB of garbage
//   leak WHEN  names_alloc, announced in a jitdump early or late, returns
//             malloc(24), which the program then loses (Memcheck's leak
//             check must name names_alloc either way)
//   leak WHEN freed-caller  the same, names_alloc called by leak_caller,
//             a jitted function in a mapping of its own, announced before
//             it runs and unmapped after the call (under
//             --keep-debuginfo=yes the leak's stack is then described in
//             the epoch before the unmapping); late: names_alloc's records
//             are written just before the program exits
//   chained WHEN  jd_dispatch(n) jumps (jmp, not call) to jd_chained(n),
//             a sum loop that returns to jd_dispatch's caller, as JITs
//             chain their blocks; called 100 x with n = 50 and announced
//             in a jitdump early or late (as names above)
//   bad-named KIND  ./jit-<pid>.dump that is no jitdump file (KIND =
//             garbage: a line of text; short: 20 bytes of a header), mapped
//             read+exec; then bad_fn (k = 5) runs 10 x (n = 100)
//   reuse WHEN FILE  one address hosts two functions in turn: reuse_a
//             (k = 1) is emitted at X and called 30 x with n = 40, then
//             reuse_b (k = 2) is emitted over it at X and called 50 x with
//             n = 25.  Each record is made when its code is emitted (its
//             CODE_LOAD timestamp is then, CLOCK_MONOTONIC) and written
//             then (WHEN = early), both after the two ran, read while
//             the program still runs (after), or both at exit (late).
//             FILE = dump (a
//             jitdump), dump-tsc (a jitdump whose header flags
//             architecture timestamps), dump-realtime (a jitdump whose
//             timestamps are CLOCK_REALTIME), dump-lines (a jitdump with
//             a CODE_DEBUG_INFO before each CODE_LOAD: reuse_a on lines
//             100-102 of /virtual/reuse_a.src, reuse_b on lines 200-202
//             of /virtual/reuse_b.src), map (a perf map), map-same (a
//             perf map naming both reuse_same)
//   reuse-move  code reuse across a CODE_MOVE: reuse_a (k = 1) at X runs
//             30 x (n = 40); reuse_b (k = 2) at Y runs 50 x (n = 25); then
//             reuse_a's code is copied over reuse_b at Y and runs there
//             20 x (n = 10).  Each record (CODE_LOAD of each, CODE_MOVE
//             X -> Y) is stamped when its code appeared and all are
//             written at exit
//   unmapped WHEN FILE  code that is gone when its name arrives (V8
//             flushes its jitdump's last block after it unmapped its code
//             space): gone_fn (k = 4, lines 40..42) runs 40 x (n = 30),
//             and never_fn, in a mapping of its own, never runs; both
//             mappings are unmapped, and only then are the records written,
//             with gone_fn's line table: WHEN = run (while the program
//             runs, which then goes on) or exit (the last thing it does),
//             FILE = dump (a jitdump) or map (a perf map)
//
// The jitdump file is ./jit-<pid>.dump, or $JITDUMP_PRODUCER_PATH with each
// "{pid}" replaced by the pid (a file named otherwise, as Bun names its).
//
// Every jitted function here is a "sum" function, f(n) = k + n + (n-1) +
// ... + 1 for n >= 1, emitted with xbyak:
//      mov eax, k ; mov rcx, rdi          (line L)
//   l: add rax, rcx ; dec rcx ; jnz l     (line L+1)
//      [add eax, [rsi]]                   (line L+2, `mover` only)
//      ret                                (line L+2)
// so one call executes exactly 3n + 3 instructions (3n + 4 for mover).
//
// stdout: results only, identical natively and under any Valgrind tool.
// stderr: "fn NAME 0xADDR SIZE" for every function (addresses differ from
// run to run) and "skip: REASON" when a mode cannot run here.
//
// Before code runs that must carry a name written just before, the
// program spends a few hundred thousand basic blocks in ordinary compiled
// code (let_time_pass): Valgrind reads producer files at scheduler time
// slices (every 100,000 blocks), so afterwards the counts are exact.
//
// The modes are grouped by topic: jitdump_producer_records.cpp (late,
// late-lookup, move, truncate, garbage, counts, run-gap, junk-names,
// bad-named, header-after-mapping, hold), jitdump_producer_perfmap.cpp
// (perfmap, perfmap-symlink, perfmap-foreign), jitdump_producer_late.cpp
// (names, leak, chained) and jitdump_producer_reuse.cpp (reuse,
// reuse-move, unmapped); jitdump_producer.hpp holds what they share.

#include "jitdump_producer.hpp"

#include <cstdio>
#include <string>

namespace jitdump_producer {

__attribute__((noinline)) void let_time_pass() {
    for (int i = 0; i < 300000; ++i) __asm__ volatile("" ::: "memory");
}

[[noreturn]] void exit_now() {
    __asm__ volatile("mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall" ::
                         : "rax", "rdi", "rcx", "r11", "memory");
    __builtin_unreachable();
}

}  // namespace jitdump_producer

namespace {

using namespace jitdump_producer;

/// One mode: its name, the number of arguments after the name it takes
/// (exactly), and how it runs with them.
struct Mode {
    const char* name;
    int args;
    int (*run)(char** args);
};

const Mode kModes[] = {
    {"leak", 1, [](char** a) { return mode_leak(a[0]); }},
    {"leak", 2, [](char** a) { return mode_leak(a[0], a[1]); }},
    {"chained", 1, [](char** a) { return mode_chained(a[0]); }},
    {"bad-named", 1, [](char** a) { return mode_bad_named(a[0]); }},
    {"names", 2, [](char** a) { return mode_names(a[0], a[1]); }},
    {"reuse", 2, [](char** a) { return mode_reuse(a[0], a[1]); }},
    {"unmapped", 2, [](char** a) { return mode_unmapped(a[0], a[1]); }},
    {"names", 3, [](char** a) { return mode_names(a[0], a[1], a[2]); }},
    {"late", 0, [](char**) { return mode_late(); }},
    {"reuse-move", 0, [](char**) { return mode_reuse_move(); }},
    {"late-lookup", 0, [](char**) { return mode_late_lookup(); }},
    {"move", 0, [](char**) { return mode_move(); }},
    {"truncate", 0, [](char**) { return mode_truncate(); }},
    {"garbage", 0, [](char**) { return mode_garbage(); }},
    {"counts", 0, [](char**) { return mode_counts(); }},
    {"run-gap", 0, [](char**) { return mode_run_gap(); }},
    {"junk-names", 0, [](char**) { return mode_junk_names(); }},
    {"hold", 0, [](char**) { return mode_hold(); }},
    {"header-after-mapping", 0, [](char**) { return mode_header_after_mapping(); }},
    {"perfmap", 0, [](char**) { return mode_perfmap(); }},
    {"perfmap-symlink", 0, [](char**) { return mode_perfmap_symlink(); }},
    {"perfmap-foreign", 0, [](char**) { return mode_perfmap_foreign(); }},
};

}  // namespace

int main(int argc, char** argv) {
    for (const Mode& m : kModes)
        if (argc == 2 + m.args && std::string(argv[1]) == m.name) return m.run(argv + 2);
    if (argc != 2) {
        std::fprintf(stderr,
                     "usage: jitdump_producer "
                     "late|late-lookup|move|truncate|garbage|counts|junk-names|hold|perfmap|"
                     "perfmap-symlink|perfmap-foreign | names early|late dump|dump40|map | names "
                     "late dump grow|corrupt | "
                     "leak early|late [freed-caller] | "
                     "chained early|late | bad-named garbage|short | reuse early|late "
                     "dump|dump-tsc|dump-realtime|dump-lines|map|map-same\n");
        return 2;
    }
    std::fprintf(stderr, "jitdump_producer: unknown mode %s\n", argv[1]);
    return 2;
}
