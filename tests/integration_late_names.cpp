// integration_late_names.cpp - integration_late's cases of
// tests/jitdump_producer's "names" mode: one call graph announced in a
// jitdump or a perf map before its code runs or after it ran, whose
// Callgrind and Cachegrind profiles must be the same either way; a
// jitdump that grows or turns corrupt at exit, code entered by jumps,
// Memcheck's leak stacks, line tables 0x40 past their code;
// integration_late.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_late.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;
using namespace late_test;

namespace {

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
