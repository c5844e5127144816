// integration_core_kept.cpp - integration_core's cases of names kept for
// unregistered code while it stays mapped (testjit withdrawn), what ends
// them, and --keep-debuginfo=yes naming code that is gone;
// integration_core.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_core.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

using namespace vgjit::test;
using namespace core_test;
using cg::line_cost;

namespace {

// testjit withdrawn END (see testjit.cpp): w_caller calls w_leaf 10
// times a call (w_leaf: 3 instructions, lines 140..142); one call while
// registered, three after both are unregistered with their code still
// mapped, then END ends (or not) what the names are kept for, and two
// more calls follow.

/// Calls of `callee` from `caller` (names) in p, summed over objects.
std::uint64_t calls_between(const cg::Profile& p, const std::string& caller,
                            const std::string& callee) {
    std::uint64_t n = 0;
    for (const auto& [k, e] : p.calls())
        if (k.first.name == caller && k.second.name == callee) n += e.count;
    return n;
}

/// Calls of `callee` from any caller in p.
std::uint64_t calls_into(const cg::Profile& p, const std::string& callee) {
    std::uint64_t n = 0;
    for (const auto& [k, e] : p.calls())
        if (k.second.name == callee) n += e.count;
    return n;
}

/// Runs testjit withdrawn `end` under Callgrind (with `extra`).
cg::Profile withdrawn_profile(const TempDir& dir, const std::string& end,
                              std::vector<std::string> extra = {}) {
    const std::string out = dir.file("callgrind.withdrawn-" + end);
    std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> prog = program("withdrawn");
    prog.push_back(end);
    const Result r = run_valgrind(args, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.out, "withdrawn " + end + " done"), r.out);
    const auto st = statuses(r.err);
    // A kept function is no longer registered: a second unregistration
    // is refused.
    BOOST_TEST(st.at("unregister-again").err == 9);
    return cg::Profile::parse_file(out);
}

}  // namespace

BOOST_AUTO_TEST_CASE(unregistered_code_that_stays_mapped_keeps_names_in_callgrind) {
    for (const std::string end : {"stay", "range"}) {
        BOOST_TEST_CONTEXT("end " << end) {
            TempDir dir;
            const cg::Profile p = withdrawn_profile(dir, end);
            // All 40 calls, 30 of them after the unregistration, under the
            // names, with their lines.
            BOOST_TEST(calls_between(p, "w_caller", "w_leaf") == 40u);
            BOOST_TEST(calls_into(p, "w_caller") == 4u);
            BOOST_TEST(self_ir(p, "w_leaf") == 3u * 40);
            const auto leaf = p.functions_named("w_leaf");
            BOOST_TEST_REQUIRE(leaf.size() == 1u);
            BOOST_TEST(leaf[0]->key.object == kObject);
            BOOST_TEST(line_cost(*leaf[0], source(), 141) == 40u);
            BOOST_TEST(line_cost(*leaf[0], source(), 140) + line_cost(*leaf[0], source(), 142) ==
                       80u);
        }
    }
}

BOOST_AUTO_TEST_CASE(kept_names_end_when_code_is_written_unmapped_reregistered_or_unexecutable) {
    // After the end, the 20 calls of the code at w_leaf's address go to
    // another name; w_caller keeps its name where its own code stays.
    struct Case {
        const char* end;
        std::uint64_t caller_calls;  // calls of w_caller under its name
        const char* leaf_after;      // the name the later leaf calls get, or ""
    };
    for (const Case c : {Case{"write", 6, ""}, Case{"munmap", 4, ""},
                         Case{"reregister", 6, "w_again"}, Case{"unexec", 4, ""}}) {
        BOOST_TEST_CONTEXT("end " << c.end) {
            TempDir dir;
            const cg::Profile p = withdrawn_profile(dir, c.end);
            BOOST_TEST(calls_into(p, "w_leaf") == 40u);
            BOOST_TEST(self_ir(p, "w_leaf") == 3u * 40);
            BOOST_TEST(calls_into(p, "w_caller") == c.caller_calls);
            if (*c.leaf_after != 0) {
                BOOST_TEST(calls_between(p, "w_caller", c.leaf_after) == 20u);
                BOOST_TEST(self_ir(p, c.leaf_after) == 3u * 20);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(memcheck_names_unregistered_code_that_stays_mapped) {
    // The invalid read happens only after the unregistration: its stack
    // is described while the names are kept.
    std::vector<std::string> prog = program("withdrawn");
    prog.push_back("stay");
    const Result r = run_valgrind({"--tool=memcheck", "-v"}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex frames(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: w_leaf \(testjit\.src:141\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: w_caller \(testjit\.src:151\)\n)");
    BOOST_TEST(std::regex_search(r.err, frames), r.err);
    static const std::regex summary(
        R"(JIT: 2 unregistered functions kept their names while their code stayed mapped and )"
        R"(unchanged, 2 of them looked up after that .*; ended: 2 unmapped, 0 reused, 0 written, )"
        R"(0 otherwise; 0 kept at exit; client requests withdrew 2 of them, 2 looked up after that)");
    BOOST_TEST(std::regex_search(r.err, summary), r.err);
    BOOST_TEST(contains(r.err, "JIT: 2 registered, 2 unregistered, 0 replaced, 0 unmapped"), r.err);

    // Overwritten: the new code's read (another address) is not w_leaf's,
    // while its caller, unchanged, keeps its name.
    prog.back() = "write";
    const Result w = run_valgrind({"--tool=memcheck"}, prog);
    BOOST_TEST_REQUIRE(w.status == 0, w);
    BOOST_TEST(std::regex_search(w.err, frames), w.err);
    static const std::regex other(R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: ([^\n]*)\n)"
                                  R"(==\d+==    by 0x[0-9A-F]+: w_caller \(testjit\.src:151\)\n)");
    std::vector<std::string> tops;
    for (auto it = std::sregex_iterator(w.err.begin(), w.err.end(), other);
         it != std::sregex_iterator(); ++it)
        tops.push_back((*it)[1].str());
    BOOST_TEST_REQUIRE(tops.size() == 2u, w.err);
    BOOST_TEST(tops[0] == "w_leaf (testjit.src:141)");
    BOOST_TEST(tops[1].find("w_leaf") == std::string::npos, tops[1]);
}

BOOST_AUTO_TEST_CASE(keep_debuginfo_names_leaks_of_kept_code_once_its_range_is_reused) {
    // --keep-debuginfo=yes still names the leak of code that is gone
    // (leak: jit_allocator unregistered, then other code registered over
    // it), and without it the frame has no name (nothing keeps the names
    // of unregistered code then).
    static const std::regex leak(
        R"(77 bytes in 1 blocks are definitely lost[^\n]*\n[^\n]*malloc[^\n]*\n==\d+==    by 0x[0-9A-F]+: ([^\n]*)\n)");
    std::smatch m;
    const Result kept =
        run_valgrind({"--leak-check=full", "--keep-debuginfo=yes", "-v"}, program("leak"));
    BOOST_TEST_REQUIRE(std::regex_search(kept.err, m, leak), kept.err);
    BOOST_TEST(m[1].str() == "jit_allocator (testjit.src:71)");
    // The unregistration kept jit_allocator (its code stayed); the new
    // registration ended that.
    BOOST_TEST(contains(kept.err, "ended: 0 unmapped, 1 reused, 0 written"), kept.err);
}

BOOST_AUTO_TEST_CASE(keep_debuginfo_keeps_names_of_replaced_code) {
    // jit_allocator leaks a block, then is unregistered and other_code is
    // registered at its address; the leak's stack was recorded before.
    static const std::regex leak(
        R"(77 bytes in 1 blocks are definitely lost[^\n]*\n[^\n]*malloc[^\n]*\n==\d+==    by 0x[0-9A-F]+: ([^\n]*)\n)");
    std::smatch m;
    const Result kept =
        run_valgrind({"--leak-check=full", "--keep-debuginfo=yes"}, program("leak"));
    BOOST_TEST_REQUIRE(std::regex_search(kept.err, m, leak), kept.err);
    BOOST_TEST(m[1].str() == "jit_allocator (testjit.src:71)");
    const Result dropped = run_valgrind({"--leak-check=full"}, program("leak"));
    BOOST_TEST_REQUIRE(std::regex_search(dropped.err, m, leak), dropped.err);
    BOOST_TEST(m[1].str() == "???");
}

BOOST_AUTO_TEST_CASE(keep_debuginfo_finds_an_archived_function_past_one_archived_inside_it) {
    // big_fn (256 bytes) leaks a block from offset 0x51, is unregistered;
    // small_fn (big_fn+16 .. +32) is registered and unregistered after it.
    // The leak's frame lies past small_fn's end, inside big_fn only: the
    // archive must still find big_fn behind the shorter, later function.
    static const std::regex leak(
        R"(88 bytes in 1 blocks are definitely lost[^\n]*\n[^\n]*malloc[^\n]*\n==\d+==    by 0x[0-9A-F]+: ([^\n]*)\n)");
    std::smatch m;
    const Result kept =
        run_valgrind({"--leak-check=full", "--keep-debuginfo=yes"}, program("nested"));
    BOOST_TEST_REQUIRE(kept.status == 0, kept);
    BOOST_TEST(contains(kept.out, "nested allocated yes"), kept.out);
    BOOST_TEST_REQUIRE(std::regex_search(kept.err, m, leak), kept.err);
    BOOST_TEST(m[1].str() == "big_fn (in testjit-obj)", kept.err);
    // Without archived functions the frame has no name (the test would
    // otherwise not tell the archive's answer from a live lookup).
    const Result dropped = run_valgrind({"--leak-check=full"}, program("nested"));
    BOOST_TEST_REQUIRE(std::regex_search(dropped.err, m, leak), dropped.err);
    BOOST_TEST(m[1].str() == "???");
}
