// integration_core_profiles.cpp - integration_core's cases of Callgrind's
// and Cachegrind's profiles of testjit: objects, files, lines and call
// edges of registered code, long names, code replaced or registered over
// running code, code unregistered while not executable, and calls of JIT
// code whose prologue returns below its frame; integration_core.cpp says
// what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_core.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <map>
#include <regex>
#include <string>
#include <vector>

using namespace vgjit::test;
using namespace core_test;
using cg::line_cost;

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

// A JIT function whose first act is a call of a routine that builds its
// frame and returns below the frame it was called with (V8's baseline
// code and its BaselineOutOfLinePrologue): Callgrind counts the calls the
// function had, not one more "call" from the routine per call.  The same
// code as an ELF function keeps stock Callgrind's counts: every call
// edge between ELF functions equals stock Valgrind's.
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
