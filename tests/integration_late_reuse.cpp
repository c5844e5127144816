// integration_late_reuse.cpp - integration_late's cases of code reuse:
// an address that hosted two functions named late (by jitdump load
// times, or by perf maps without them), a move onto reused code, and
// names read after their code was unmapped; integration_late.cpp says
// what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_late.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;
using namespace late_test;

// ---------------------------------------------------------------------------
// Code reuse: `jitdump_producer reuse` puts reuse_a at an address X, calls
// it 30 x (n = 40), then emits reuse_b over it at X and calls it 50 x
// (n = 25).  Named late, each execution must go to the function that was
// at X when it ran, exactly as when the names are written early.
// ---------------------------------------------------------------------------

namespace {

/// reuse_a(40) = 3 * 40 + 3 instructions, 30 times; reuse_b(25), 50 times.
constexpr std::uint64_t kReuseAIr = 30u * (3u * 40u + 3u);
constexpr std::uint64_t kReuseBIr = 50u * (3u * 25u + 3u);

/// What a run of `jitdump_producer reuse WHEN FILE` gives the jitted
/// code: per name (reuse_*) self Ir and calls into it, and what stayed
/// address-named inside [X, X+64).
struct ReuseRun {
    Result vg;
    std::map<std::string, std::uint64_t> self_ir;
    std::map<std::string, std::uint64_t> calls;
    std::uint64_t address_named_ir = 0;
    std::uint64_t address_named_calls = 0;
    /// Per name (reuse_*): Ir per (file, line).
    std::map<std::string, std::map<std::pair<std::string, std::uint64_t>, std::uint64_t>> lines;
};

/// X, from the producer's "fn reuse_a 0xADDR SIZE" line.
std::uint64_t reuse_address(const std::string& err) {
    const auto ranges = jitted_ranges(err);
    BOOST_TEST_REQUIRE(!ranges.empty(), err);
    return ranges.front().first;
}

ReuseRun run_reuse(const std::string& tool, const std::string& when, const std::string& file) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 180;
    const std::string out = dir.file(tool + ".out");
    std::vector<std::string> args{"--tool=" + tool, "--" + tool + "-out-file=" + out, "-v"};
    if (file.rfind("map", 0) == 0) args.push_back("--jit-perf-map=yes");
    ReuseRun r;
    r.vg = run_valgrind(args, {producer(), "reuse", when, file}, opt);
    remove_tmp_files_of(r.vg.pid);
    BOOST_TEST_REQUIRE(r.vg.status == 0, r.vg);
    BOOST_TEST(contains(r.vg.out, "reuse 24630 16350"), r.vg.out);
    const std::uint64_t x = reuse_address(r.vg.err);
    const auto in_code = [&](const std::string& name) {
        const auto a = address_of(name);
        return a && *a >= x && *a < x + 64;
    };
    const cg::Profile p = cg::Profile::parse_file(out);
    for (const auto& [key, f] : p.functions()) {
        const std::string name = cg::strip_recursion_suffix(key.name);
        if (name.rfind("reuse_", 0) == 0) {
            r.self_ir[name] += f.self.at(0);
            for (const auto& [pos, c] : f.lines) r.lines[name][pos] += c.at(0);
        }
        if (in_code(name)) r.address_named_ir += f.self.at(0);
    }
    for (const auto& [key, e] : p.calls()) {
        const std::string name = cg::strip_recursion_suffix(key.second.name);
        if (name.rfind("reuse_", 0) == 0) r.calls[name] += e.count;
        if (in_code(name)) r.address_named_calls += e.count;
    }
    return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(
    address_that_hosted_two_functions_both_named_late_gets_each_its_own_executions) {
    // A jitdump whose CODE_LOAD timestamps (CLOCK_MONOTONIC, taken when
    // each code was emitted) are both written at exit.
    const ReuseRun early = run_reuse("callgrind", "early", "dump");
    const ReuseRun late = run_reuse("callgrind", "late", "dump");
    for (const ReuseRun* r : {&early, &late}) {
        BOOST_TEST_CONTEXT((r == &early ? "early" : "late")) {
            BOOST_TEST(r->self_ir.size() == 2u);
            BOOST_TEST(r->self_ir.count("reuse_a") == 1u);
            BOOST_TEST(r->self_ir.count("reuse_b") == 1u);
            if (r->self_ir.count("reuse_a")) BOOST_TEST(r->self_ir.at("reuse_a") == kReuseAIr);
            if (r->self_ir.count("reuse_b")) BOOST_TEST(r->self_ir.at("reuse_b") == kReuseBIr);
            if (r->calls.count("reuse_a")) BOOST_TEST(r->calls.at("reuse_a") == 30u);
            if (r->calls.count("reuse_b")) BOOST_TEST(r->calls.at("reuse_b") == 50u);
            BOOST_TEST(r->calls.size() == 2u);
            BOOST_TEST(r->address_named_ir == 0u);
            BOOST_TEST(r->address_named_calls == 0u);
        }
    }
    BOOST_TEST((late.self_ir == early.self_ir));
    BOOST_TEST((late.calls == early.calls));
    // (The block of the final `ret`, the same bytes in both, is
    // translated once and ran for both: left without a name of its own,
    // its costs stay in the context of the function that ran it.)
    BOOST_TEST(contains(late.vg.err, "pieces named by load time"), late.vg.err);
    BOOST_TEST(!contains(late.vg.err, " 0 pieces named by load time"), late.vg.err);
}

BOOST_AUTO_TEST_CASE(
    address_that_hosted_two_functions_named_before_exit_gets_each_its_own_executions) {
    // Both records written after both functions ran, and read while the
    // program runs (the core registers records read together in one
    // pass): each function keeps its load time, and each execution goes
    // to the function that was at the address when it ran.  The block of
    // the final `ret`, the same bytes in both and translated once, ran
    // for both: its instruction of each of reuse_b's 50 calls stays with
    // reuse_a, in whose context it was first named.
    const ReuseRun early = run_reuse("callgrind", "early", "dump");
    const ReuseRun after = run_reuse("callgrind", "after", "dump");
    BOOST_TEST_REQUIRE(after.self_ir.count("reuse_a") == 1u, after.vg.err);
    BOOST_TEST_REQUIRE(after.self_ir.count("reuse_b") == 1u, after.vg.err);
    BOOST_TEST(after.self_ir.at("reuse_a") == kReuseAIr + 50u);
    BOOST_TEST(after.self_ir.at("reuse_b") == kReuseBIr - 50u);
    BOOST_TEST((after.calls == early.calls));
    BOOST_TEST_REQUIRE(after.calls.count("reuse_a") == 1u);
    BOOST_TEST_REQUIRE(after.calls.count("reuse_b") == 1u);
    BOOST_TEST(after.calls.at("reuse_a") == 30u);
    BOOST_TEST(after.calls.at("reuse_b") == 50u);
    BOOST_TEST(after.address_named_ir == 0u);
    BOOST_TEST(after.address_named_calls == 0u);
    BOOST_TEST(contains(after.vg.err, "pieces named by load time"), after.vg.err);
    BOOST_TEST(!contains(after.vg.err, " 0 pieces named by load time"), after.vg.err);
}

BOOST_AUTO_TEST_CASE(reused_address_named_late_gets_the_lines_of_the_function_that_ran) {
    // As above, each function with a line table (CODE_DEBUG_INFO): reuse_a
    // on lines 100-102 of reuse_a.src, reuse_b on 200-202 of reuse_b.src,
    // the same offsets in the same bytes but for the constant.  Each
    // execution's lines come from the function that ran it (the epoch it
    // was valid in), not from the one at the address now (reuse_b).
    using Lines = std::map<std::pair<std::string, std::uint64_t>, std::uint64_t>;
    const Lines a = {{{"/virtual/reuse_a.src", 100}, 30u * 2u},
                     {{"/virtual/reuse_a.src", 101}, 30u * 3u * 40u},
                     {{"/virtual/reuse_a.src", 102}, 30u}};
    const Lines b = {{{"/virtual/reuse_b.src", 200}, 50u * 2u},
                     {{"/virtual/reuse_b.src", 201}, 50u * 3u * 25u},
                     {{"/virtual/reuse_b.src", 202}, 50u}};
    for (const std::string tool : {"callgrind", "cachegrind"}) {
        for (const std::string when : {"early", "late"}) {
            BOOST_TEST_CONTEXT(tool << " " << when) {
                const ReuseRun r = run_reuse(tool, when, "dump-lines");
                BOOST_TEST_REQUIRE(r.lines.count("reuse_a") == 1u);
                BOOST_TEST_REQUIRE(r.lines.count("reuse_b") == 1u);
                if (tool == "cachegrind" && when == "late") {
                    // The final `ret`, translated once and run for both,
                    // goes to "???" (see the test above): the rest is
                    // each function's own.
                    Lines aa = a, bb = b;
                    aa.erase({"/virtual/reuse_a.src", 102});
                    bb.erase({"/virtual/reuse_b.src", 202});
                    BOOST_TEST((r.lines.at("reuse_a") == aa));
                    BOOST_TEST((r.lines.at("reuse_b") == bb));
                } else {
                    BOOST_TEST((r.lines.at("reuse_a") == a));
                    BOOST_TEST((r.lines.at("reuse_b") == b));
                }
                for (const auto& [name, lines] : r.lines)
                    for (const auto& [pos, ir] : lines)
                        BOOST_TEST_MESSAGE(name << " " << pos.first << ":" << pos.second << " "
                                                << ir);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(reused_address_without_load_times_stays_unnamed_unless_the_name_is_the_same) {
    // A perf map has no timestamps, and a jitdump whose header flags
    // architecture (TSC) timestamps, or whose timestamps are
    // CLOCK_REALTIME, has none on Valgrind's clock: the files do not tell
    // which of reuse_a and reuse_b ran, so neither name is given; all 80
    // calls stay with the address.
    const ReuseRun early = run_reuse("callgrind", "early", "map");
    BOOST_TEST(early.self_ir.count("reuse_a") == 1u);
    if (early.self_ir.count("reuse_a")) BOOST_TEST(early.self_ir.at("reuse_a") == kReuseAIr);
    if (early.self_ir.count("reuse_b")) BOOST_TEST(early.self_ir.at("reuse_b") == kReuseBIr);
    for (const std::string file : {"map", "dump-tsc", "dump-realtime"}) {
        BOOST_TEST_CONTEXT(file) {
            const ReuseRun late = run_reuse("callgrind", "late", file);
            BOOST_TEST(late.self_ir.empty());
            BOOST_TEST(late.calls.empty());
            BOOST_TEST(late.address_named_ir == kReuseAIr + kReuseBIr);
            BOOST_TEST(late.address_named_calls == 80u);
            BOOST_TEST(contains(late.vg.err, " 0 pieces named by load time"), late.vg.err);
        }
    }
    // Both lines of the map name the same function: that name.
    const ReuseRun same = run_reuse("callgrind", "late", "map-same");
    BOOST_TEST(same.self_ir.size() == 1u);
    if (same.self_ir.count("reuse_same"))
        BOOST_TEST(same.self_ir.at("reuse_same") == kReuseAIr + kReuseBIr);
    if (same.calls.count("reuse_same")) BOOST_TEST(same.calls.at("reuse_same") == 80u);
    BOOST_TEST(same.address_named_ir == 0u);
}

BOOST_AUTO_TEST_CASE(cachegrind_gives_each_function_at_a_reused_address_only_its_own_executions) {
    // Cachegrind has no call contexts: a translation that ran for both
    // functions (the block of the final `ret`, the same bytes at the same
    // place in both, translated once) cannot be split and goes to "???"
    // (one instruction per call, 80 calls).  Everything else goes to the
    // function that was at the address when it ran.
    const ReuseRun early = run_reuse("cachegrind", "early", "dump");
    const ReuseRun late = run_reuse("cachegrind", "late", "dump");
    BOOST_TEST_REQUIRE(early.self_ir.count("reuse_a") == 1u);
    BOOST_TEST_REQUIRE(early.self_ir.count("reuse_b") == 1u);
    BOOST_TEST(early.self_ir.at("reuse_a") == kReuseAIr);
    BOOST_TEST(early.self_ir.at("reuse_b") == kReuseBIr);
    BOOST_TEST_REQUIRE(late.self_ir.count("reuse_a") == 1u);
    BOOST_TEST_REQUIRE(late.self_ir.count("reuse_b") == 1u);
    BOOST_TEST(late.self_ir.at("reuse_a") == kReuseAIr - 30u);
    BOOST_TEST(late.self_ir.at("reuse_b") == kReuseBIr - 50u);
    BOOST_TEST(contains(late.vg.err, "7510 instructions attributed through names"), late.vg.err);
    // Without load times, neither name; with the same name, all of it.
    const ReuseRun map = run_reuse("cachegrind", "late", "map");
    BOOST_TEST(map.self_ir.empty());
    BOOST_TEST(contains(map.vg.err, " 0 instructions attributed through names"), map.vg.err);
    const ReuseRun same = run_reuse("cachegrind", "late", "map-same");
    BOOST_TEST(same.self_ir.size() == 1u);
    if (same.self_ir.count("reuse_same"))
        BOOST_TEST(same.self_ir.at("reuse_same") == kReuseAIr + kReuseBIr);
}

// Code reuse across a move: `jitdump_producer reuse-move` runs reuse_a at X
// (30 calls, n = 40), reuse_b at Y (50 calls, n = 25), then moves
// reuse_a's code over reuse_b at Y (a CODE_MOVE) and runs it there (20
// calls, n = 10); every record is written at exit.  The moved function's
// load time at Y is the move's timestamp, so each execution at Y goes to
// the function that was there when it ran.
BOOST_AUTO_TEST_CASE(code_reuse_stays_exact_across_a_code_move) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 180;
    const std::string out = dir.file("callgrind.out");
    const Result vg = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out, "-v"},
                                   {producer(), "reuse-move"}, opt);
    BOOST_TEST_REQUIRE(vg.status == 0, vg);
    BOOST_TEST(contains(vg.out, "reuse-move 24630 16350 1120"), vg.out);
    const auto ranges = jitted_ranges(vg.err);
    BOOST_TEST_REQUIRE(ranges.size() == 3u, vg.err);
    const auto in_code = [&](const std::string& name) {
        const auto a = address_of(name);
        if (!a) return false;
        for (const auto& [lo, hi] : ranges)
            if (*a >= lo && *a < hi) return true;
        return false;
    };
    std::map<std::string, std::uint64_t> self_ir, calls;
    std::uint64_t address_named_ir = 0;
    const cg::Profile p = cg::Profile::parse_file(out);
    for (const auto& [key, f] : p.functions()) {
        const std::string name = cg::strip_recursion_suffix(key.name);
        if (name.rfind("reuse_", 0) == 0) self_ir[name] += f.self.at(0);
        if (in_code(name)) address_named_ir += f.self.at(0);
    }
    for (const auto& [key, e] : p.calls()) {
        const std::string name = cg::strip_recursion_suffix(key.second.name);
        if (name.rfind("reuse_", 0) == 0) calls[name] += e.count;
    }
    // reuse_a: 30 x (3 x 40 + 3) at X and 20 x (3 x 10 + 3) at Y.
    const std::map<std::string, std::uint64_t> want_ir = {{"reuse_a", 30u * 123u + 20u * 33u},
                                                          {"reuse_b", 50u * 78u}};
    const std::map<std::string, std::uint64_t> want_calls = {{"reuse_a", 50u}, {"reuse_b", 50u}};
    BOOST_TEST((self_ir == want_ir), vg.err);
    BOOST_TEST((calls == want_calls));
    BOOST_TEST(address_named_ir == 0u);
    BOOST_TEST(contains(vg.err, "1 moved, 0 refused"), vg.err);
}

// Names that arrive after their code was unmapped (V8 flushes the last
// block of its jitdump while it tears its isolate down, after its code
// space went): `jitdump_producer unmapped WHEN FILE` runs gone_fn 40 x
// (n = 30), unmaps it and never_fn (which never ran), and only then writes
// their records.  gone_fn's record names the executions that happened
// there, with its lines; never_fn's waits for its code if it is read
// while the program runs, and is refused if read at exit (no code ran
// there).
BOOST_AUTO_TEST_CASE(name_read_after_its_code_was_unmapped_names_the_code_that_ran_there) {
    for (const std::string when : {"run", "exit"}) {
        for (const std::string file : {"dump", "map"}) {
            BOOST_TEST_CONTEXT(when << " " << file) {
                TempDir dir;
                RunOptions opt;
                opt.cwd = dir.path();
                opt.timeout_seconds = 180;
                const std::string out = dir.file("callgrind.out");
                std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out,
                                              "-v"};
                if (file == "map") args.push_back("--jit-perf-map=yes");
                const Result vg = run_valgrind(args, {producer(), "unmapped", when, file}, opt);
                remove_tmp_files_of(vg.pid);
                BOOST_TEST_REQUIRE(vg.status == 0, vg);
                BOOST_TEST(contains(vg.out, "unmapped 18760"), vg.out);
                const auto ranges = jitted_ranges(vg.err);
                BOOST_TEST_REQUIRE(ranges.size() == 2u, vg.err);
                const auto [lo, hi] = ranges.front();  // gone_fn
                std::uint64_t gone_ir = 0, gone_calls = 0, address_named_ir = 0;
                std::map<std::uint64_t, std::uint64_t> line_ir;
                bool never = false;
                const cg::Profile p = cg::Profile::parse_file(out);
                for (const auto& [key, f] : p.functions()) {
                    const std::string name = cg::strip_recursion_suffix(key.name);
                    if (name == "never_fn") never = true;
                    if (const auto a = address_of(name); a && *a >= lo && *a < hi)
                        address_named_ir += f.self.at(0);
                    if (name != "gone_fn") continue;
                    gone_ir += f.self.at(0);
                    for (const auto& [pos, c] : f.lines)
                        if (pos.first == "/virtual/unmapped.src") line_ir[pos.second] += c.at(0);
                }
                for (const auto& [key, e] : p.calls())
                    if (cg::strip_recursion_suffix(key.second.name) == "gone_fn")
                        gone_calls += e.count;
                BOOST_TEST(gone_ir == 40u * (3u * 30u + 3u));
                BOOST_TEST(gone_calls == 40u);
                BOOST_TEST(address_named_ir == 0u);
                BOOST_TEST(!never);
                if (file == "dump") {
                    // mov, mov (line 40); the loop, 3 x 30 (41); ret (42).
                    const std::map<std::uint64_t, std::uint64_t> want = {
                        {40, 80}, {41, 3600}, {42, 40}};
                    BOOST_TEST((line_ir == want), vg.err);
                }
                BOOST_TEST(contains(vg.err,
                                    "JIT: 1 names for code unmapped before its record "
                                    "was read"),
                           vg.err);
                if (when == "exit")
                    BOOST_TEST(contains(vg.err, "1 range is not executable client memory"), vg.err);
                else
                    BOOST_TEST(contains(vg.err, "JIT: never became code: never_fn at 0x"), vg.err);
                BOOST_TEST(contains(vg.err, "1 late names for unmapped code"), vg.err);
            }
        }
    }
}
