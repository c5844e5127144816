// integration_core_requests.cpp - integration_core's cases of what the
// client requests return (testjit's status lines) and what -v says of
// them: natively, under every tool, with bad input, with line tables that
// lose entries, and under stock Valgrind, which ignores them;
// integration_core.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_core.hpp"
#include "test_support.hpp"

#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

using namespace vgjit::test;
using namespace core_test;

BOOST_AUTO_TEST_CASE(output_is_identical_natively_and_under_every_tool) {
    for (const std::string mode : {"calls", "replace", "patch", "forget", "memerr", "mangled",
                                   "fork", "leak", "alloc", "race", "malloc", "bad"}) {
        BOOST_TEST_CONTEXT("mode " << mode) {
            const Result native = run(program(mode));
            BOOST_TEST_REQUIRE(native.status == 0, native);
            BOOST_TEST(!native.out.empty());
            for (const std::string tool : {"memcheck", "callgrind", "cachegrind"}) {
                TempDir dir;
                const Result vg = run_valgrind(tool_args(tool, dir), program(mode));
                BOOST_TEST(vg.status == 0, tool << ": " << vg);
                BOOST_TEST(vg.out == native.out, tool);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(requests_report_not_running_natively) {
    const auto st = statuses(run(program("bad")).err);
    BOOST_TEST_REQUIRE(st.count("query") == 1);
    BOOST_TEST(st.at("query").ret == 0u);
    BOOST_TEST(st.at("query").err == 1);  // VG_JIT_ERR_NOT_RUNNING
    BOOST_TEST(st.at("messy-lines").ret == 0u);
}

BOOST_AUTO_TEST_CASE(line_tables_that_lose_entries_say_how_many_and_why_once) {
    TempDir dir;
    const Result r = run_valgrind(tool_args("memcheck", dir, {"-v"}), program("lines"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "lines done, code returned 7"));
    const auto st = statuses(r.err);
    for (const char* what : {"no-file", "high-line", "junk-file", "flood-0"}) {
        BOOST_TEST_REQUIRE(st.count(what) == 1, what);
        BOOST_TEST(st.at(what).ret == 1u, what);
        BOOST_TEST(st.at(what).err == 65, what);  // VG_JIT_WARN_LINES_DROPPED
    }
    // A descriptor without a file loses every entry: said under -v, once.
    const std::map<std::string, std::string> want = {
        {"no_file", "3 of 3: 3 with no file (neither the entry nor the registration names one)"},
        {"high_line", "2 of 3: 2 with a line above 1048575"},
        {"junk_file", "2 of 2: 2 whose file name is not UTF-8 or has control characters"},
        {"flood_0", "1 of 2: 1 at an offset at or past the code's size ("},
    };
    for (const auto& [name, why] : want) {
        BOOST_TEST_CONTEXT(name) {
            const std::regex one(
                R"(Warning: JIT register of ")" + name +
                R"(" \(start 0x[0-9a-f]+, size [0-9]+\): line-table entries dropped: )");
            std::smatch m;
            const std::string line = "register of \"" + name + "\" ";
            BOOST_TEST(count_of(r.err, line) == 1u, r.err);
            BOOST_TEST_REQUIRE(std::regex_search(r.err, m, one), r.err);
            BOOST_TEST(r.err.compare(m.position(0) + m.length(0), why.size(), why) == 0,
                       r.err.substr(m.position(0), 300));
        }
    }
    // 153 registrations lose entries: 100 warnings, then only a count.
    BOOST_TEST(count_of(r.err, "line-table entries dropped: ") == 100u);
    BOOST_TEST(count_of(r.err, "Warning: further JIT warnings are only counted\n") == 1u);
    BOOST_TEST(contains(r.err, "JIT: 53 further client request warnings were only counted\n"),
               r.err);
    // The summary adds them up by reason.
    BOOST_TEST(contains(r.err, " 157 line entries dropped, "), r.err);
    BOOST_TEST(
        contains(r.err,
                 "JIT: line-table entries dropped (of the tables that lost some): 157 of 308: "
                 "150 at an offset at or past the code's size, 2 with a line above 1048575, "
                 "3 with no file (neither the entry nor the registration names one), "
                 "2 whose file name is not UTF-8 or has control characters\n"),
        r.err);
}

namespace {

/// What valgrind/jit.h documents for each case of `testjit bad`:
/// (returned, LAST_ERROR).
const std::map<std::string, std::pair<unsigned long, int>>& documented_statuses() {
    static const std::map<std::string, std::pair<unsigned long, int>> documented = {
        {"null-name", {0, 3}},
        {"wild-name", {0, 3}},
        {"unterminated-name", {0, 3}},
        {"empty-name", {0, 3}},
        {"long-name", {0, 3}},
        {"size-zero", {0, 5}},
        {"wraps", {0, 5}},
        {"huge", {0, 5}},
        // Memory that is not executable (or not mapped) yet: the name
        // waits for an mmap or mprotect that makes it so.
        {"unmapped", {1, 66}},
        {"not-executable", {1, 66}},
        {"elf-text", {0, 7}},
        {"null-desc", {0, 2}},
        {"small-desc", {0, 2}},
        {"huge-desc", {0, 2}},
        {"wild-lines", {0, 8}},
        {"absurd-n-lines", {0, 8}},
        {"bad-object", {0, 4}},
        {"messy-lines", {1, 65}},
        {"overlap-replaces", {1, 64}},
        {"unregister-nothing", {0, 9}},
        {"unregister-range", {1, 0}},
        {"query", {3, 0}},
        {"before-mprotect", {1, 0}},
        {"after-mprotect", {1, 66}},
        // The mprotect before it registered after_mprotect there.
        {"executable-again", {1, 64}},
        {"name-mapped", {1, 0}},
        {"name-unmapped", {0, 3}},
    };
    return documented;
}

/// What -v says of each bad name `testjit bad` registers, with the limit.
const char* const kBadNameReasons[] = {
    "bad name: the name is NULL\n", "bad name: the name is empty\n",
    "bad name: the name at 0x10 is not readable client memory\n",
    "bad name: the name is 5000 bytes long, above the limit of 4095 bytes "
    "(VG_JIT_MAX_STRING)\n"};

/// What -v says of each bad descriptor, line table and range of
/// `testjit bad`, with the value and the limit: each said once.
const char* const kLimitReasons[] = {
    "(descriptor 0x0): bad descriptor: the descriptor pointer is NULL\n",
    "bad descriptor: struct_size is 8, not 64 to 4096 bytes\n",
    "bad descriptor: struct_size is 1048576, not 64 to 4096 bytes\n",
    "bad line table: lines (0x10, 4 entries of 24 bytes) is not readable client "
    "memory\n",
    "bad line table: n_lines is 1099511627776, above the limit of 1048576 "
    "(VG_JIT_MAX_LINES)\n",
    "bad address range: the size is 0\n",
    "bad address range: the size is 1099511627776 bytes, above the limit of "
    "4294967295 bytes "
    "(VG_JIT_MAX_CODE_SIZE)\n",
    "bad address range: 0xfffffffffffffff7 + 64 bytes wraps around the end of the "
    "address "
    "space\n"};

}  // namespace

BOOST_AUTO_TEST_CASE(bad_input_gets_documented_codes_in_every_tool) {
    const auto& expected = documented_statuses();
    for (const std::string tool : {"memcheck", "callgrind", "cachegrind"}) {
        BOOST_TEST_CONTEXT("tool " << tool) {
            TempDir dir;
            const Result r = run_valgrind(tool_args(tool, dir, {"-v"}), program("bad"));
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(contains(r.out, "bad inputs survived, code returned 7"));
            const auto st = statuses(r.err);
            for (const auto& [what, want] : expected) {
                BOOST_TEST_REQUIRE(st.count(what) == 1, what);
                BOOST_TEST(st.at(what).ret == want.first, what);
                BOOST_TEST(st.at(what).err == want.second, what);
            }
            // Each refusal is explained under -v, and the run goes on.
            BOOST_TEST(contains(r.err, "Warning: JIT register refused"));
            // Warnings name the function and show only arguments that apply.
            static const std::regex size_zero(
                R"(Warning: JIT register refused of "f" \(start 0x[0-9a-f]+, size 0\): bad address range)");
            BOOST_TEST(std::regex_search(r.err, size_zero), r.err);
            static const std::regex unregister(
                R"(Warning: JIT unregister refused \(start 0x[0-9a-f]+\): nothing registered there)");
            BOOST_TEST(std::regex_search(r.err, unregister), r.err);
            BOOST_TEST(
                contains(r.err, "Warning: JIT register refused (descriptor 0x0): bad descriptor"),
                r.err);
            // Each bad string says what is wrong with it, with the limit.
            for (const char* why : kBadNameReasons) {
                BOOST_TEST(contains(r.err, why), why);
            }
            static const std::regex runs_off(
                R"(bad name: the name at 0x[0-9a-f]+ runs into unreadable memory before its terminating NUL\n)");
            BOOST_TEST(std::regex_search(r.err, runs_off), r.err);
            static const std::regex bad_object(
                R"(Warning: JIT register refused of "badlines" \(start 0x[0-9a-f]+, size [0-9]+\): bad object or file name: the object name at 0x[0-9a-f]+ runs into unreadable memory before its terminating NUL)");
            BOOST_TEST(std::regex_search(r.err, bad_object), r.err);
            // Refusals of descriptors, line tables and ranges give the value
            // and the limit.
            for (const char* why : kLimitReasons) {
                BOOST_TEST(count_of(r.err, why) == 1u, why);
            }
            // The messy table loses three of its five entries, each reason
            // counted, in one warning.
            static const std::regex messy(
                R"(Warning: JIT register of "badlines" \(start 0x[0-9a-f]+, size ([0-9]+)\): line-table entries dropped: 3 of 5: 1 at an offset at or past the code's size \(([0-9]+) bytes\), 1 with line 0, 1 whose file name is not readable or longer than 4095 bytes\n)");
            std::smatch mm;
            BOOST_TEST_REQUIRE(std::regex_search(r.err, mm, messy), r.err);
            BOOST_TEST(mm[1].str() == mm[2].str());
            BOOST_TEST(count_of(r.err, "line-table entries dropped: ") == 1u, r.err);
            // Every request counted once: 24 register = 8 + 16, 2 unregister = 1 + 1.
            BOOST_TEST(contains(r.err,
                                "JIT: client requests: 24 register: 8 registered, 16 refused; "
                                "2 unregister: 1 applied, 1 refused"),
                       r.err);
            BOOST_TEST(contains(r.err,
                                "JIT: refused: 3 bad descriptor, 6 bad name, 1 bad object or "
                                "file name, 3 bad address range, 1 range overlaps the text of "
                                "a loaded object, 2 bad line table"),
                       r.err);
            // Three names waited; after_mprotect became code when its page
            // became executable again, the other two never did.
            BOOST_TEST(contains(r.err,
                                "JIT: 3 names waited for their code to become executable: "
                                "1 became code, 0 replaced by newer names, 0 refused then, "
                                "2 never became code"),
                       r.err);
            BOOST_TEST(contains(r.err, "JIT: never became code: f at 0x10000 (64 bytes, [jit])"),
                       r.err);
            // The refusal names the object and the function it would cover.
            BOOST_TEST(contains(r.err, "range overlaps the text of a loaded object: " + testjit() +
                                           ", function elf_helper at 0x"),
                       r.err);
            BOOST_TEST(contains(r.err, "JIT: "));
            if (tool == "memcheck") BOOST_TEST(contains(r.err, "ERROR SUMMARY: 0 errors"));
        }
    }
}

BOOST_AUTO_TEST_CASE(verbose_summary_and_trace_report_registrations) {
    const Result r = run_valgrind({"--tool=none", "-v", "--trace-jit=yes"}, program("calls"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "jit: register"), r.err);
    BOOST_TEST(contains(r.err, "jit_leaf (" + kObject + "), 3 lines"), r.err);
    // testjit unmaps its code memory before it exits.
    BOOST_TEST(contains(r.err,
                        "JIT: 3 registered, 0 unregistered, 0 replaced, 3 unmapped, "
                        "0 refused, 0 line entries dropped, 0 live at exit"),
               r.err);
}

BOOST_AUTO_TEST_CASE(stock_valgrind_ignores_the_requests,
                     *boost::unit_test::precondition(stock_valgrind_available)) {
    // Under a Valgrind without JIT support (the unpatched build of the same
    // release), every request yields its "not recorded" value and the
    // program behaves as it does natively.
    const Result native = run(program("bad"));
    const Result r = run({stock_valgrind(), "-q", "--tool=memcheck", "--", testjit(),
                          "--source=" + source(), "bad"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == native.out);
    const auto st = statuses(r.err);
    BOOST_TEST(st.size() >= 20u);
    BOOST_TEST(st.size() == statuses(native.err).size());
    for (const auto& [what, s] : st) {
        BOOST_TEST(s.ret == 0u, what);
        BOOST_TEST(s.err == 1, what);  // VG_JIT_ERR_NOT_RUNNING
    }
}
