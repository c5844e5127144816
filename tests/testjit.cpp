// testjit: a small JIT used by the integration tests.  It emits x86-64
// functions with xbyak into anonymous executable memory, registers them
// through <valgrind/jit.h>, and runs them.  The computed results go to
// stdout, which must be identical natively and under Valgrind; what the
// registration requests returned goes to stderr as "status <what> <ret>
// <last-error>" lines, which the tests parse.
//
// Usage: testjit [--source=PATH] MODE
//   calls    three JIT functions (jit_top -> jit_middle -> jit_leaf, and
//            jit_middle -> elf_helper, an ordinary C++ function), object
//            "testjit-obj", file /virtual/testjit.src, with line tables
//   replace  code "first_version" at an address, run, unregister, emit
//            "second_version" at the same address, run
//   patch    code "patch_first" at an address, run 3 times; then
//            "patch_second" written over it in place and registered over
//            the same range WITHOUT unregistering (as a JIT patching code
//            in place does), run 5 times.  Both spin the same loop (the
//            same bytes up to their last block); patch_second then reads
//            4 bytes past a 16-byte malloc'd block (Memcheck's invalid
//            read inside the new code)
//   forget   "forgotten" registered and run once, unregistered (still
//            mapped) and run twice more
//   withdrawn END
//            w_caller and w_leaf registered with line tables, run,
//            unregistered while their code stays mapped and run again on
//            a block too small for w_leaf's read; then, by END (stay,
//            range, write, munmap, reregister, unexec), their code kept,
//            overwritten, mapped again, registered again or made not
//            executable and run once more
//   memerr   jit_reader reads 4 bytes past a malloc'd block (Memcheck's
//            invalid read inside jitted code)
//   leak     jit_allocator calls malloc and leaks the block; then the code
//            is unregistered and "other_code" registered at its address
//            (the leak's allocation stack was recorded in jit_allocator)
//   nested   big_fn (256 bytes registered; its call of malloc(88), whose
//            block it leaks, returns to offset 0x51) runs, is
//            unregistered; then small_fn is registered at big_fn+16 for 16
//            bytes and unregistered (the leak's allocation stack was
//            recorded in big_fn, past small_fn's end)
//   alloc    jit_allocator allocates 77 bytes and stays registered and
//            mapped until exit (tools that name allocation sites at exit)
//   race     two threads run jit_racer, which increments a shared int
//            without a lock (Helgrind's and DRD's data race in jitted code)
//   malloc   a JIT function named "malloc" (must not become a
//            redirection target): the program's own malloc keeps working
//   mangled  like memerr, but the function is registered under the C++
//            mangled name _ZN5jitvm6reader4readEPi (jitvm::reader::read)
//   fork     like memerr, but the jitted code runs in a forked child
//   bad      every kind of bad request; the program must go on
//   lines    line tables that lose entries, one registration per reason:
//            "no_file" (3 entries, no file anywhere), "high_line" (2 of 3
//            entries above line 1048575), "junk_file" (2 entries whose
//            file name is not UTF-8); then "flood_0" to "flood_149", each
//            with 1 of 2 entries at an offset past its code
//   names    registers functions whose names start at every offset of a
//            word, with every length from 1 to 40, some with control
//            characters or a byte that is not UTF-8 at either end or in
//            the middle, one ending on the last byte of a page before a
//            PROT_NONE page, and one running from a read/write mapping
//            into the read-only one after it; each as "status names-I RET
//            ERR" and "expect names-I ESCAPED" on stderr, ESCAPED being
//            the name with every byte outside printable ASCII as \xNN
//            (none of the names holds a valid multi-byte character)
//   compact  two functions registered under one name ("kept_shared_...")
//            and one under its own ("kept_alone_..."), then three rounds
//            of 20000 functions with long names registered and
//            unregistered (their names die, so the name pool is
//            compacted at the next time slice, which sched_yield
//            brings), then the three are unregistered (--trace-jit shows
//            the names they had at that point)
//   prologue N K
//            fib(N) K times twice, each call of fib starting with a call
//            of frame_prologue (ELF code), which builds fib's frame and
//            returns below the frame it was called with (as V8's
//            BaselineOutOfLinePrologue does for baseline code): once as
//            the JIT function "jit_prologue_fib", once as the ELF function
//            elf_prologue_fib; prints both results and the number of
//            calls of fib each made
//   many N   register N functions of 16 bytes each, run each once
//   retranslate N
//            N unregistered functions of 16 bytes each run once, the
//            translations of the first half discarded, all run again
//            (the translation table's lookups, not the registry)
//   churn SEED OPS
//            OPS random registrations (ascending, descending and random
//            addresses, 1 to 3 slots of 16 bytes, some names shared),
//            unregistrations and range unregistrations over 20000 slots,
//            each request's return value and status checked against a
//            model of what must be registered (mismatches go to stderr as
//            "churn MISMATCH ..." lines, then "churn mismatches N"); then
//            every function still registered runs once ("churn live
//            NAME" per function on stderr) and the code is unmapped.
//
// The modes are grouped by topic: testjit_calls.cpp (calls, prologue),
// testjit_changes.cpp (replace, patch, forget, withdrawn),
// testjit_errors.cpp (memerr, mangled, fork, leak, nested, alloc, race,
// malloc), testjit_requests.cpp (bad, lines, names) and testjit_scale.cpp
// (many, retranslate, compact, churn); testjit.hpp holds what they share.

#include "testjit.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

/// One mode: its name, the number of arguments it needs after the name
/// (more are ignored), and how it runs with them.
struct Mode {
    const char* name;
    int args;
    int (*run)(char** args);
};

/// A mode's numeric argument.
long number(const char* arg) { return std::atol(arg); }

const Mode kModes[] = {
    {"calls", 0, [](char**) { return testjit::mode_calls(); }},
    {"replace", 0, [](char**) { return testjit::mode_replace(); }},
    {"patch", 0, [](char**) { return testjit::mode_patch(); }},
    {"forget", 0, [](char**) { return testjit::mode_forget(); }},
    {"memerr", 0, [](char**) { return testjit::mode_memerr(); }},
    {"mangled", 0, [](char**) { return testjit::run_reader("_ZN5jitvm6reader4readEPi", false); }},
    {"fork", 0, [](char**) { return testjit::run_reader("jit_reader", true); }},
    {"withdrawn", 1, [](char** a) { return testjit::mode_withdrawn(a[0]); }},
    {"leak", 0, [](char**) { return testjit::mode_leak(); }},
    {"malloc", 0, [](char**) { return testjit::mode_malloc(); }},
    {"alloc", 0, [](char**) { return testjit::mode_alloc(); }},
    {"nested", 0, [](char**) { return testjit::mode_nested(); }},
    {"race", 0, [](char**) { return testjit::mode_race(); }},
    {"bad", 0, [](char**) { return testjit::mode_bad(); }},
    {"lines", 0, [](char**) { return testjit::mode_lines(); }},
    {"names", 0, [](char**) { return testjit::mode_names(); }},
    {"compact", 0, [](char**) { return testjit::mode_compact(); }},
    {"prologue", 2, [](char** a) { return testjit::mode_prologue(number(a[0]), number(a[1])); }},
    {"many", 1, [](char** a) { return testjit::mode_many(number(a[0])); }},
    {"retranslate", 1, [](char** a) { return testjit::mode_retranslate(number(a[0])); }},
    {"churn", 2,
     [](char** a) {
         return testjit::mode_churn(static_cast<unsigned>(number(a[0])), number(a[1]));
     }},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strncmp(argv[1], "--source=", 9) == 0) {
        testjit::source_file = argv[1] + 9;
        ++argv;
        --argc;
    }
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: testjit [--source=PATH] "
                     "calls|replace|patch|forget|memerr|mangled|fork|leak|alloc|race|malloc|bad|"
                     "names|compact|prologue N K|many N|retranslate N|churn SEED OPS\n");
        return 2;
    }
    const std::string mode = argv[1];
    for (const Mode& m : kModes)
        if (mode == m.name && argc > 1 + m.args) return m.run(argv + 2);
    std::fprintf(stderr, "testjit: unknown mode %s\n", mode.c_str());
    return 2;
}
