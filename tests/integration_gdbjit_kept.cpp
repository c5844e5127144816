// integration_gdbjit_kept.cpp - integration_gdbjit's cases of code that
// outlives its registration: tests/llvm_keep's code run after its
// execution engine is disposed of (names, costs, lines, Memcheck's
// stack), written over, and gdbjit's modules unmapped or made writable;
// integration_gdbjit.cpp says what the program holds.

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

// Code that outlives its registration: tests/llvm_keep, an LLVM 14 MCJIT
// client whose memory manager keeps the code after the execution engine is
// disposed of (MCJIT then unregisters its object), calls keep_work 1000
// times before the disposal and 100000 times after it.

namespace {

const char* kKeepC = R"(static inline __attribute__((always_inline)) int peek(const int *p) {
    return *p;
}
__attribute__((noinline)) int keep_leaf(const int *p, int i) {
    return peek(p) + i;
}
int keep_work(const int *p, int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += keep_leaf(p, i) & 1;
    return s;
}
)";

std::string llvm_keep() { return tests_builddir() + "/llvm_keep"; }

boost::test_tools::assertion_result llvm_keep_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(executable(llvm_keep()) && executable(kClang));
    ok.message() << llvm_keep() << " and " << kClang
                 << " are needed (configure builds llvm_keep when it finds llvm-config-14;"
                    " build-aux/install-deps.sh installs llvm-14-dev and clang-14)";
    return ok;
}

/// tests/llvm_keep MODE on kKeepC compiled with clang-14 -O1 in `dir`.
std::vector<std::string> keep_program(const TempDir& dir, const std::string& mode) {
    const std::string c = dir.file("keep.c"), bc = dir.file("keep.bc");
    std::ofstream(c) << kKeepC;
    const Result r = run({kClang, "-g", "-O1", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return {llvm_keep(), mode, bc};
}

/// The counts of the -v line on functions kept after their unregistration:
/// kept, looked up, ended unmapped, reused, written, otherwise, kept at exit.
std::vector<std::uint64_t> kept_summary(const std::string& err) {
    static const std::regex line(
        R"(JIT: (\d+) unregistered functions kept their names while their code stayed mapped)"
        R"( and unchanged, (\d+) of them looked up after that \(their code ran or was)"
        R"( described\); ended: (\d+) unmapped, (\d+) reused, (\d+) written, (\d+))"
        R"( otherwise; (\d+) kept at exit)");
    std::smatch m;
    std::vector<std::uint64_t> out;
    if (!std::regex_search(err, m, line)) return out;
    for (std::size_t i = 1; i < m.size(); ++i) out.push_back(std::stoull(m[i].str()));
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(llvm_code_run_after_its_engine_is_disposed_keeps_names_costs_and_lines,
                     *boost::unit_test::precondition(llvm_keep_available)) {
    TempDir dir;
    const auto prog = keep_program(dir, "run");
    Result r;
    const cg::Profile p = callgrind(dir, prog, {"-v"}, &r);
    BOOST_TEST(contains(r.out, "before 500\nafter 50000\n"), r.out);
    // Every call, before and after the disposal, is charged to the names.
    BOOST_TEST(cg::calls_between_any_depth(p, "keep_work", "keep_leaf") == 101000u);
    const auto leaf = line_costs(p, "keep_leaf");
    BOOST_TEST(self_ir(p, "keep_leaf") == 3u * 101000);
    BOOST_TEST((leaf.count({"keep.c", 5}) ? leaf.at({"keep.c", 5}) : 0) == 2u * 101000);
    const auto work = line_costs(p, "keep_work");
    BOOST_TEST((work.count({"keep.c", 10}) ? work.at({"keep.c", 10}) : 0) >= 10u * 101000);
    // keep_work and keep_leaf: kept, run again, still kept at exit.
    BOOST_TEST(kept_summary(r.err) == (std::vector<std::uint64_t>{2, 2, 0, 0, 0, 0, 2}), r.err);
    BOOST_TEST(contains(r.err, "JIT: 2 registered, 2 unregistered, 0 replaced, 0 unmapped,"),
               r.err);
    // Cachegrind too.
    const cg::Profile c = cachegrind(dir, prog);
    BOOST_TEST(self_ir(c, "keep_leaf") == 3u * 101000);
}

BOOST_AUTO_TEST_CASE(memcheck_unwinds_llvm_code_run_after_its_engine_is_disposed,
                     *boost::unit_test::precondition(llvm_keep_available)) {
    TempDir dir;
    // Without the stack scan, which would find keep_leaf's caller by its
    // return address: only the object's kept CFI can.
    const Result r =
        run_valgrind({"--tool=memcheck", "--jit-unwind-scan=no"}, keep_program(dir, "memerr"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "memerr done"), r.out);
    const auto frames = error_frames(r.err, "Invalid read of size 4");
    BOOST_TEST_REQUIRE(frames.size() == 3u, r.err);
    // keep_leaf keeps no frame: its caller is found by the object's CFI.
    BOOST_TEST(frames[0] == "keep_leaf (keep.c:5)", r.err);
    BOOST_TEST(frames[1] == "keep_work (keep.c:10)", r.err);
    BOOST_TEST(frames[2].rfind("main (llvm_keep.cpp:", 0) == 0u, r.err);
}

BOOST_AUTO_TEST_CASE(kept_llvm_code_loses_its_name_when_its_bytes_are_written,
                     *boost::unit_test::precondition(llvm_keep_available)) {
    TempDir dir;
    Result run_r;
    const cg::Profile ran = callgrind(dir, keep_program(dir, "run"), {"-v"}, &run_r);
    const std::uint64_t work_cost = self_ir(ran, "keep_work");
    BOOST_TEST_REQUIRE(work_cost > 100000u);
    // rewrite: mprotect to writable, `mov eax, 7; ret` over keep_work,
    // executable again, 100000 calls (200000 instructions).  rwx: the same
    // bytes written into read-write-execute memory without any mprotect,
    // seen when Valgrind discards the changed code's translations.
    for (const std::string mode : {"rewrite", "rwx"}) {
        BOOST_TEST_CONTEXT("mode " << mode) {
            TempDir d;
            Result r;
            const cg::Profile p = callgrind(d, keep_program(d, mode), {"-v"}, &r);
            BOOST_TEST(contains(r.out, "rewritten 700000"), r.out);
            // keep_work has its own costs only, not those of the new code.
            BOOST_TEST(self_ir(p, "keep_work") == work_cost);
            const auto kept = kept_summary(r.err);
            BOOST_TEST_REQUIRE(kept.size() == 7u, r.err);
            // rewrite ends both (the mprotect covers keep_leaf too), rwx
            // keep_work only.
            BOOST_TEST(kept[4] == (mode == "rewrite" ? 2u : 1u), r.err);
            BOOST_TEST(kept[6] == (mode == "rewrite" ? 0u : 1u), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(kept_names_end_when_their_memory_is_unmapped_or_made_writable) {
    // gdbjit run: module A unregistered, then its code unmapped; reuse:
    // A unregistered, its code made writable and B loaded there.
    for (const std::string mode : {"run", "reuse"}) {
        BOOST_TEST_CONTEXT("mode " << mode) {
            const Result r = run_valgrind({"--tool=none", "-v"}, program(mode));
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const auto kept = kept_summary(r.err);
            BOOST_TEST_REQUIRE(kept.size() == 7u, r.err);
            BOOST_TEST(kept[0] > 0u);
            // run: A's functions end when its memory is unmapped.  reuse:
            // A's when its memory is made writable, then B's (unregistered
            // too) when it is unmapped.
            BOOST_TEST(kept[4] == (mode == "run" ? 0u : kept[0] - kept[2]), r.err);
            BOOST_TEST(kept[2] > 0u, r.err);
            BOOST_TEST(kept[2] + kept[4] == kept[0], r.err);
            BOOST_TEST(kept[6] == 0u, r.err);
        }
    }
}
