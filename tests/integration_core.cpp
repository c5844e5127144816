// integration_core.cpp - the JIT code registry in the patched core, end to
// end: tests/testjit (a small xbyak JIT that registers its code through
// <valgrind/jit.h>) runs natively and under the staged Callgrind,
// Cachegrind, Memcheck, Helgrind, DRD, Massif and DHAT, and the tests parse
// what those write.

#define BOOST_TEST_MODULE integration_core
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;
using cg::line_cost;

namespace {

const std::string kObject = "testjit-obj";

std::string source() { return absolute(srcdir() + "/tests/fixtures/testjit.src"); }

/// testjit's arguments for `mode`, with the real source file.
std::vector<std::string> program(const std::string& mode) {
    return {testjit(), "--source=" + source(), mode};
}

/// "status WHAT RET ERR" lines that testjit writes to stderr.
struct Status {
    unsigned long ret = 0;
    int err = -1;
};
std::map<std::string, Status> statuses(const std::string& err) {
    std::map<std::string, Status> out;
    std::istringstream in(err);
    std::string line;
    static const std::regex re(R"(^status (\S+) (\d+) (\d+)$)");
    while (std::getline(in, line)) {
        // Valgrind's own lines may precede on the same stream; testjit's
        // lines are whole lines.
        std::smatch m;
        if (std::regex_match(line, m, re)) out[m[1]] = Status{std::stoul(m[2]), std::stoi(m[3])};
    }
    return out;
}

/// Runs testjit under Callgrind and parses the profile.
cg::Profile callgrind_profile(const TempDir& dir, const std::string& mode,
                              std::vector<std::string> extra = {}) {
    const std::string out = dir.file("callgrind." + mode);
    std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_valgrind(args, program(mode));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return cg::Profile::parse_file(out);
}

const cg::FunctionCosts& function(const cg::Profile& p, const std::string& name) {
    for (const auto& [key, f] : p.functions())
        if (key.name == name) return f;
    throw std::runtime_error("no function " + name + " in the profile");
}

/// Valgrind options that make `tool` write its output file into `dir`.
std::vector<std::string> tool_args(const std::string& tool, const TempDir& dir,
                                   std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--tool=" + tool};
    if (tool == "callgrind") args.push_back("--callgrind-out-file=" + dir.file("callgrind.out"));
    if (tool == "cachegrind") args.push_back("--cachegrind-out-file=" + dir.file("cachegrind.out"));
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

}  // namespace

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

BOOST_AUTO_TEST_CASE(bad_input_gets_documented_codes_in_every_tool) {
    // What valgrind/jit.h documents for each case: (returned, LAST_ERROR).
    const std::map<std::string, std::pair<unsigned long, int>> expected = {
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
            for (const char* why :
                 {"bad name: the name is NULL\n", "bad name: the name is empty\n",
                  "bad name: the name at 0x10 is not readable client memory\n",
                  "bad name: the name is 5000 bytes long, above the limit of 4095 bytes "
                  "(VG_JIT_MAX_STRING)\n"}) {
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
            for (const char* why :
                 {"(descriptor 0x0): bad descriptor: the descriptor pointer is NULL\n",
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
                  "space\n"}) {
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

BOOST_AUTO_TEST_CASE(callgrind_names_objects_files_lines_and_call_edges) {
    TempDir dir;
    const cg::Profile p = callgrind_profile(dir, "calls");
    const std::string file = source();
    const auto& leaf = function(p, "jit_leaf");
    const auto& middle = function(p, "jit_middle");
    const auto& top = function(p, "jit_top");
    for (const auto* f : {&leaf, &middle, &top}) {
        BOOST_TEST(f->key.object == kObject);
        BOOST_TEST(f->key.file == file);
    }
    // jit_top calls jit_middle 100 times, which calls jit_leaf(1000) 10 times
    // each: leaf's loop (line 11) runs 5 instructions per iteration plus the
    // final compare and branch; its entry (line 10) is 2 instructions and
    // its return (line 12) 1.
    BOOST_TEST(line_cost(leaf, file, 10) == 2u * 1000);
    BOOST_TEST(line_cost(leaf, file, 11) == (5u * 1000 + 2) * 1000);
    BOOST_TEST(line_cost(leaf, file, 12) == 1u * 1000);
    BOOST_TEST(leaf.self.at(0) ==
               line_cost(leaf, file, 10) + line_cost(leaf, file, 11) + line_cost(leaf, file, 12));
    BOOST_TEST(line_cost(middle, file, 21) > 0u);
    BOOST_TEST(line_cost(top, file, 31) > 0u);

    auto edge = [&](const cg::FunctionCosts& from, const std::string& to) -> const cg::CallEdge* {
        for (const auto& [k, e] : p.calls())
            if (k.first == from.key && k.second.name == to) return &e;
        return nullptr;
    };
    const cg::CallEdge* top_mid = edge(top, "jit_middle");
    const cg::CallEdge* mid_leaf = edge(middle, "jit_leaf");
    const cg::CallEdge* mid_elf = edge(middle, "elf_helper");
    BOOST_TEST_REQUIRE(top_mid != nullptr);
    BOOST_TEST_REQUIRE(mid_leaf != nullptr);
    BOOST_TEST_REQUIRE(mid_elf != nullptr);
    BOOST_TEST(top_mid->count == 100u);
    BOOST_TEST(mid_leaf->count == 1000u);
    BOOST_TEST(mid_elf->count == 100u);
    // The ELF callee keeps its own object (the testjit executable).
    BOOST_TEST(contains(mid_elf->callee.object, "testjit"));
    BOOST_TEST(mid_elf->callee.object != kObject);
    // Inclusive cost of the leaf calls is exactly the leaf's self cost.
    BOOST_TEST(mid_leaf->inclusive.at(0) == leaf.self.at(0));

    // callgrind_annotate shows the functions and annotates the source.
    const Result ann =
        run({stage() + "/bin/callgrind_annotate", "--auto=yes", dir.file("callgrind.calls")});
    BOOST_TEST_REQUIRE(ann.status == 0, ann);
    // (callgrind_annotate shortens paths below the working directory.)
    BOOST_TEST(contains(ann.out, "testjit.src:jit_leaf [" + kObject + "]"), ann.out);
    BOOST_TEST(contains(ann.out, "while i < n: acc += i; i += 1"), ann.out);
    BOOST_TEST(contains(ann.out, "5,002,000"), ann.out);
}

// Patch 0005 carves the records Callgrind never frees (function nodes with
// their names, contexts, BBCCs, recursion arrays, call edges) from chunks;
// a record over 8 KiB gets an arena block of its own.  long_names has one
// function whose ELF name is 12,298 characters (that path) and 300 short
// ones, short_k called k + 1 times from main.
BOOST_AUTO_TEST_CASE(callgrind_records_keep_long_and_many_names) {
    TempDir dir;
    const std::string out = dir.file("callgrind.long_names");
    const Result r =
        run_valgrind({"--tool=callgrind", "--stats=yes", "--callgrind-out-file=" + out},
                     {tests_builddir() + "/long_names"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(out);

    std::string long_name = "long_name_";
    for (int i = 0; i < 4096; ++i) long_name += "abc";
    std::map<std::string, unsigned long long> calls_from_main;
    for (const auto& [k, e] : p.calls())
        if (k.first.name == "main") calls_from_main[k.second.name] += e.count;
    BOOST_TEST(calls_from_main[long_name] == 3u);
    BOOST_TEST(function(p, long_name).self.at(0) > 0u);
    for (unsigned k = 0; k < 300; ++k) {
        const std::string name = "short_" + std::to_string(k);
        BOOST_TEST(calls_from_main[name] == k + 1, name);
        BOOST_TEST(function(p, name).self.at(0) > 0u, name);
    }

    // --stats=yes accounts for the records.
    static const std::regex stats(R"(Record bytes: +(\d+) \(Chunks (\d+)\))");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, stats), r.err);
    // At least the 301 function nodes with their names, and the long one.
    BOOST_TEST(std::stoull(m[1]) > 301u * 80u + long_name.size());
    BOOST_TEST(std::stoul(m[2]) >= 1u);
}

BOOST_AUTO_TEST_CASE(cachegrind_attributes_file_function_and_lines) {
    TempDir dir;
    const std::string out = dir.file("cachegrind.out");
    const Result r = run_valgrind(
        {"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out}, program("calls"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string file = source();
    const auto& leaf = function(p, "jit_leaf");
    BOOST_TEST(leaf.key.file == file);
    BOOST_TEST(line_cost(leaf, file, 11) == 5002u * 1000);
    BOOST_TEST(line_cost(leaf, file, 10) == 2u * 1000);
    const Result ann = run({stage() + "/bin/cg_annotate", out});
    BOOST_TEST_REQUIRE(ann.status == 0, ann);
    static const std::regex row(R"(jit_leaf:\S*testjit\.src)");
    BOOST_TEST(std::regex_search(ann.out, row), ann.out);
    BOOST_TEST(contains(ann.out, "while i < n: acc += i; i += 1"), ann.out);
}

BOOST_AUTO_TEST_CASE(replaced_code_keeps_separate_costs_per_name) {
    TempDir dir;
    const cg::Profile p = callgrind_profile(dir, "replace");
    const std::string file = source();
    // Both versions start at the same address.  Each ran its own loop:
    // 2 instructions per iteration plus 3.
    const auto& first = function(p, "first_version");
    const auto& second = function(p, "second_version");
    BOOST_TEST(line_cost(first, file, 40) == 2u * 100000 + 3);
    BOOST_TEST(line_cost(second, file, 50) == 2u * 300000 + 3);
    BOOST_TEST(first.self.at(0) == 2u * 100000 + 3);
    BOOST_TEST(second.self.at(0) == 2u * 300000 + 3);
}

// A JIT patching code in place: patch_second is written over patch_first,
// which has run (and been translated), and registered over the same range
// without unregistering.  Both spin the same loop (identical bytes up to
// their last block), so only the registration's discard keeps the tools
// from reusing patch_first's translations and names.
BOOST_AUTO_TEST_CASE(code_registered_over_running_code_gets_only_its_own_costs) {
    const std::string file = source();
    // patch_first: 3 calls of 2 x 1000 + 3 instructions (entry 1, loop
    // 2000, finish 2); patch_second: 5 calls of 2 x 1000 + 4 (entry 1,
    // loop 2000, finish 3).
    const std::map<std::string, std::map<int, std::uint64_t>> want = {
        {"patch_first", {{110, 3u * 1}, {111, 3u * 2000}, {112, 3u * 2}}},
        {"patch_second", {{120, 5u * 1}, {121, 5u * 2000}, {122, 5u * 3}}},
    };
    for (const std::string tool : {"callgrind", "cachegrind"}) {
        BOOST_TEST_CONTEXT("tool " << tool) {
            TempDir dir;
            std::vector<std::string> args = tool_args(tool, dir);
            if (tool == "cachegrind") args.push_back("--cache-sim=no");
            const Result r = run_valgrind(args, program("patch"));
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(contains(r.out, "patch results 3 0"), r.out);
            // The second registration replaced the first (VG_JIT_WARN_REPLACED).
            const auto st = statuses(r.err);
            BOOST_TEST_REQUIRE(st.count("patch_second") == 1, r.err);
            BOOST_TEST(st.at("patch_second").ret == 1u);
            BOOST_TEST(st.at("patch_second").err == 64);
            const cg::Profile p = cg::Profile::parse_file(dir.file(tool + ".out"));
            for (const auto& [name, lines] : want) {
                const auto fns = p.functions_named(name);
                BOOST_TEST_REQUIRE(fns.size() == 1u, name);
                std::uint64_t total = 0;
                for (const auto& [line, ir] : lines) {
                    const std::uint64_t got = line_cost(*fns.front(), file, line);
                    BOOST_TEST(got == ir,
                               name << " line " << line << ": " << got << " Ir, want " << ir);
                    total += ir;
                }
                BOOST_TEST(fns.front()->self.at(0) == total,
                           name << ": " << fns.front()->self.at(0) << " Ir, want " << total);
            }
        }
    }
    // Memcheck names the new code in the error it raises.
    const Result m = run_valgrind({"--tool=memcheck"}, program("patch"));
    BOOST_TEST_REQUIRE(m.status == 0, m);
    static const std::regex frame(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: patch_second \(testjit\.src:122\))");
    BOOST_TEST(std::regex_search(m.err, frame), m.err);
    BOOST_TEST(!contains(m.err, "patch_first (testjit.src"), m.err);
}

BOOST_AUTO_TEST_CASE(code_unregistered_while_not_executable_has_no_name_when_it_runs_again) {
    // testjit forget: "forgotten" runs once registered (2 x 1000 + 3
    // instructions), then twice after a VALGRIND_JIT_UNREGISTER made while
    // its memory was not executable (it is executable again when it
    // runs): those runs must not be charged to the name.
    TempDir dir;
    const cg::Profile p = callgrind_profile(dir, "forget");
    const auto fns = p.functions_named("forgotten");
    std::uint64_t named = 0, on_line = 0;
    for (const auto* f : fns) {
        named += f->self.at(0);
        on_line += line_cost(*f, source(), 130);
    }
    BOOST_TEST(fns.size() == 1u);
    BOOST_TEST(named == 2003u);
    BOOST_TEST(on_line == 2003u);
    // The two later runs went to code no producer names: address-named
    // blocks, or the function named after the code that made the memory
    // executable ("[JIT code of F]").
    std::uint64_t unnamed = 0;
    for (const auto& [key, f] : p.functions())
        if (address_named(key.name) || key.name.rfind("[JIT code of ", 0) == 0)
            unnamed += f.self.at(0);
    BOOST_TEST(unnamed >= 2u * 2003);
}

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
    // it), and without it the frame has no name, as before the names of
    // unregistered code were kept.
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

/// tests/strippedmap stripped into dir (its perf map is the only name
/// source for its own functions).
std::string stripped_map_program(const TempDir& dir) {
    const std::string stripped = dir.file("strippedmap-stripped");
    const Result s = run({"/usr/bin/strip", "-o", stripped, tests_builddir() + "/strippedmap"});
    BOOST_TEST_REQUIRE(s.status == 0, s);
    return stripped;
}

BOOST_AUTO_TEST_CASE(memcheck_names_a_stripped_executables_own_code_from_its_perf_map) {
    // A perf map written just before the code runs names the first error
    // there (read when the lookup misses in text the ELF has no symbol
    // for), and one written after the code ran names the leak at exit.
    TempDir dir;
    const std::string prog = stripped_map_program(dir);
    const Result e = run_valgrind({"--jit-perf-map=yes", "--leak-check=full"}, {prog, "early"});
    remove_tmp_files_of(e.pid);
    BOOST_TEST_REQUIRE(e.status == 0, e);
    const std::string in = " (in " + prog + ")";
    static const std::regex read_frames(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: ([^\n]*)\n==\d+==    by 0x[0-9A-F]+: ([^\n]*)\n)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(e.err, m, read_frames), e.err);
    BOOST_TEST(m[1].str() == "SM:sm_leaf" + in);
    BOOST_TEST(m[2].str() == "SM:sm_caller" + in);
    static const std::regex leak(
        R"(99 bytes in 1 blocks are definitely lost[^\n]*\n[^\n]*malloc[^\n]*\n==\d+==    by 0x[0-9A-F]+: ([^\n]*)\n)");
    BOOST_TEST_REQUIRE(std::regex_search(e.err, m, leak), e.err);
    BOOST_TEST(m[1].str() == "SM:sm_alloc" + in);

    const Result l = run_valgrind({"--jit-perf-map=yes", "--leak-check=full"}, {prog, "late"});
    remove_tmp_files_of(l.pid);
    BOOST_TEST_REQUIRE(l.status == 0, l);
    BOOST_TEST_REQUIRE(std::regex_search(l.err, m, leak), l.err);
    BOOST_TEST(m[1].str() == "SM:sm_alloc" + in);
}

BOOST_AUTO_TEST_CASE(cachegrind_binds_late_names_of_a_stripped_executables_own_code) {
    // The perf map is written after the code ran: Cachegrind binds the
    // names at exit, in the executable.
    TempDir dir;
    const std::string prog = stripped_map_program(dir);
    const std::string out = dir.file("cachegrind.out");
    const Result r = run_valgrind({"--tool=cachegrind", "--cache-sim=no", "--jit-perf-map=yes",
                                   "-v", "--cachegrind-out-file=" + out},
                                  {prog, "late"});
    remove_tmp_files_of(r.pid);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(out);
    // sm_leaf: a load and ret, 10 calls; sm_loop: 1000 iterations of a
    // loop of at least 3 instructions, 10 calls.
    BOOST_TEST(self_ir(p, "SM:sm_leaf") == 2u * 10);
    BOOST_TEST(self_ir(p, "SM:sm_loop") >= 3u * 1000 * 10);
    BOOST_TEST(self_ir(p, "SM:sm_caller") > 0u);
    BOOST_TEST(self_ir(p, "SM:sm_alloc") > 0u);
    static const std::regex bound(
        R"(Cachegrind: (\d+) instructions attributed through names that arrived after)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, bound), r.err);
    BOOST_TEST(std::stoull(m[1]) >= self_ir(p, "SM:sm_loop"));
}

BOOST_AUTO_TEST_CASE(memcheck_names_jitted_frame_with_file_and_line) {
    const Result r = run_valgrind({"--tool=memcheck"}, program("memerr"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex frame(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: jit_reader \(testjit\.src:61\))");
    BOOST_TEST(std::regex_search(r.err, frame), r.err);
}

BOOST_AUTO_TEST_CASE(registered_names_are_demangled_like_elf_names) {
    const Result d = run_valgrind({"--tool=memcheck"}, program("mangled"));
    BOOST_TEST(contains(d.err, ": jitvm::reader::read(int*) (testjit.src:61)"), d.err);
    const Result m = run_valgrind({"--tool=memcheck", "--demangle=no"}, program("mangled"));
    BOOST_TEST(contains(m.err, ": _ZN5jitvm6reader4readEPi (testjit.src:61)"), m.err);
}

BOOST_AUTO_TEST_CASE(forked_child_keeps_registrations) {
    const Result r = run_valgrind({"--tool=memcheck"}, program("fork"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, ": jit_reader (testjit.src:61)"), r.err);
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

BOOST_AUTO_TEST_CASE(massif_names_jitted_allocation_sites) {
    TempDir dir;
    const std::string out = dir.file("massif.out");
    const Result r = run_valgrind(
        {"--tool=massif", "--threshold=0", "--detailed-freq=1", "--massif-out-file=" + out},
        program("alloc"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const std::string text = read_file(out);
    BOOST_TEST(contains(text, "jit_allocator (testjit.src:71)"), text);
}

BOOST_AUTO_TEST_CASE(jitted_function_named_malloc_is_not_redirected) {
    const Result r = run_valgrind({"--tool=memcheck"}, program("malloc"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    // Had the core redirected it to Memcheck's malloc, it would have
    // returned a pointer, not 5.
    BOOST_TEST(contains(r.out, "jitted malloc returned 5"), r);
    BOOST_TEST(contains(r.err, "ERROR SUMMARY: 0 errors"), r);
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

BOOST_AUTO_TEST_CASE(names_are_read_exactly_at_every_offset_length_and_mapping_edge) {
    // The core reads a name a word at a time within its mapping: each
    // name must come out whole, escaped where it holds junk bytes, also
    // when it ends on the last byte of a mapping or runs into the next.
    const Result r = run_valgrind({"--tool=none", "--trace-jit=yes"}, program("names"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.out, "names registered: 322"), r.out);
    std::vector<std::string> expected(322), traced;
    std::istringstream in(r.err);
    std::string line;
    static const std::regex expect(R"(^expect names-(\d+) (.*)$)");
    static const std::regex trace(
        R"(^--\d+-- jit: register 0x[0-9a-f]+-0x[0-9a-f]+ (.*) \(\[jit\]\), 0 lines$)");
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, expect) && std::stoul(m[1]) < expected.size())
            expected[std::stoul(m[1])] = m[2];
        else if (std::regex_match(line, m, trace))
            traced.push_back(m[1]);
    }
    const auto st = statuses(r.err);
    BOOST_TEST_REQUIRE(traced.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const std::string what = "names-" + std::to_string(i);
        BOOST_TEST_CONTEXT(what) {
            BOOST_TEST_REQUIRE(st.count(what) == 1);
            BOOST_TEST(st.at(what).ret == 1u);
            BOOST_TEST(st.at(what).err == 0);
            BOOST_TEST(traced[i] == expected[i]);
        }
    }
    // Some names hold junk bytes: they were escaped, not shown raw.
    BOOST_TEST(std::count_if(expected.begin(), expected.end(), [](const std::string& e) {
                   return e.find("\\x") != std::string::npos;
               }) > 10);
}

BOOST_AUTO_TEST_CASE(names_in_use_survive_name_pool_compactions) {
    // testjit compact: one name shared by two live functions, one used by
    // one, while the names of 60000 others die and the pool is compacted;
    // --trace-jit prints each name when its function is unregistered.
    const Result r = run_valgrind({"--tool=none", "-v", "--trace-jit=yes"}, program("compact"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.out, "compact done"), r.out);
    static const std::regex pool(
        R"(JIT: name pool: \d+ bytes in use, \d+ bytes unused, (\d+) compactions)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, pool),
                       r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0));
    BOOST_TEST(std::stoul(m[1]) >= 2u);
    const auto st = statuses(r.err);
    for (const char* what : {"kept-1", "kept-2", "kept-3", "unkept-1", "unkept-2", "unkept-3"}) {
        BOOST_TEST_REQUIRE(st.count(what) == 1, what);
        BOOST_TEST(st.at(what).ret == 1u, what);
    }
    std::vector<std::string> names;
    std::istringstream in(r.err);
    std::string line;
    static const std::regex unreg(
        R"(^--\d+-- jit: unregister 0x[0-9a-f]+-0x[0-9a-f]+ (kept\S*|\S*shared\S*|\S*alone\S*) \(\[jit\]\)$)");
    while (std::getline(in, line))
        if (std::regex_match(line, m, unreg)) names.push_back(m[1]);
    const std::string shared = "kept_shared_" + std::string(40, 's');
    const std::string alone = "kept_alone_" + std::string(40, 'a');
    BOOST_TEST(names == (std::vector<std::string>{shared, shared, alone}),
               r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0));
}

BOOST_AUTO_TEST_CASE(many_functions_are_each_named) {
    // 2000 functions of 16 bytes registered with VALGRIND_JIT_REGISTER
    // (default object), each run once: mov + ret.
    TempDir dir;
    const std::string out = dir.file("callgrind.many");
    std::vector<std::string> prog = program("many");
    prog.push_back("2000");
    const Result r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(out);
    std::size_t named = 0;
    for (const auto& [key, f] : p.functions()) {
        if (key.name.rfind("many_", 0) != 0) continue;
        ++named;
        BOOST_TEST(key.object == "[jit]");
        BOOST_TEST(f.self.at(0) == 2u, key.name);
    }
    BOOST_TEST(named == 2000u);
    // No address-named pseudo-function inside the registered code.
    static const std::regex range(R"(many range 0x([0-9a-f]+) 0x([0-9a-f]+))");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, range), r.err);
    const std::uint64_t lo = std::stoull(m[1], nullptr, 16), hi = std::stoull(m[2], nullptr, 16);
    for (const auto& [key, f] : p.functions()) {
        if (!address_named(key.name)) continue;
        const std::uint64_t a = std::stoull(key.name, nullptr, 16);
        BOOST_TEST(!(lo <= a && a < hi), "unnamed block " << key.name << " in JIT code");
    }
}

/// A counter of Valgrind's --stats=yes output: the number (with thousands
/// separators) matched by the first group of `pattern`, e.g.
/// R"(transtab: new +([\d,]+))".
static std::uint64_t stats_counter(const std::string& err, const std::string& pattern) {
    std::smatch m;
    if (!std::regex_search(err, m, std::regex(pattern)))
        throw std::runtime_error("no match for " + pattern + " in --stats output");
    std::string digits = m[1];
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    return std::stoull(digits);
}

BOOST_AUTO_TEST_CASE(translation_lookups_are_exact_with_the_entry_filter) {
    // Patch 0004: once a third translation sector is in use, a filter of
    // entry addresses answers lookups of untranslated code.  testjit
    // retranslate N runs N functions, discards the first half's
    // translations, and runs all N again: exactly N + N/2 of their
    // translations are made if the filter never hides a translation (a
    // hidden one is translated again) and forgets discarded ones.  The
    // program's own translations are measured with a small N.
    const std::string kFiltered = R"(tt/tc: ([\d,]+) lookups answered by the entry filter)";
    auto new_translations = [](long n) {
        const Result native = run({testjit(), "retranslate", std::to_string(n)});
        const Result r = run_valgrind({"--tool=none", "--stats=yes"},
                                      {testjit(), "retranslate", std::to_string(n)});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        BOOST_TEST(r.out == native.out);
        BOOST_TEST(contains(r.out, "retranslate sum "), r.out);
        return std::make_pair(r, stats_counter(r.err, R"(transtab: new +([\d,]+))"));
    };
    const auto [small, small_new] = new_translations(1000);
    BOOST_TEST(contains(small.err, "lookups answered by the entry filter (not in use)"));
    const long n = 120000;  // about 4 sectors of 42,588 translations
    const auto [big, big_new] = new_translations(n);
    BOOST_TEST(contains(big.err, "transtab: allocate entry filter"));
    // The same program code around both runs: allow a few blocks of
    // difference (the number printed at the end is longer).
    const std::int64_t extra = static_cast<std::int64_t>(big_new - small_new) - (n - 1000) * 3 / 2;
    BOOST_TEST(std::llabs(extra) <= 16, "translations beyond N + N/2: " << extra);
    // The second pass's first half missed everywhere after its discard:
    // the filter, counted down by the discard, answered nearly all of them.
    BOOST_TEST(stats_counter(big.err, kFiltered) >= std::uint64_t(n / 2 * 9 / 10));
    BOOST_TEST(stats_counter(big.err, R"(transtab: discarded +([\d,]+))") >= std::uint64_t(n / 2));

    // Three sectors: the filter exists from the third on, the oldest
    // sector is recycled (its translations counted out of the filter),
    // and --sanity-level=4 checks at each discard that the filter counts
    // every translation in every sector.
    const Result native = run({testjit(), "retranslate", "100000"});
    const Result r =
        run_valgrind({"--tool=none", "--stats=yes", "--num-transtab-sectors=3", "--sanity-level=4"},
                     {testjit(), "retranslate", "100000"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == native.out);
    BOOST_TEST(!contains(r.err, "sanity fail"), r.err.substr(0, 4000));
    BOOST_TEST(stats_counter(r.err, R"(sectors recycled ([\d,]+))") >= 1u, r.err);
    BOOST_TEST(stats_counter(r.err, kFiltered) > 0u);
}

BOOST_AUTO_TEST_CASE(random_churn_matches_a_model_and_keeps_names_exact) {
    // testjit churn: 300000 random register / unregister / unregister-range
    // requests over 20000 slots (ascending, descending and random order,
    // so the registry's chunks fill, split, merge and empty), every return
    // value and status checked against a model inside the client.  Long
    // names make the name pool compact several times.
    for (const char* seed : {"1", "2", "3"}) {
        std::vector<std::string> prog = program("churn");
        prog.insert(prog.end(), {seed, "300000"});
        const Result r = run_valgrind({"--tool=none"}, prog);
        BOOST_TEST_REQUIRE(r.status == 0, r);
        BOOST_TEST(contains(r.err, "churn mismatches 0,"),
                   "seed " << seed << ": " << r.err.substr(0, 4000));
    }
    // Under Callgrind, with the exit summary: every function still
    // registered at the end ran once (mov + ret = 2 instructions) and must
    // carry exactly its name; shared names add up; no removed name has
    // costs.
    TempDir dir;
    const std::string out = dir.file("callgrind.churn");
    std::vector<std::string> prog = program("churn");
    prog.insert(prog.end(), {"7", "300000"});
    const Result r = run_valgrind({"--tool=callgrind", "-v", "--callgrind-out-file=" + out}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.err, "churn mismatches 0,"), r.err.substr(0, 4000));
    std::map<std::string, std::uint64_t> expected;
    {
        std::istringstream in(r.err);
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("churn live ", 0) == 0) expected[line.substr(11)] += 2;
    }
    BOOST_TEST_REQUIRE(expected.size() > 500u);
    const cg::Profile p = cg::Profile::parse_file(out);
    std::map<std::string, std::uint64_t> actual;
    for (const auto& [key, f] : p.functions()) {
        if (key.name.rfind("churn_", 0) != 0) continue;
        BOOST_TEST(key.object == "[jit]", key.name);
        actual[key.name] += f.self.at(0);
    }
    BOOST_TEST(actual.size() == expected.size());
    for (const auto& [name, ir] : expected) {
        const auto it = actual.find(name);
        BOOST_TEST((it != actual.end() && it->second == ir), name << ": expected " << ir);
    }
    // The name pool was compacted (names of removed functions freed).
    static const std::regex pool(
        R"(JIT: name pool: \d+ bytes in use, \d+ bytes unused, (\d+) compactions freed (\d+) bytes)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, pool),
                       r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0));
    BOOST_TEST(std::stoul(m[1]) >= 3u);
    BOOST_TEST(std::stoull(m[2]) >= 3u * (1u << 20));
}

BOOST_AUTO_TEST_CASE(helgrind_and_drd_name_racing_jitted_code) {
    const Result hg = run_valgrind({"--tool=helgrind"}, program("race"));
    BOOST_TEST_REQUIRE(hg.status == 0, hg);
    static const std::regex hg_race(
        R"(Possible data race during (read|write) of size 4[^\n]*\n==\d+== Locks held: none\n==\d+==    at 0x[0-9A-F]+: jit_racer \(testjit\.src:95\))");
    BOOST_TEST(std::regex_search(hg.err, hg_race), hg.err);
    const Result drd = run_valgrind({"--tool=drd"}, program("race"));
    BOOST_TEST_REQUIRE(drd.status == 0, drd);
    static const std::regex drd_race(
        R"(Conflicting (load|store) by thread \d+[^\n]*\n==\d+==    at 0x[0-9A-F]+: jit_racer \(testjit\.src:95\))");
    BOOST_TEST(std::regex_search(drd.err, drd_race), drd.err);
}

BOOST_AUTO_TEST_CASE(dhat_names_jitted_allocation_sites) {
    TempDir dir;
    const std::string out = dir.file("dhat.json");
    const Result r = run_valgrind({"--tool=dhat", "--dhat-out-file=" + out}, program("alloc"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex frame(R"re("0x[0-9A-F]+: jit_allocator \(testjit\.src:71\)")re");
    const std::string text = read_file(out);
    BOOST_TEST(std::regex_search(text, frame), text.substr(0, 2000));
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

// A JIT function whose first act is a call of a routine that builds its
// frame and returns below the frame it was called with (V8's baseline
// code and its BaselineOutOfLinePrologue): Callgrind counts the calls the
// function had, not one more "call" from the routine per call.  The same
// code as an ELF function keeps stock Callgrind's counts: every call
// edge between ELF functions equals stock Valgrind's.
namespace {

/// Calls into functions named `name` (any recursion depth), by caller name.
std::map<std::string, std::uint64_t> calls_into_by_caller(const cg::Profile& p,
                                                          const std::string& name) {
    std::map<std::string, std::uint64_t> by_caller;
    for (const auto& [edge, e] : p.calls())
        if (cg::strip_recursion_suffix(edge.second.name) == name)
            by_caller[cg::strip_recursion_suffix(edge.first.name)] += e.count;
    return by_caller;
}

std::uint64_t sum(const std::map<std::string, std::uint64_t>& m) {
    std::uint64_t n = 0;
    for (const auto& [k, v] : m) n += v;
    return n;
}

/// The calls between functions of ELF objects (absolute paths; neither
/// side address-named), by (caller object, caller, callee object, callee).
std::map<std::vector<std::string>, std::uint64_t> elf_edges(const cg::Profile& p) {
    std::map<std::vector<std::string>, std::uint64_t> out;
    for (const auto& [edge, e] : p.calls()) {
        const auto& [from, to] = edge;
        if (from.object.rfind('/', 0) != 0 || to.object.rfind('/', 0) != 0 ||
            address_named(from.name) || address_named(to.name))
            continue;
        out[{from.object, from.name, to.object, to.name}] += e.count;
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(callgrind_counts_calls_of_jit_code_whose_prologue_returns_below_its_frame,
                     *boost::unit_test::precondition(stock_valgrind_available)) {
    TempDir dir;
    const std::vector<std::string> prog{testjit(), "prologue", "15", "10"};
    const Result native = run(prog);
    BOOST_TEST_REQUIRE(native.status == 0, native);
    static const std::regex counted(R"(calls (\d+))");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(native.out, m, counted), native.out);
    const std::uint64_t expected = std::stoull(m[1]);  // 10 x fib(15): 19730

    const std::string out = dir.file("callgrind.patched");
    const Result r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == native.out);
    const cg::Profile p = cg::Profile::parse_file(out);
    const auto jit = calls_into_by_caller(p, "jit_prologue_fib");
    BOOST_TEST(sum(jit) == expected);
    BOOST_TEST(jit.count("frame_prologue") == 0u, "frame_prologue counted as a caller");

    const std::string stock_out = dir.file("callgrind.stock");
    const Result s = run({stock_valgrind(), "--tool=callgrind", "--callgrind-out-file=" + stock_out,
                          "--", prog[0], prog[1], prog[2], prog[3]});
    BOOST_TEST_REQUIRE(s.status == 0, s);
    BOOST_TEST(s.out == native.out);
    const cg::Profile stock = cg::Profile::parse_file(stock_out);
    // ELF code keeps stock Callgrind's counts, the frame_prologue's
    // returns into elf_prologue_fib counted as calls included.
    const auto elf = calls_into_by_caller(p, "elf_prologue_fib");
    BOOST_TEST(sum(elf) == 2 * expected);
    BOOST_TEST(elf == calls_into_by_caller(stock, "elf_prologue_fib"));
    const auto patched_edges = elf_edges(p), stock_edges = elf_edges(stock);
    BOOST_TEST(patched_edges.size() > 100u);
    BOOST_TEST(patched_edges.size() == stock_edges.size());
    for (const auto& [key, n] : stock_edges) {
        const auto it = patched_edges.find(key);
        BOOST_TEST((it != patched_edges.end() && it->second == n),
                   key[1] << " -> " << key[3] << ": stock " << n << ", patched "
                          << (it == patched_edges.end() ? 0 : it->second));
    }
}

/// Runs the stripped strippedmap `prog` in mode `how` under Callgrind with
/// --jit-perf-map=yes, -v and `extra`, writing `out`; removes its map.
Result callgrind_stripped(const std::string& prog, const std::string& how, const std::string& out,
                          const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"--tool=callgrind", "--jit-perf-map=yes", "-v",
                                  "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_valgrind(args, {prog, how});
    remove_tmp_files_of(r.pid);
    return r;
}

BOOST_AUTO_TEST_CASE(a_perf_map_older_than_the_process_is_read_only_once_written_again) {
    // strippedmap stale: /tmp/perf-<pid>.map is there, modified an hour
    // ago, naming the functions STALE:... (as a map left by an earlier
    // process with this pid); the program rewrites it with SM:... after
    // the functions ran.  No STALE name is ever used.
    TempDir dir;
    const std::string prog = stripped_map_program(dir);
    const std::string out = dir.file("callgrind.stale");
    const Result r = callgrind_stripped(prog, "stale", out);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "was last written before this process started"), r.err);
    const cg::Profile p = cg::Profile::parse_file(out);
    for (const auto& [key, f] : p.functions())
        BOOST_TEST(key.name.find("STALE:") == std::string::npos, key.name);
    BOOST_TEST(sum(calls_into_by_caller(p, "SM:sm_leaf")) == 10u);
    BOOST_TEST(self_ir(p, "SM:sm_leaf") == 2u * 10);
}

BOOST_AUTO_TEST_CASE(callgrind_binds_late_names_of_a_stripped_executables_own_code,
                     *boost::unit_test::precondition(stock_valgrind_available)) {
    // The perf map is written after the code ran: at the dump, the
    // executable's address-named functions take the map's names, with
    // their exact calls and costs.  Without a map the profile is stock
    // Callgrind's.
    TempDir dir;
    const std::string prog = stripped_map_program(dir);
    const std::string out = dir.file("callgrind.late");
    const Result r = callgrind_stripped(prog, "late", out);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(out);
    // sm_caller calls sm_leaf (a load and a ret) and sm_loop 10 times each.
    const auto leaf = calls_into_by_caller(p, "SM:sm_leaf");
    BOOST_TEST(sum(leaf) == 10u);
    BOOST_TEST(leaf.count("SM:sm_caller") == 1u);
    BOOST_TEST(self_ir(p, "SM:sm_leaf") == 2u * 10);
    const auto loop = calls_into_by_caller(p, "SM:sm_loop");
    BOOST_TEST(sum(loop) == 10u);
    BOOST_TEST(loop.count("SM:sm_caller") == 1u);
    BOOST_TEST(self_ir(p, "SM:sm_loop") >= 3u * 1000 * 10);
    BOOST_TEST(sum(calls_into_by_caller(p, "SM:sm_caller")) == 1u);
    BOOST_TEST(sum(calls_into_by_caller(p, "SM:sm_alloc")) == 1u);
    static const std::regex bound(R"((\d+) contexts of address-named code bound)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, bound), r.err);
    BOOST_TEST(std::stoul(m[1]) > 0u);

    // Every call the named functions take part in was there, address-named,
    // in stock Callgrind's profile of the same run; every other edge is
    // stock's.
    const std::string stock_out = dir.file("callgrind.stock");
    const Result s = run({stock_valgrind(), "--tool=callgrind", "--callgrind-out-file=" + stock_out,
                          "--", prog, "late"});
    remove_tmp_files_of(s.pid);
    BOOST_TEST_REQUIRE(s.status == 0, s);
    const cg::Profile stock = cg::Profile::parse_file(stock_out);
    std::uint64_t stock_calls = 0, patched_calls = 0;
    for (const auto& [edge, e] : stock.calls()) stock_calls += e.count;
    for (const auto& [edge, e] : p.calls()) patched_calls += e.count;
    BOOST_TEST(patched_calls == stock_calls);
    const auto patched_edges = elf_edges(p), stock_edges = elf_edges(stock);
    for (const auto& [key, n] : stock_edges) {
        const auto it = patched_edges.find(key);
        BOOST_TEST((it != patched_edges.end() && it->second == n),
                   key[1] << " -> " << key[3] << ": stock " << n << ", patched "
                          << (it == patched_edges.end() ? 0 : it->second));
    }

    // A dump before the map is written (at fopen) caches that the code has
    // no name; sm_caller then runs again in its old translations while
    // main's next blocks are new (a lookup that misses there reads the
    // map): the final part names the second run's 10 calls.
    const std::string parts = dir.file("callgrind.parts");
    const Result t = callgrind_stripped(prog, "twice", parts, {"--dump-before=fopen*"});
    BOOST_TEST_REQUIRE(t.status == 0, t);
    BOOST_TEST_REQUIRE(std::filesystem::exists(parts + ".1"));
    const cg::Profile last = cg::Profile::parse_file(parts);
    BOOST_TEST(sum(calls_into_by_caller(last, "SM:sm_leaf")) == 10u);
    BOOST_TEST(self_ir(last, "SM:sm_leaf") == 2u * 10);
    BOOST_TEST(sum(calls_into_by_caller(last, "SM:sm_loop")) == 10u);

    // Without the map, the functions keep their address names.
    const std::string none_out = dir.file("callgrind.none");
    const Result n =
        run_valgrind({"--tool=callgrind", "--jit-perf-map=no", "--callgrind-out-file=" + none_out},
                     {prog, "late"});
    remove_tmp_files_of(n.pid);
    BOOST_TEST_REQUIRE(n.status == 0, n);
    const cg::Profile none = cg::Profile::parse_file(none_out);
    BOOST_TEST(sum(calls_into_by_caller(none, "SM:sm_leaf")) == 0u);
    // (Valgrind's own preloads differ by install path and build.)
    const auto client_edges = [](const cg::Profile& profile) {
        std::map<std::vector<std::string>, std::uint64_t> out;
        for (const auto& [edge, e] : profile.calls()) {
            const auto& [from, to] = edge;
            if (from.object.find("/valgrind/") != std::string::npos ||
                to.object.find("/valgrind/") != std::string::npos || from.object == "???" ||
                to.object == "???")
                continue;
            out[{from.object, from.name, to.object, to.name}] += e.count;
        }
        return out;
    };
    const auto none_all = client_edges(none), stock_all = client_edges(stock);
    // (The comparison covers the executable's address-named calls.)
    std::size_t address_named_edges = 0;
    for (const auto& [key, calls] : stock_all)
        address_named_edges += key[2] == prog && address_named(key[3]);
    BOOST_TEST(address_named_edges >= 4u);
    BOOST_TEST(none_all.size() == stock_all.size());
    for (const auto& [key, calls] : stock_all) {
        const auto it = none_all.find(key);
        BOOST_TEST((it != none_all.end() && it->second == calls),
                   key[0] << ":" << key[1] << " -> " << key[2] << ":" << key[3] << ": stock "
                          << calls << ", patched " << (it == none_all.end() ? 0 : it->second));
    }
}
