// integration_late.cpp - names that JITs write after their code ran still
// name the profile.  tests/jitdump_producer's "names" mode runs one call
// graph (names_top -> names_middle -> names_leaf, names_top -> the
// recursive names_fib) and announces it in a jitdump or a perf map, either
// before the code runs ("early") or after it ran ("late": jitdump records
// appended at the end, a perf map created at the end as HotSpot's
// -XX:+DumpPerfMapAtExit does).  The core reads the files to their end
// when the client exits and Callgrind binds the names when it dumps, so
// the late profile must equal the early one: every jitted function's self
// cost and per-line costs, and every call edge's count and inclusive cost.

#define BOOST_TEST_MODULE integration_late
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;

namespace {

std::string producer() {
    return env_or("VGJIT_JITDUMP_PRODUCER", tests_builddir() + "/jitdump_producer");
}

const std::set<std::string> kJitted = {"names_leaf", "names_middle", "names_top", "names_fib"};

/// A profile reduced to what must not depend on when names arrived:
/// functions keyed by (object, file, name) with the producer file's
/// per-run path replaced by "JIT".
struct Reduced {
    std::map<cg::FunctionKey, cg::Costs> self;
    std::map<cg::FunctionKey, std::map<std::pair<std::string, std::uint64_t>, cg::Costs>> lines;
    std::map<std::pair<cg::FunctionKey, cg::FunctionKey>, std::pair<std::uint64_t, cg::Costs>>
        calls;
    /// Ir of address-named functions ("0x...") inside the jitted code.
    std::uint64_t address_named_ir = 0;
};

/// [start, end) of the jitted functions, from the producer's stderr
/// ("fn NAME 0xADDR SIZE").
std::vector<std::pair<std::uint64_t, std::uint64_t>> jitted_ranges(const std::string& err) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    std::istringstream in(err);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream l(line);
        std::string tag, name, addr;
        std::uint64_t size = 0;
        if (l >> tag >> name >> addr >> size && tag == "fn" && addr.rfind("0x", 0) == 0) {
            const std::uint64_t a = std::stoull(addr, nullptr, 16);
            out.emplace_back(a, a + size);
        }
    }
    return out;
}

cg::FunctionKey normalize(cg::FunctionKey k, const std::string& producer_file) {
    if (k.object == producer_file) k.object = "JIT";
    return k;
}

bool is_jitted(const cg::FunctionKey& k) {
    return k.object == "JIT" && kJitted.count(cg::strip_recursion_suffix(k.name)) > 0;
}

Reduced reduce(const cg::Profile& p, const std::string& producer_file,
               const std::vector<std::pair<std::uint64_t, std::uint64_t>>& jitted) {
    Reduced r;
    for (const auto& [key, f] : p.functions()) {
        const cg::FunctionKey k = normalize(key, producer_file);
        if (address_named(k.name)) {
            const std::uint64_t a = std::stoull(k.name, nullptr, 16);
            for (const auto& [lo, hi] : jitted)
                if (lo <= a && a < hi) r.address_named_ir += f.self.at(0);
        }
        if (!is_jitted(k)) continue;
        r.self[k] = f.self;
        r.lines[k] = f.lines;
    }
    for (const auto& [key, e] : p.calls()) {
        const cg::FunctionKey from = normalize(key.first, producer_file);
        const cg::FunctionKey to = normalize(key.second, producer_file);
        if (!is_jitted(from) && !is_jitted(to)) continue;
        r.calls[{from, to}] = {e.count, e.inclusive};
    }
    return r;
}

std::string show(const cg::FunctionKey& k) { return k.object + ":" + k.file + ":" + k.name; }

/// One run of `jitdump_producer names WHEN FILE [TAIL]` under Callgrind.
struct NamesRun {
    Result vg;
    Reduced profile;
};

NamesRun run_names(const std::string& when, const std::string& file,
                   std::vector<std::string> extra = {}, const std::string& tail = "") {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 180;
    const std::string out = dir.file("callgrind.out");
    std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out};
    if (file == "map") args.push_back("--jit-perf-map=yes");
    args.insert(args.end(), extra.begin(), extra.end());
    NamesRun r;
    std::vector<std::string> prog{producer(), "names", when, file};
    if (!tail.empty()) prog.push_back(tail);
    r.vg = run_valgrind(args, prog, opt);
    BOOST_TEST_REQUIRE(r.vg.status == 0, r.vg);
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string pid = p.header().at("pid");
    const std::string producer_file =
        file == "map" ? "/tmp/perf-" + pid + ".map" : dir.path() + "/jit-" + pid + ".dump";
    if (file == "map") ::unlink(producer_file.c_str());
    const auto jitted = jitted_ranges(r.vg.err);
    BOOST_TEST(jitted.size() == kJitted.size(), r.vg.err);
    r.profile = reduce(p, producer_file, jitted);
    return r;
}

/// Every jitted function, line and call edge of `late` equals `early`.
void require_same_profile(const Reduced& early, const Reduced& late, bool with_lines) {
    BOOST_TEST(early.self.size() >= kJitted.size(), "early run names every jitted function");
    for (const auto& [k, c] : early.self) {
        const auto it = late.self.find(k);
        BOOST_TEST((it != late.self.end()), "late profile lacks " << show(k));
        if (it == late.self.end()) continue;
        BOOST_TEST((it->second == c),
                   show(k) << " self Ir early " << c.at(0) << " late " << it->second.at(0));
        if (with_lines)
            BOOST_TEST((late.lines.at(k) == early.lines.at(k)), show(k) << " per-line costs");
    }
    for (const auto& [k, c] : late.self)
        BOOST_TEST(early.self.count(k) == 1u, "late profile has extra " << show(k));
    BOOST_TEST(early.calls.size() == late.calls.size());
    for (const auto& [edge, c] : early.calls) {
        const auto it = late.calls.find(edge);
        BOOST_TEST((it != late.calls.end()),
                   "late profile lacks call " << show(edge.first) << " -> " << show(edge.second));
        if (it == late.calls.end()) continue;
        BOOST_TEST(it->second.first == c.first, show(edge.first)
                                                    << " -> " << show(edge.second) << " calls");
        BOOST_TEST((it->second.second == c.second),
                   show(edge.first) << " -> " << show(edge.second) << " inclusive cost");
    }
    // Nothing of the jitted code is left under an address name.
    BOOST_TEST(early.address_named_ir == 0u);
    BOOST_TEST(late.address_named_ir == 0u);
}

}  // namespace

BOOST_AUTO_TEST_CASE(jitdump_written_after_the_code_ran_names_the_profile) {
    const NamesRun early = run_names("early", "dump");
    const NamesRun late = run_names("late", "dump", {"-v"});
    require_same_profile(early.profile, late.profile, true);
    // The program's own call counts: names_top once, names_middle 20 x,
    // names_leaf 200 x; names_fib(10) makes 177 calls, 1 from names_top.
    const cg::FunctionKey top{"JIT", "/virtual/names.src", "names_top"};
    const cg::FunctionKey mid{"JIT", "/virtual/names.src", "names_middle"};
    const cg::FunctionKey leaf{"JIT", "/virtual/names.src", "names_leaf"};
    const cg::FunctionKey fib{"JIT", "/virtual/names.src", "names_fib"};
    BOOST_TEST(late.profile.calls.count({top, mid}) == 1u);
    if (late.profile.calls.count({top, mid}))
        BOOST_TEST(late.profile.calls.at({top, mid}).first == 20u);
    if (late.profile.calls.count({mid, leaf}))
        BOOST_TEST(late.profile.calls.at({mid, leaf}).first == 200u);
    BOOST_TEST(late.profile.calls.count({mid, leaf}) == 1u);
    if (late.profile.calls.count({top, fib}))
        BOOST_TEST(late.profile.calls.at({top, fib}).first == 1u);
    BOOST_TEST(late.profile.calls.count({top, fib}) == 1u);
    // names_leaf(40) runs 3 * 40 + 3 instructions, 200 times.
    if (late.profile.self.count(leaf))
        BOOST_TEST(late.profile.self.at(leaf).at(0) == 200u * (3u * 40u + 3u));
    BOOST_TEST(contains(late.vg.err, "JIT: 4 functions named at exit"), late.vg.err);
}

// With --combine-dumps=yes an address-named function is not made the
// named one in place (an earlier part of the file may have given its
// number the address name): its contexts move to a function node of the
// name instead, with the same result.
BOOST_AUTO_TEST_CASE(late_names_bind_the_same_when_dumps_share_one_file) {
    const NamesRun early = run_names("early", "dump", {"--combine-dumps=yes"});
    const NamesRun late = run_names("late", "dump", {"--combine-dumps=yes"});
    require_same_profile(early.profile, late.profile, true);
}

BOOST_AUTO_TEST_CASE(jitdump_that_grows_by_a_gib_or_turns_corrupt_at_exit_keeps_the_profile) {
    // After the records that name its code, the producer appends at exit
    // 1 GiB of CODE_LOAD records for memory that is not code, or a
    // malformed record and garbage: the profile is the one the names give
    // (as if written early), and the rest is refused with a count.
    const NamesRun early = run_names("early", "dump");
    BOOST_TEST_CONTEXT("grow") {
        const NamesRun grown = run_names("late", "dump", {"-v"}, "grow");
        require_same_profile(early.profile, grown.profile, true);
        // Records read while the program ran wait for their code (which
        // never comes); those read at exit are refused.
        static const std::regex counts(
            R"(1032 records read: 4 loaded, 0 moved, (\d+) refused, 0 malformed, 4 without code, )"
            R"(0 late names for unmapped code, (\d+) waited for executable code)");
        std::smatch m;
        BOOST_TEST_REQUIRE(std::regex_search(grown.vg.err, m, counts), grown.vg.err);
        BOOST_TEST(std::stoul(m[1]) + std::stoul(m[2]) == 1024u, grown.vg.err);
    }
    BOOST_TEST_CONTEXT("corrupt") {
        const NamesRun corrupt = run_names("late", "dump", {"-v"}, "corrupt");
        require_same_profile(early.profile, corrupt.profile, true);
        BOOST_TEST(
            contains(corrupt.vg.err, "record total_size is smaller than the record's fixed part"),
            corrupt.vg.err);
        BOOST_TEST(contains(corrupt.vg.err, "4 loaded, 0 moved, 0 refused, 1 malformed"),
                   corrupt.vg.err);
    }
}

BOOST_AUTO_TEST_CASE(perf_map_created_at_exit_names_the_profile) {
    const NamesRun early = run_names("early", "map");
    const NamesRun late = run_names("late", "map");
    require_same_profile(early.profile, late.profile, false);
    const cg::FunctionKey leaf{"JIT", "???", "names_leaf"};
    BOOST_TEST(late.profile.self.count(leaf) == 1u);
    if (late.profile.self.count(leaf))
        BOOST_TEST(late.profile.self.at(leaf).at(0) == 200u * (3u * 40u + 3u));
}

namespace {

/// Cachegrind's output of `jitdump_producer names WHEN FILE`, reduced to
/// per-function and per-line Ir (functions keyed by file and name).
struct CachegrindRun {
    Result vg;
    std::map<std::pair<std::string, std::string>, cg::Costs> self;
    std::map<std::pair<std::string, std::string>,
             std::map<std::pair<std::string, std::uint64_t>, cg::Costs>>
        lines;
    std::uint64_t total = 0;
    std::uint64_t unnamed = 0;  ///< Ir of "???"
};

CachegrindRun run_cachegrind(const std::string& when, const std::string& file,
                             std::vector<std::string> extra = {}) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 180;
    const std::string out = dir.file("cachegrind.out");
    std::vector<std::string> args{"--tool=cachegrind", "--cachegrind-out-file=" + out};
    if (file == "map") args.push_back("--jit-perf-map=yes");
    args.insert(args.end(), extra.begin(), extra.end());
    CachegrindRun r;
    r.vg = run_valgrind(args, {producer(), "names", when, file}, opt);
    BOOST_TEST_REQUIRE(r.vg.status == 0, r.vg);
    const cg::Profile p = cg::Profile::parse_file(out);
    for (const auto& [key, f] : p.functions()) {
        r.total += f.self.at(0);
        if (key.name == "???") r.unnamed += f.self.at(0);
        if (kJitted.count(key.name) == 0) continue;
        r.self[{key.file, key.name}] = f.self;
        r.lines[{key.file, key.name}] = f.lines;
    }
    return r;
}

}  // namespace

/// Self Ir of jd_dispatch and jd_chained in a run of
/// `jitdump_producer chained WHEN` under Callgrind.
std::map<std::string, std::uint64_t> chained_self_ir(const std::string& when) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 180;
    const std::string out = dir.file("callgrind.out");
    const Result vg = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out},
                                   {producer(), "chained", when}, opt);
    BOOST_TEST_REQUIRE(vg.status == 0, vg);
    BOOST_TEST(contains(vg.out, "chained 127500"), vg.out);
    std::map<std::string, std::uint64_t> ir;
    const cg::Profile p = cg::Profile::parse_file(out);
    for (const auto& [key, f] : p.functions()) {
        const std::string name = cg::strip_recursion_suffix(key.name);
        if (name == "jd_dispatch" || name == "jd_chained") ir[name] += f.self.at(0);
    }
    return ir;
}

// Code entered by a jump, as JITs chain their blocks (QEMU's translation
// blocks): without a name when it ran, Callgrind charged it to the
// function that jumped there; named late, it gets its own costs, as when
// named early.
BOOST_AUTO_TEST_CASE(code_entered_by_jumps_gets_its_late_name_costs) {
    const auto early = chained_self_ir("early");
    const auto late = chained_self_ir("late");
    // jd_chained(50): 2 + 3 * 50 + 1 instructions, 100 times; jd_dispatch
    // (mov, jmp) 2 instructions, 100 times.
    BOOST_TEST(early.count("jd_chained") == 1u);
    BOOST_TEST(late.count("jd_chained") == 1u);
    if (early.count("jd_chained")) BOOST_TEST(early.at("jd_chained") == 100u * (3u * 50u + 3u));
    if (late.count("jd_chained")) BOOST_TEST(late.at("jd_chained") == 100u * (3u * 50u + 3u));
    if (early.count("jd_dispatch")) BOOST_TEST(early.at("jd_dispatch") == 200u);
    if (late.count("jd_dispatch")) BOOST_TEST(late.at("jd_dispatch") == 200u);
}

BOOST_AUTO_TEST_CASE(cachegrind_binds_names_that_arrive_late) {
    for (const std::string file : {"dump", "map"}) {
        BOOST_TEST_CONTEXT("announced in a " << file) {
            const CachegrindRun early = run_cachegrind("early", file);
            const CachegrindRun late = run_cachegrind("late", file, {"-v"});
            remove_tmp_files_of(early.vg.pid);
            remove_tmp_files_of(late.vg.pid);
            BOOST_TEST(early.self.size() >= kJitted.size(), "early run names every function");
            for (const auto& [k, c] : early.self) {
                BOOST_TEST(late.self.count(k) == 1u,
                           "late output lacks " << k.first << ":" << k.second);
                if (!late.self.count(k)) continue;
                BOOST_TEST((late.self.at(k) == c), k.first << ":" << k.second << " Ir early "
                                                           << c.at(0) << " late "
                                                           << late.self.at(k).at(0));
                BOOST_TEST((late.lines.at(k) == early.lines.at(k)), k.second << " per-line costs");
            }
            BOOST_TEST(late.self.size() == early.self.size());
            // The jitted code did not also go to "???" (the two runs exit
            // differently, so their other unnamed code differs a little).
            BOOST_TEST(late.unnamed <= early.unnamed);
            BOOST_TEST(contains(late.vg.err, "instructions attributed through names"), late.vg.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(leak_check_names_code_whose_name_arrived_at_exit) {
    for (const std::string when : {"early", "late"}) {
        BOOST_TEST_CONTEXT(when) {
            TempDir dir;
            RunOptions opt;
            opt.cwd = dir.path();
            opt.timeout_seconds = 120;
            const Result r = run_valgrind({"--leak-check=full", "--show-leak-kinds=all"},
                                          {producer(), "leak", when}, opt);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(contains(r.err, "24 bytes in 1 blocks are definitely lost"), r.err);
            // The frame of the jitted caller of malloc, with its line.
            BOOST_TEST(contains(r.err, ": names_alloc (names.src:701)"), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(name_read_at_exit_describes_a_stack_frozen_before_it_arrived) {
    // names_alloc leaks a block when called by leak_caller, whose mapping
    // is then unmapped: under --keep-debuginfo=yes the leak's stack is
    // from then on described in the epoch before the unmapping, which
    // names leak_caller.  names_alloc's name arrives only at exit; it
    // replaces no code, so it is valid from the first epoch on and names
    // that older stack too.
    for (const std::string when : {"early", "late"}) {
        BOOST_TEST_CONTEXT(when) {
            TempDir dir;
            RunOptions opt;
            opt.cwd = dir.path();
            opt.timeout_seconds = 120;
            const Result r = run_valgrind({"--leak-check=full", "--keep-debuginfo=yes"},
                                          {producer(), "leak", when, "freed-caller"}, opt);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(r.out == "leak done\n", r.out);
            BOOST_TEST_REQUIRE(contains(r.err, "24 bytes in 1 blocks are definitely lost"), r.err);
            BOOST_TEST(contains(r.err, ": names_alloc (names.src:701)"), r.err);
            BOOST_TEST(contains(r.err, ": leak_caller (in "), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(line_tables_0x40_past_their_code_land_on_their_lines) {
    // V8 and LLVM's perf listener write CODE_DEBUG_INFO addresses 0x40
    // past the code; Linux perf reads them as code addresses.  The core
    // recognizes the convention from the records (every function here has
    // entries past its end that fit once 0x40 is taken off).
    const NamesRun direct = run_names("early", "dump");
    const NamesRun plus40 = run_names("early", "dump40", {"-v"});
    require_same_profile(direct.profile, plus40.profile, true);
    BOOST_TEST(contains(plus40.vg.err, "line tables are 0x40 bytes past their code"),
               plus40.vg.err);
    BOOST_TEST(contains(plus40.vg.err, " 0 line entries dropped"), plus40.vg.err);
    const NamesRun late40 = run_names("late", "dump40");
    require_same_profile(direct.profile, late40.profile, true);
}

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

/// The address of an address-named function ("0x..."), or nullopt.
std::optional<std::uint64_t> address_of(const std::string& name) {
    if (!address_named(name)) return std::nullopt;
    return std::stoull(name, nullptr, 16);
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

// ---------------------------------------------------------------------------
// CPython 3.13 -X perf_jit: a producer nobody here wrote.  It writes its
// jitdump through a buffered stream and frees its trampolines before it
// exits, so every name arrives after its code ran (and the code is gone by
// the time Callgrind dumps).
// ---------------------------------------------------------------------------

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

BOOST_AUTO_TEST_CASE(cpython_perf_jit_trampolines_named_with_exact_call_counts,
                     *boost::unit_test::precondition(python313_available)) {
    TempDir dir;
    const std::string script = dir.file("fib.py");
    {
        std::FILE* f = std::fopen(script.c_str(), "w");
        BOOST_TEST_REQUIRE(f != nullptr);
        std::fputs(
            "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
            "print(fib(15))\n",
            f);
        std::fclose(f);
    }
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 300;
    const std::string out = dir.file("callgrind.out");
    const Result r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out},
                                  {python313(), "-X", "perf_jit", script}, opt);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == "610\n");
    const cg::Profile p = cg::Profile::parse_file(out);
    ::unlink(("/tmp/jit-" + p.header().at("pid") + ".dump").c_str());
    // fib(15) makes 2 * fib(16) - 1 = 1973 calls; each goes through the
    // trampoline CPython names py::fib:<script>.
    const std::string name = "py::fib:" + script;
    std::uint64_t calls = 0;
    for (const auto& [edge, e] : p.calls())
        if (cg::strip_recursion_suffix(edge.second.name) == name) calls += e.count;
    BOOST_TEST(calls == 1973u);
    BOOST_TEST(!p.functions_named(name, true).empty());
}

namespace {

/// OpenJDK's real launcher: $VGJIT_JAVA, else `java` on $PATH with its
/// symbolic links resolved (under Valgrind, the launcher's $ORIGIN lookups
/// fail through Debian's alternatives link), or "".
std::string java_launcher() {
    if (const char* p = std::getenv("VGJIT_JAVA"); p && *p) return p;
    const std::string java = find_on_path("java");
    std::error_code ec;
    const auto real = java.empty() ? std::filesystem::path() : std::filesystem::canonical(java, ec);
    return ec ? "" : real.string();
}

/// javac next to the real launcher, else on $PATH, or "".
std::string javac_compiler() {
    const std::string java = java_launcher();
    if (!java.empty()) {
        const std::string next = (std::filesystem::path(java).parent_path() / "javac").string();
        if (::access(next.c_str(), X_OK) == 0) return next;
    }
    return find_on_path("javac");
}

boost::test_tools::assertion_result java_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(!java_launcher().empty() && !javac_compiler().empty());
    if (!ok)
        ok.message()
            << "no java and javac (a JDK: openjdk-17-jdk-headless) on $PATH or $VGJIT_JAVA";
    return ok;
}

}  // namespace

// HotSpot writes its perf map only when it exits (-XX:+DumpPerfMapAtExit,
// 0x-prefixed fields): every name arrives after the code ran.  With
// -Xcomp and -XX:CompileOnly=JitWork.fib, fib is compiled before its first
// call and is the only compiled Java method; -XX:-Inline keeps every
// recursive call a call, and C1 only (-XX:TieredStopAtLevel=1) keeps one
// compiled copy, so Callgrind must count the program's own calls.
BOOST_AUTO_TEST_CASE(hotspot_perf_map_written_at_exit_names_exact_call_counts,
                     *boost::unit_test::precondition(java_available)) {
    TempDir dir;
    {
        std::ofstream src(dir.file("JitWork.java"));
        src << "public class JitWork {\n"
               "    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
               "    public static void main(String[] args) {\n"
               "        System.out.println(\"fib \" + fib(Integer.parseInt(args[0])));\n"
               "    }\n"
               "}\n";
    }
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 600;
    const Result javac = run({javac_compiler(), "-d", dir.path(), dir.file("JitWork.java")}, opt);
    BOOST_TEST_REQUIRE(javac.status == 0, javac);
    const std::string out = dir.file("callgrind.out");
    const Result r = run_valgrind(
        {"--tool=callgrind", "--jit-perf-map=yes", "-v", "--callgrind-out-file=" + out},
        {java_launcher(), "-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit", "-Xcomp",
         "-XX:CompileOnly=JitWork.fib", "-XX:-Inline", "-XX:TieredStopAtLevel=1", "-cp", dir.path(),
         "JitWork", "18"},
        opt);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "fib 2584"), r.out);
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    ::unlink(map.c_str());
    // fib(18) makes 2 * fib(19) - 1 = 8361 calls: 8360 from fib itself.
    // The first call from each of fib's two call sites goes to HotSpot's
    // resolver stub, which jumps to fib once it has patched the site.
    const std::string name = "int JitWork.fib(int)";
    std::uint64_t recursive = 0, resolved = 0, named = 0;
    for (const auto& [edge, e] : p.calls()) {
        if (cg::strip_recursion_suffix(edge.first.name) != name) continue;
        const std::string callee = cg::strip_recursion_suffix(edge.second.name);
        if (callee == name) recursive += e.count;
        if (callee == "resolve_static_call") resolved += e.count;
    }
    const auto fns = p.functions_named(name, true);
    for (const auto* f : fns) {
        BOOST_TEST(f->key.object == map);
        named += f->self.at(0);
    }
    BOOST_TEST(recursive + resolved == 8360u);
    BOOST_TEST(resolved <= 2u);
    BOOST_TEST(named > 0u);
    // One function in the file, not one per address-named piece: the
    // name is defined under a single compressed id.
    std::ifstream raw(out);
    std::set<std::string> ids;
    for (std::string line; std::getline(raw, line);) {
        const auto space = line.find(") " + name);
        if ((line.rfind("fn=(", 0) == 0 || line.rfind("cfn=(", 0) == 0) &&
            space != std::string::npos && line.size() == space + 2 + name.size())
            ids.insert(line.substr(line.find('(') + 1, space - line.find('(') - 1));
    }
    BOOST_TEST(ids.size() == 1u);
    BOOST_TEST(named > 0u);
}
