// integration_gdbjit_lli.cpp - integration_gdbjit's cases of LLVM 14's
// lli running C compiled to bitcode by clang-14: names and exact calls,
// line costs on the C source's lines, Memcheck's errors and leaks with
// their files, lines, jitted callers and inlined frames, DWARF 5 inlined
// callers, Helgrind, DRD and DHAT; integration_gdbjit.cpp says what the
// program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_gdbjit.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

using namespace vgjit::test;
using namespace gdbjit_test;

namespace {

const std::string kLli = "/usr/bin/lli-14";

boost::test_tools::assertion_result llvm_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(executable(kLli) && executable(kClang));
    ok.message() << kLli << " and " << kClang
                 << " are needed (build-aux/install-deps.sh installs llvm-14 and clang-14)";
    return ok;
}

/// Compiles `source` (C) to LLVM bitcode with clang-14 -g -O0 in `dir`.
std::string bitcode(const TempDir& dir, const std::string& name, const std::string& source) {
    const std::string c = dir.file(name + ".c"), bc = dir.file(name + ".bc");
    std::ofstream(c) << source;
    const Result r = run({kClang, "-g", "-O0", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return bc;
}

const char* kFibC = R"(#include <stdio.h>

int fib(int n)
{
   if (n < 2)
      return n;
   return fib(n - 1) + fib(n - 2);
}

int main(void)
{
   printf("fib(15) = %d\n", fib(15));
   return 0;
}
)";

/// Number of calls fib(n) makes with n < 2 (the leaves of its call tree).
std::uint64_t fib_leaves(int n) { return n < 2 ? 1 : fib_leaves(n - 1) + fib_leaves(n - 2); }

/// Checks the per-line costs of kFibC's fib (lines 3-8 of fib.c) computing
/// fib(15): every cost on fib.c's lines of fib, none elsewhere, and each
/// line's cost a multiple of how often its code runs: `return n;` (line 6)
/// in the leaves, the recursive calls (line 7) in the other calls, the
/// rest in every call.  Code attributed to a neighbouring line breaks the
/// multiples.
void check_fib_lines(const cg::Profile& p) {
    const auto lines = line_costs(p, "fib");
    BOOST_TEST_REQUIRE(!lines.empty(), "fib has no line costs");
    std::uint64_t sum = 0;
    for (const auto& [pos, cost] : lines) {
        BOOST_TEST_CONTEXT("fib.c line " << pos.second << " of " << pos.first) {
            BOOST_TEST(pos.first == "fib.c");
            BOOST_TEST((pos.second >= 3 && pos.second <= 8));
            const std::uint64_t runs = pos.second == 6   ? fib_leaves(15)
                                       : pos.second == 7 ? fib_calls(15) - fib_leaves(15)
                                                         : fib_calls(15);
            BOOST_TEST(cost % runs == 0u, cost << " is not a multiple of " << runs);
        }
        sum += cost;
    }
    BOOST_TEST(sum == self_ir(p, "fib"));
    for (const std::uint64_t line : {5u, 6u, 7u})
        BOOST_TEST(lines.count({"fib.c", line}) == 1u, "no cost on line " << line);
}

const char* kLeakC = R"(#include <stdlib.h>

static volatile void *keep;

__attribute__((noinline)) int *leaf(int n)
{
   int *p = malloc(n * sizeof(int));
   p[0] = n;
   return p;
}

__attribute__((noinline)) int middle(int n)
{
   int *p = leaf(n + 1);
   int v = p[0] * 2;
   keep = 0;
   return v;
}

int main(void)
{
   return middle(3) == 8 ? 0 : 1;
}
)";

// get() is reached through a volatile function pointer so that Valgrind
// cannot follow the call into it while translating main (with the call
// target known, the error's first frame would be the call site, natively
// too).
const char* kInlinedC = R"(#include <stdlib.h>

static inline int peek(const int *p)
{
   return *p * 3;
}

__attribute__((noinline)) int get(const int *p)
{
   return peek(p) + 1;
}

int main(void)
{
   int *p = malloc(sizeof(int));
   *p = 1;
   free(p);
   int (* volatile fp)(const int *) = get;
   return fp(p) == 42;
}
)";

const char* kRaceC = R"(#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int counter;

__attribute__((noinline)) void bump(void)
{
   counter++;
}

static void *worker(void *arg)
{
   (void)arg;
   bump();
   return NULL;
}

__attribute__((noinline)) void *make_block(int i)
{
   void *p = malloc(100000);
   memset(p, i, 100000);
   return p;
}

int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, worker, NULL);
   bump();
   pthread_join(t, NULL);
   void *blocks[8];
   for (int i = 0; i < 8; i++)
      blocks[i] = make_block(i);
   for (int i = 0; i < 8; i++)
      free(blocks[i]);
   return 0;
}
)";

const char* kMemerrC = R"(#include <stdlib.h>

int peek(const int *p)
{
   return *p;
}

int main(void)
{
   int *p = malloc(sizeof(int));
   *p = 1;
   free(p);
   return peek(p) == 42;
}
)";

}  // namespace

BOOST_AUTO_TEST_CASE(lli_jitted_functions_have_names_and_exact_call_counts,
                     *boost::unit_test::precondition(llvm_available)) {
    TempDir dir;
    const std::string bc = bitcode(dir, "fib", kFibC);
    const Result native = run({kLli, bc});
    BOOST_TEST_REQUIRE(native.status == 0, native);
    BOOST_TEST_REQUIRE(native.out == "fib(15) = 610\n");
    Result r;
    const cg::Profile p = callgrind(dir, {kLli, bc}, {}, &r);
    BOOST_TEST(r.out == native.out);
    const auto keys = named(p, "fib");
    BOOST_TEST_REQUIRE(!keys.empty(), r.err);
    for (const auto& k : keys) BOOST_TEST(k.object == "fib.c");
    BOOST_TEST(cg::calls_to_any_depth(p, "fib") == fib_calls(15));
    BOOST_TEST(cg::calls_between_any_depth(p, "main", "fib") == 1u);
}

BOOST_AUTO_TEST_CASE(lli_line_costs_fall_on_the_c_source_lines,
                     *boost::unit_test::precondition(llvm_available)) {
    TempDir dir;
    const std::string bc = bitcode(dir, "fib", kFibC);
    BOOST_TEST_CONTEXT("callgrind") { check_fib_lines(callgrind(dir, {kLli, bc})); }
    TempDir dir_cachegrind;
    BOOST_TEST_CONTEXT("cachegrind") { check_fib_lines(cachegrind(dir_cachegrind, {kLli, bc})); }
}

BOOST_AUTO_TEST_CASE(lli_memcheck_error_in_jitted_code_has_file_lines_and_jitted_callers,
                     *boost::unit_test::precondition(llvm_available)) {
    TempDir dir;
    const std::string bc = bitcode(dir, "memerr", kMemerrC);
    const Result r = run_valgrind({"--tool=memcheck"}, {kLli, bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex error(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: peek \(memerr\.c:5\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: main \(memerr\.c:13\)\n)"
        R"((==\d+==    by 0x[0-9A-F]+: .*\n)+)"
        R"(==\d+==  Address 0x[0-9a-f]+ is 0 bytes inside a block of size 4 free'd\n)"
        R"(==\d+==    at 0x[0-9A-F]+: free \(vg_replace_malloc\.c:\d+\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: main \(memerr\.c:12\)\n)");
    BOOST_TEST(std::regex_search(r.err, error), r.err);
}

BOOST_AUTO_TEST_CASE(lli_leak_from_code_without_frame_pointers_unwinds_by_its_cfi_to_main,
                     *boost::unit_test::precondition(llvm_available)) {
    // -O1 -fomit-frame-pointer: leaf and middle keep no frame pointer, so
    // only the objects' .eh_frame (relocated as a debugger does) leads from
    // malloc through the jitted frames to main and on into lli.  The names
    // outlive lli's unregistration at exit with --keep-debuginfo=yes.
    TempDir dir;
    const std::string c = dir.file("leak.c"), bc = dir.file("leak.bc");
    std::ofstream(c) << kLeakC;
    const Result cc =
        run({kClang, "-g", "-O1", "-fomit-frame-pointer", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(cc.status == 0, cc);
    const Result r = run_valgrind(
        {"--tool=memcheck", "--leak-check=full", "--keep-debuginfo=yes", "-v"}, {kLli, bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex leak(
        R"(16 bytes in 1 blocks are definitely lost in loss record \d+ of \d+\n)"
        R"(==\d+==    at 0x[0-9A-F]+: malloc \(vg_replace_malloc\.c:\d+\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: leaf \(leak\.c:7\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: middle \(leak\.c:14\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: main \(leak\.c:22\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: llvm::orc::runAsMain)");
    BOOST_TEST(std::regex_search(r.err, leak), r.err);
    static const std::regex cfi(R"(JIT GDB interface: .*; ([1-9]\d*) objects with CFI, 0 refused)");
    BOOST_TEST(std::regex_search(r.err, cfi), r.err);
}

BOOST_AUTO_TEST_CASE(lli_inlined_frames_appear_as_for_the_same_code_compiled_natively,
                     *boost::unit_test::precondition(llvm_available)) {
    // clang-14 -O2 inlines peek into get: under --read-inline-info=yes the
    // error inside it shows peek and get at one address, read from the
    // object's .debug_info, exactly as for the same source compiled to an
    // executable (Valgrind's own DWARF reader gives the same caller file,
    // also where it cannot name it).
    TempDir dir;
    const std::string c = dir.file("inlined.c"), bc = dir.file("inlined.bc"),
                      exe = dir.file("inlined");
    std::ofstream(c) << kInlinedC;
    const Result cc_jit = run({kClang, "-g", "-O2", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(cc_jit.status == 0, cc_jit);
    const Result cc_native = run({kClang, "-g", "-O2", c, "-o", exe});
    BOOST_TEST_REQUIRE(cc_native.status == 0, cc_native);
    const std::string what = "Invalid read of size 4";
    const Result native = run_valgrind({"--tool=memcheck", "--read-inline-info=yes"}, {exe});
    const Result jit =
        run_valgrind({"--tool=memcheck", "--read-inline-info=yes", "-v"}, {kLli, bc});
    BOOST_TEST_REQUIRE(jit.status == 0, jit);
    const auto native_frames = error_frames(native.err, what);
    const auto jit_frames = error_frames(jit.err, what);
    BOOST_TEST_REQUIRE(native_frames.size() == 3u, native.err);
    BOOST_TEST(native_frames.front() == "peek (inlined.c:5)");
    BOOST_TEST(jit_frames == native_frames, jit.err);
    static const std::regex inl(R"(JIT GDB interface: .*; ([1-9]\d*) objects with inlined calls)");
    BOOST_TEST(std::regex_search(jit.err, inl), jit.err);
    // Without inline info the inlined frame is not there (the test can fail).
    const Result plain = run_valgrind({"--tool=memcheck", "--read-inline-info=no"}, {kLli, bc});
    const auto plain_frames = error_frames(plain.err, what);
    BOOST_TEST_REQUIRE(!plain_frames.empty(), plain.err);
    BOOST_TEST(plain_frames.front().rfind("get (", 0) == 0u, plain.err);
}

BOOST_AUTO_TEST_CASE(clang_dwarf5_inlined_callers_show_their_file_in_elf_and_jit_code,
                     *boost::unit_test::precondition(llvm_available)) {
    // DWARF 5 numbers a line table's files from 0, and clang gives the
    // primary source file index 0: the call site of peek in get
    // (DW_AT_call_file 0) must print as inlined.c:10, in the executable
    // and in the object lli registers through the GDB JIT interface.
    TempDir dir;
    const std::string c = dir.file("inlined.c"), bc = dir.file("inlined.bc"),
                      exe = dir.file("inlined");
    std::ofstream(c) << kInlinedC;
    const Result cc_jit = run({kClang, "-gdwarf-5", "-O2", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(cc_jit.status == 0, cc_jit);
    const Result cc_native = run({kClang, "-gdwarf-5", "-O2", c, "-o", exe});
    BOOST_TEST_REQUIRE(cc_native.status == 0, cc_native);
    const std::string what = "Invalid read of size 4";
    for (const bool jitted : {false, true}) {
        BOOST_TEST_CONTEXT((jitted ? "lli" : "executable")) {
            const Result r =
                jitted ? run_valgrind({"--tool=memcheck", "--read-inline-info=yes"}, {kLli, bc})
                       : run_valgrind({"--tool=memcheck", "--read-inline-info=yes"}, {exe});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const auto frames = error_frames(r.err, what);
            BOOST_TEST_REQUIRE(frames.size() >= 2u, r.err);
            BOOST_TEST(frames[0] == "peek (inlined.c:5)", r.err);
            BOOST_TEST(frames[1] == "get (inlined.c:10)", r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(lli_race_and_heap_profile_name_jitted_frames_in_helgrind_drd_and_dhat,
                     *boost::unit_test::precondition(llvm_available)) {
    // Two threads bump a counter without a lock (bump, race.c:9, from
    // worker and main), then main allocates in make_block (race.c:21).
    TempDir dir;
    const std::string bc = bitcode(dir, "race", kRaceC);
    BOOST_TEST_CONTEXT("helgrind") {
        const Result r = run_valgrind({"--tool=helgrind"}, {kLli, bc});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        static const std::regex race(
            R"(Possible data race during (read|write) of size \d+ at 0x[0-9A-F]+ by thread #\d+\n)"
            R"(==\d+== Locks held: none\n)"
            R"(==\d+==    at 0x[0-9A-F]+: bump \(race\.c:9\)\n)"
            R"(==\d+==    by 0x[0-9A-F]+: (main \(race\.c:30\)|worker \(race\.c:15\))\n)");
        BOOST_TEST(std::regex_search(r.err, race), r.err);
        BOOST_TEST(contains(r.err, ": worker (race.c:15)"), r.err);
    }
    BOOST_TEST_CONTEXT("drd") {
        const Result r = run_valgrind({"--tool=drd"}, {kLli, bc});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        static const std::regex race(
            R"(Conflicting (load|store) by thread \d+ at 0x[0-9a-f]+ size \d+\n)"
            R"(==\d+==    at 0x[0-9A-F]+: bump \(race\.c:9\)\n)");
        BOOST_TEST(std::regex_search(r.err, race), r.err);
    }
    BOOST_TEST_CONTEXT("dhat") {
        // DHAT describes its stacks at exit, after lli unregistered the
        // code: --keep-debuginfo=yes keeps the names for that.
        const std::string out = dir.file("dhat.out");
        const Result r = run_valgrind(
            {"--tool=dhat", "--keep-debuginfo=yes", "--dhat-out-file=" + out}, {kLli, bc});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        const std::string json = read_file(out);
        static const std::regex frame(R"re("0x[0-9A-F]+: make_block \(race\.c:21\)")re");
        BOOST_TEST(std::regex_search(json, frame), "no make_block frame in " << out);
        BOOST_TEST(contains(json, ": main (race.c:34)\""), "no main frame in " << out);
    }
}
