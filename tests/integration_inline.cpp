// integration_inline.cpp - calls inlined into registered code, announced
// through VgJitCode's inline table (version 3), end to end under the staged
// Valgrind.  tests/inlinejit registers jit_inlining, into which `square`
// is inlined (at line 21 of /virtual/inline.src) and `deeper` into square
// (at line 6 of /virtual/lib.src); deeper's load reads past a block.
// Memcheck must show one frame per inlined level, as for inlined calls in
// ELF code; Callgrind and Cachegrind keep the cost in
// jit_inlining, on the lines of the line table.

#define BOOST_TEST_MODULE integration_inline
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace vgjit::test;
namespace cg = vgjit::callgrind;

namespace {

std::string inlinejit() { return env_or("VGJIT_INLINEJIT", tests_builddir() + "/inlinejit"); }

/// "fn (where)" for each frame of the stack printed after the first line
/// of `err` holding `what`.
std::vector<std::string> frames(const std::string& err, const std::string& what) {
    std::vector<std::string> out;
    for (const StackFrame& f : stack_trace_after(err, what))
        out.push_back(f.function + " (" + f.where + ")");
    return out;
}

/// What the inline table must make of the invalid read's stack.
const std::vector<std::string> kInlined = {"deeper (lib.src:2)", "square (lib.src:6)",
                                           "jit_inlining (inline.src:21)"};

bool starts_with(const std::vector<std::string>& v, const std::vector<std::string>& prefix) {
    return v.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), v.begin());
}

/// The frame after the inlined ones is the C caller.
bool caller_follows(const std::vector<std::string>& v, std::size_t at) {
    return v.size() > at && v[at].rfind("enter_jit (", 0) == 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(memcheck_shows_each_inlined_level_at_the_same_address) {
    const Result r = run_valgrind({"--tool=memcheck"}, {inlinejit(), "memerr"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "status jit_inlining 1 0"), r.err);
    const auto f = frames(r.err, "Invalid read of size 4");
    BOOST_TEST(starts_with(f, kInlined), r.err);
    BOOST_TEST(caller_follows(f, kInlined.size()), r.err);
    // One address for the three levels, as for ELF code.
    static const std::regex at(R"(==\d+==    at (0x[0-9A-F]+): deeper)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, at), r.err);
    BOOST_TEST(contains(r.err, "by " + m[1].str() + ": square (lib.src:6)"), r.err);
    BOOST_TEST(contains(r.err, "by " + m[1].str() + ": jit_inlining (inline.src:21)"), r.err);
}

BOOST_AUTO_TEST_CASE(code_without_a_line_table_shows_its_inlined_frames_too) {
    // The innermost frame has no line of its own then, the callers keep
    // their call sites.
    const Result r = run_valgrind({"--tool=memcheck"}, {inlinejit(), "nolines"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const auto f = frames(r.err, "Invalid read of size 4");
    BOOST_TEST_REQUIRE(f.size() > 3u, r.err);
    BOOST_TEST(f[0] == "deeper (in inlinejit)", r.err);
    BOOST_TEST(f[1] == kInlined[1], r.err);
    BOOST_TEST(f[2] == kInlined[2], r.err);
    BOOST_TEST(caller_follows(f, 3), r.err);
}

BOOST_AUTO_TEST_CASE(without_read_inline_info_only_the_registered_function_shows) {
    const Result r =
        run_valgrind({"--tool=memcheck", "--read-inline-info=no"}, {inlinejit(), "memerr"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const auto f = frames(r.err, "Invalid read of size 4");
    BOOST_TEST_REQUIRE(!f.empty(), r.err);
    BOOST_TEST(f[0] == "jit_inlining (lib.src:2)", r.err);
    BOOST_TEST(caller_follows(f, 1), r.err);
}

BOOST_AUTO_TEST_CASE(a_version_2_descriptor_has_no_inline_table) {
    // struct_size says version 2: the inline fields are not read.
    const Result r = run_valgrind({"--tool=memcheck"}, {inlinejit(), "v2"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "status jit_inlining 1 0"), r.err);
    const auto f = frames(r.err, "Invalid read of size 4");
    BOOST_TEST_REQUIRE(!f.empty(), r.err);
    BOOST_TEST(f[0] == "jit_inlining (lib.src:2)", r.err);
}

BOOST_AUTO_TEST_CASE(callgrind_and_cachegrind_attribute_inlined_code_to_the_outer_function) {
    TempDir dir;
    const std::string cl_out = dir.file("callgrind.out"), cg_out = dir.file("cachegrind.out");
    const Result cl = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + cl_out},
                                   {inlinejit(), "run", "1000"});
    BOOST_TEST_REQUIRE(cl.status == 0, cl);
    const Result cgr = run_valgrind({"--tool=cachegrind", "--cachegrind-out-file=" + cg_out},
                                    {inlinejit(), "run", "1000"});
    BOOST_TEST_REQUIRE(cgr.status == 0, cgr);
    for (const std::string& path : {cl_out, cg_out}) {
        BOOST_TEST_CONTEXT(path) {
            const cg::Profile p = cg::Profile::parse_file(path);
            BOOST_TEST(p.functions_named("square").empty());
            BOOST_TEST(p.functions_named("deeper").empty());
            // Cachegrind files a function under each source file its
            // lines are in: sum over them.
            const auto fns = p.functions_named("jit_inlining");
            BOOST_TEST_REQUIRE(!fns.empty());
            auto cost = [&](const char* file, std::uint64_t line) {
                std::uint64_t sum = 0;
                for (const cg::FunctionCosts* f : fns) sum += cg::line_cost(*f, file, line);
                return sum;
            };
            // 1000 runs of 5 instructions, on the line table's lines:
            // inline.src 20 and 22, lib.src 5, 2 and 7 (1000 each).
            BOOST_TEST(cost("/virtual/inline.src", 20) == 1000u);
            BOOST_TEST(cost("/virtual/lib.src", 5) == 1000u);
            BOOST_TEST(cost("/virtual/lib.src", 2) == 1000u);
            BOOST_TEST(cost("/virtual/lib.src", 7) == 1000u);
            BOOST_TEST(cost("/virtual/inline.src", 22) == 1000u);
        }
    }
}

BOOST_AUTO_TEST_CASE(malformed_inline_tables_are_refused_with_a_status_and_a_warning) {
    const Result r = run_valgrind({"--tool=memcheck", "-v"}, {inlinejit(), "hostile"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(!contains(r.err, "Assertion"), r.err);
    static const std::regex line(R"(^(case|limit) (\S+) (\d+) (\d+)$)");
    std::istringstream in(r.err);
    int cases = 0, limits = 0;
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (!std::regex_match(l, m, line)) continue;
        BOOST_TEST_CONTEXT(m[2].str()) {
            if (m[1] == "case") {
                ++cases;
                BOOST_TEST(m[3].str() == "0");
                BOOST_TEST(m[4].str() == "11");  // VG_JIT_ERR_BAD_INLINE
            } else {
                ++limits;
                BOOST_TEST(m[3].str() == "1");
            }
        }
    }
    BOOST_TEST(cases == 18, r.err);
    // At the limits, accepted: inlined calls 1,000 deep
    // (VG_JIT_MAX_INLINE_DEPTH; too_deep has 1,001), adjacent one-byte
    // pieces, and 65,536 entries (VG_JIT_MAX_INLINES; too_many has
    // 65,537).
    BOOST_TEST(limits == 3, r.err);
    BOOST_TEST(contains(r.err, "\nlimit max_depth 1 0\n"), r.err);
    BOOST_TEST(contains(r.err, "\nlimit max_inlines 1 0\n"), r.err);
    // Each refusal names the entry and gives the value and the limit.
    for (
        const char* why :
        {R"(entry 0: its range \(offset \d+, 0 bytes\) is empty or not inside the code \(\d+ bytes\))",
         R"(entry 1: its range \(offset \d+, 18446744073709551615 bytes\) is empty or not inside the code \(\d+ bytes\))",
         "entry 0: the inlined function's name is unreadable, empty, longer than 4095 bytes or not "
         "clean text",
         "entry 1: the inlined call's file is unreadable, empty, longer than 4095 bytes or not "
         "clean text",
         R"(entry 0: the inlined call's line is 0, not 1 to 1048575 \(VG_JIT_MAX_INLINE_LINE\))",
         R"(entry 0: the inlined call's line is 1048576, not 1 to 1048575 \(VG_JIT_MAX_INLINE_LINE\))",
         "entry 0: its parent 1 is not an earlier entry",
         "entry 1: its parent 1 is not an earlier entry",
         R"(entry 1: its range \(offset 0, \d+ bytes\) is not inside its parent's \(entry 0\))",
         R"(the inlined ranges at offsets \d+ and \d+ of the same parent overlap)",
         R"(entry 1000: inlined calls nest deeper than 1000 \(VG_JIT_MAX_INLINE_DEPTH\))",
         R"(inlines \(0x1000, 4 entries\) is not readable client memory)",
         R"(n_inlines is 65537, above the limit of 65536 \(VG_JIT_MAX_INLINES\))"}) {
        BOOST_TEST(
            std::regex_search(r.err, std::regex(std::string("bad inline table: ") + why + "\n")),
            why);
    }
    // The good table registered after them is used.
    BOOST_TEST(starts_with(frames(r.err, "Invalid read of size 4"), kInlined), r.err);
}
