// integration_producers_node.cpp - integration_producers' cases of
// Node.js as a producer (Node 20 from Debian, Node 24 from npm): its perf
// map (--perf-basic-prof) and jitdump (--perf-prof) name fib.js's jitted
// code and its lines, short scripts whose records come after the unmap, a
// stripped Node names its builtins, Sparkplug's calls counted exactly;
// integration_producers.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_producers.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace vgjit::test;
using namespace producers_test;

namespace {

/// tests/fixtures/node/fib.js, absolute.
std::string fib_js() { return absolute(srcdir() + "/tests/fixtures/node/fib.js"); }

/// How much of the jitted code's cost Callgrind could name.
struct NamedShare {
    std::uint64_t named = 0;      ///< Ir in functions of `object`
    std::uint64_t unnamed = 0;    ///< Ir in address-named functions of "???"
    std::size_t unnamed_fns = 0;  ///< how many such functions
    double share() const { return named + unnamed ? double(named) / double(named + unnamed) : 0.0; }
};

NamedShare named_share(const cg::Profile& p, const std::string& object) {
    NamedShare s;
    s.named = p.object_cost(object, "Ir");
    for (const auto& [key, f] : p.functions()) {
        if (key.object != "???" || !address_named(key.name)) continue;
        s.unnamed += f.self.at(0);
        ++s.unnamed_fns;
    }
    return s;
}

/// Names V8 gives fib of fib.js, at any tier; Callgrind may add a
/// recursion depth ("'2").  Node 24 marks some tiers' names with a quote:
/// "JS:*'fib".
const std::regex& v8_fib_name() {
    static const std::regex name(R"((JS:|LazyCompile:)[*~^+]?'?fib \S*/fib\.js:29:\d+('\d+)?)");
    return name;
}

/// The functions of `object` named like V8 names fib in fib.js.
std::vector<const cg::FunctionCosts*> v8_fib(const cg::Profile& p, const std::string& object) {
    std::vector<const cg::FunctionCosts*> out;
    for (const auto& [key, f] : p.functions())
        if (key.object == object && std::regex_match(key.name, v8_fib_name())) out.push_back(&f);
    return out;
}

/// One CODE_LOAD of a jitdump: [start, start + size) named `name`.
struct CodeLoad {
    std::uint64_t start = 0, size = 0;
    std::string name;
};

/// The CODE_LOAD records of the jitdump at `path` whose names match
/// `name`, as `vg-jit dump --json` reads them.
std::vector<CodeLoad> code_loads(const std::string& path, const std::regex& name) {
    const Result r = run({vg_jit(), "dump", "--json", path});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    std::istringstream in(r.out);
    boost::property_tree::ptree doc;
    boost::property_tree::read_json(in, doc);
    std::vector<CodeLoad> out;
    for (const auto& [unused, rec] : doc.get_child("records")) {
        if (rec.get<std::string>("kind") != "CODE_LOAD") continue;
        CodeLoad l{std::stoull(rec.get<std::string>("code_addr"), nullptr, 16),
                   rec.get<std::uint64_t>("code_size"), rec.get<std::string>("name")};
        if (std::regex_match(l.name, name)) out.push_back(l);
    }
    return out;
}

struct NodeRun {
    Result native;
    Result vg;
    cg::Profile profile;
    std::string pid;
};

/// Runs fib.js with `node` natively and under Callgrind with `node_flags`
/// (and extra Valgrind options) in `dir`.
NodeRun run_node(const std::string& node, const TempDir& dir,
                 const std::vector<std::string>& node_flags, std::vector<std::string> vg_extra) {
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 180;
    NodeRun r;
    r.native = run({node, fib_js()}, opt);
    BOOST_TEST_REQUIRE(r.native.status == 0, r.native);
    const std::string out = dir.file("callgrind.node");
    std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), vg_extra.begin(), vg_extra.end());
    std::vector<std::string> prog{node};
    prog.insert(prog.end(), node_flags.begin(), node_flags.end());
    prog.push_back(fib_js());
    r.vg = run_valgrind(args, prog, opt);
    BOOST_TEST_REQUIRE(r.vg.status == 0, r.vg);
    BOOST_TEST(r.vg.out == r.native.out);
    r.profile = cg::Profile::parse_file(out);
    r.pid = r.profile.header().at("pid");
    return r;
}

}  // namespace

namespace {

/// One run of a short script under Callgrind with --perf-prof: the V8
/// functions named `fn` in the script (self Ir, and Ir on the script's
/// lines [lo, hi]), and the address-named Ir.
struct ShortRun {
    std::uint64_t fn_ir = 0, fn_on_lines = 0, fn_elsewhere = 0, fn_no_line = 0;
    std::size_t fn_names = 0;
    NamedShare share;
    std::string err;
};

ShortRun run_short_script(const std::string& node, const std::string& script,
                          const std::vector<std::string>& node_flags, const std::string& fn,
                          std::uint64_t lo, std::uint64_t hi) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 300;
    const std::string path = absolute(srcdir() + "/tests/fixtures/node/" + script);
    std::vector<std::string> prog{node};
    prog.insert(prog.end(), node_flags.begin(), node_flags.end());
    prog.push_back(path);
    const Result native = run(prog, opt);
    BOOST_TEST_REQUIRE(native.status == 0, native);
    const std::string out = dir.file("callgrind.node");
    prog.insert(prog.begin() + 1, "--perf-prof");
    const Result vg =
        run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out, "-v"}, prog, opt);
    BOOST_TEST_REQUIRE(vg.status == 0, vg);
    BOOST_TEST(vg.out == native.out);
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    const std::regex name("(JS:|LazyCompile:)[*~^+]?'?" + fn + " \\S*/" +
                          std::regex_replace(script, std::regex("\\."), "\\.") + ":\\d+:\\d+");
    ShortRun r;
    r.err = vg.err;
    for (const auto& [key, f] : p.functions()) {
        if (key.object != dump || !std::regex_match(cg::strip_recursion_suffix(key.name), name))
            continue;
        ++r.fn_names;
        r.fn_ir += f.self.at(0);
        for (const auto& [pos, costs] : f.lines) {
            const bool on_lines = std::filesystem::path(pos.first).filename() == script &&
                                  lo <= pos.second && pos.second <= hi;
            (on_lines          ? r.fn_on_lines
             : pos.second == 0 ? r.fn_no_line
                               : r.fn_elsewhere) += costs.at(0);
        }
    }
    r.share = named_share(p, dump);
    return r;
}

}  // namespace

// A short script: V8 writes its jitdump in 4 KiB blocks and flushes the
// last one while the isolate is torn down, after its code space was
// unmapped; the optimised function's CODE_LOAD (and, with
// --no-sparkplug, the OSR code of a hot loop) is in that block.  Read at
// exit for code that is no longer mapped, these records name the code
// that ran there (late names), with their line tables, in every run.
namespace {

/// The share of `r`'s function's cost on its lines: 90% of it, or with
/// `unlined_prologue` (Node 24: optimised code's prologue has no line,
/// see check_perf_prof_names) at most 40% without a line (short_fib.js's
/// fib compiled on the main thread: 35% of its Ir, in every run) and 90%
/// of the rest on its lines.
void check_on_lines(const ShortRun& r, bool unlined_prologue) {
    if (unlined_prologue) {
        BOOST_TEST(r.fn_no_line <= r.fn_ir * 40 / 100);
        BOOST_TEST(r.fn_on_lines >= (r.fn_ir - r.fn_no_line) * 9 / 10);
    } else {
        BOOST_TEST(r.fn_on_lines >= r.fn_ir * 9 / 10);
    }
}

/// V8 optimises on a background thread by default, and under Valgrind that
/// thread may not finish before a short script ends (Node 24: fib or the
/// hot loop then ran unoptimised, in 1 of 3 runs): compiled on the main
/// thread, every run has the optimised code whose records the test reads.
const std::vector<std::string> kSyncCompiles{"--no-concurrent-recompilation",
                                             "--no-concurrent-osr"};

std::vector<std::string> with(std::vector<std::string> flags, const std::string& flag) {
    flags.push_back(flag);
    return flags;
}

void check_short_scripts(const std::string& node, bool unlined_prologue) {
    for (int run = 0; run < 3; ++run) {
        BOOST_TEST_CONTEXT("run " << run) {
            const ShortRun f = run_short_script(node, "short_fib.js", kSyncCompiles, "fib", 5, 7);
            BOOST_TEST_MESSAGE("short_fib.js: fib " << f.fn_ir << " Ir, " << f.fn_on_lines
                                                    << " on lines 5..7; " << f.share.named << " of "
                                                    << f.share.named + f.share.unnamed
                                                    << " jitted Ir named");
            BOOST_TEST(f.fn_names >= 1u, f.err);
            BOOST_TEST(f.fn_ir > 1000000u, f.err);  // fib(21) x 8 is ~10^6 calls
            check_on_lines(f, unlined_prologue);
            BOOST_TEST(f.share.share() >= 0.95);

            const ShortRun h = run_short_script(
                node, "hot_loop.js", with(kSyncCompiles, "--no-sparkplug"), "hot", 5, 11);
            BOOST_TEST_MESSAGE("hot_loop.js: hot " << h.fn_ir << " Ir, " << h.fn_on_lines
                                                   << " on lines 5..11; " << h.share.named << " of "
                                                   << h.share.named + h.share.unnamed
                                                   << " jitted Ir named");
            BOOST_TEST(h.fn_names >= 1u, h.err);
            BOOST_TEST(h.fn_ir > 100000u, h.err);
            check_on_lines(h, unlined_prologue);
            BOOST_TEST(h.share.share() >= 0.95);
        }
    }
}

void check_perf_basic_prof_names(const std::string& node) {
    TempDir dir;
    const NodeRun r = run_node(node, dir, {"--perf-basic-prof"}, {"--jit-perf-map=yes"});
    const std::string map = "/tmp/perf-" + r.pid + ".map";
    std::remove(map.c_str());  // Node leaves it behind
    BOOST_TEST(!v8_fib(r.profile, map).empty(), "fib is not named in " << map);
    const NamedShare s = named_share(r.profile, map);
    BOOST_TEST_MESSAGE("node --perf-basic-prof: " << s.named << " of " << s.named + s.unnamed
                                                  << " Ir in jitted code named (" << 100 * s.share()
                                                  << "%), " << s.unnamed_fns << " unnamed blocks");
    BOOST_TEST(s.named > 50000000u);  // fib's main phase alone is ~80 M
    BOOST_TEST(s.share() >= 0.95);
    BOOST_TEST(s.unnamed_fns < 100u);
}

/// Checks that the instructions of `fibs` (a profile taken with
/// --dump-instr=yes) that have no line are each in the prologue of their
/// code object, before its first instruction with a line: the part the
/// producer gave no position.  Code objects are fib's CODE_LOAD records
/// in `loads`.  How much of fib's cost that prologue takes depends on how
/// V8 compiled fib (measured: 11.5% of the optimised code's cost, 15.8%
/// of Maglev's, 34.6% of optimised code compiled on the main thread), so
/// it is not bounded here.
void check_unlined_only_in_prologues(const std::vector<const cg::FunctionCosts*>& fibs,
                                     const std::vector<CodeLoad>& loads) {
    struct Seen {
        std::uint64_t first_lined = ~0ull, last_unlined = 0, unlined_ir = 0, ir = 0;
    };
    std::map<std::size_t, Seen> by_load;  // index in `loads`
    std::uint64_t outside = 0;
    for (const auto* f : fibs) {
        const std::string name = cg::strip_recursion_suffix(f->key.name);
        for (const auto& [addr, line] : f->instr_lines) {
            // The newest load of this name that holds addr (V8 reuses
            // the space of code it freed).
            std::size_t at = loads.size();
            for (std::size_t i = 0; i < loads.size(); ++i)
                if (loads[i].name == name && addr - loads[i].start < loads[i].size) at = i;
            const std::uint64_t ir = f->instrs.at(addr).at(0);
            if (at == loads.size()) {
                outside += ir;
                continue;
            }
            Seen& s = by_load[at];
            s.ir += ir;
            if (line != 0) {
                s.first_lined = std::min(s.first_lined, addr);
            } else if (ir > 0) {
                s.last_unlined = std::max(s.last_unlined, addr);
                s.unlined_ir += ir;
            }
        }
    }
    BOOST_TEST(!by_load.empty(), "no cost in any of fib's " << loads.size() << " code objects");
    BOOST_TEST(outside == 0u, outside << " Ir of fib outside fib's code objects");
    for (const auto& [i, s] : by_load) {
        const CodeLoad& l = loads[i];
        BOOST_TEST_MESSAGE("node --perf-prof: " << l.name << " at 0x" << std::hex << l.start
                                                << std::dec << ": " << s.unlined_ir << " of "
                                                << s.ir << " Ir without a line");
        BOOST_TEST_CONTEXT(l.name << " at 0x" << std::hex << l.start << std::dec << ", " << l.size
                                  << " bytes") {
            BOOST_TEST(s.first_lined != ~0ull, "no instruction that ran has a line");
            if (s.unlined_ir > 0)
                BOOST_TEST(s.last_unlined < s.first_lined,
                           "an instruction without a line at 0x"
                               << std::hex << s.last_unlined << std::dec
                               << " follows one with a line at 0x" << std::hex << s.first_lined
                               << std::dec);
        }
    }
}

/// `unlined_prologue`: the producer gives no position to the prologue of
/// optimised code (Node 24).  `node_flags`: Node's options after
/// --perf-prof.
void check_perf_prof_names(const std::string& node, bool unlined_prologue,
                           const std::vector<std::string>& node_flags) {
    TempDir dir;
    std::vector<std::string> flags{"--perf-prof"};
    flags.insert(flags.end(), node_flags.begin(), node_flags.end());
    const NodeRun r = run_node(node, dir, flags, {"--dump-instr=yes"});
    const std::string dump = dir.path() + "/jit-" + r.pid + ".dump";
    const auto fibs = v8_fib(r.profile, dump);
    BOOST_TEST_REQUIRE(!fibs.empty(), "fib is not named in " << dump);
    const NamedShare s = named_share(r.profile, dump);
    BOOST_TEST_MESSAGE("node --perf-prof: " << s.named << " of " << s.named + s.unnamed
                                            << " Ir in jitted code named (" << 100 * s.share()
                                            << "%), " << s.unnamed_fns << " unnamed blocks");
    BOOST_TEST(s.named > 50000000u);
    BOOST_TEST(s.share() >= 0.95);
    BOOST_TEST(s.unnamed_fns < 100u);
    // V8 writes CODE_DEBUG_INFO for optimised code, 0x40 past the code.
    // Node 20's V8 writes each entry's script name as a field of the
    // name's size filled from freed memory: the core reads the entries by
    // that size and takes their file from the code's name ("JS:*fib
    // /path/fib.js:29:13"), so fib's cost lands on fib's lines (29..31) of
    // fib.js, and no junk ever appears as a file name.
    // Node 24's V8 (13.6) gives each code object's prologue, before its
    // first line entry, no position: that part of fib's cost has no line,
    // and what has a line is on fib's lines.
    std::uint64_t on_lines = 0, elsewhere = 0, no_line = 0, self = 0;
    for (const auto* f : fibs) {
        self += f->self.at(0);
        for (const auto& [pos, costs] : f->lines) {
            const bool fib_js_line = std::filesystem::path(pos.first).filename() == "fib.js" &&
                                     29 <= pos.second && pos.second <= 31;
            (fib_js_line ? on_lines : pos.second == 0 ? no_line : elsewhere) += costs.at(0);
        }
    }
    BOOST_TEST_MESSAGE("node --perf-prof: " << on_lines << " of fib's " << self
                                            << " Ir on fib.js lines 29..31, " << no_line
                                            << " without a line");
    if (unlined_prologue) {
        check_unlined_only_in_prologues(fibs, code_loads(dump, v8_fib_name()));
        BOOST_TEST(on_lines >= (self - no_line) * 9 / 10,
                   on_lines << " of " << self - no_line << " Ir with a line on fib's lines");
    } else {
        BOOST_TEST(on_lines >= self * 9 / 10, on_lines << " of " << self << " Ir on fib's lines");
    }
    for (const auto& [key, f] : r.profile.functions())
        for (const auto& [pos, costs] : f.lines) BOOST_TEST(printable_ascii(pos.first), pos.first);
}

}  // namespace

BOOST_AUTO_TEST_CASE(node_perf_prof_short_scripts_name_code_whose_records_arrive_after_unmap,
                     *boost::unit_test::precondition(node_available)) {
    check_short_scripts(node_binary(), false);
}

BOOST_AUTO_TEST_CASE(node_perf_basic_prof_names_jitted_javascript,
                     *boost::unit_test::precondition(node_available)) {
    check_perf_basic_prof_names(node_binary());
}

BOOST_AUTO_TEST_CASE(node_perf_prof_jitdump_names_jitted_javascript,
                     *boost::unit_test::precondition(node_available)) {
    check_perf_prof_names(node_binary(), false, {});
}

// Node.js 24 LTS (npm's build, installed by build-aux/install-deps.sh):
// the same checks.
BOOST_AUTO_TEST_CASE(node24_perf_prof_short_scripts_name_code_whose_records_arrive_after_unmap,
                     *boost::unit_test::precondition(node24_available)) {
    check_short_scripts(node24_binary(), true);
}

BOOST_AUTO_TEST_CASE(node24_perf_basic_prof_names_jitted_javascript,
                     *boost::unit_test::precondition(node24_available)) {
    check_perf_basic_prof_names(node24_binary());
}

BOOST_AUTO_TEST_CASE(node24_perf_prof_jitdump_names_jitted_javascript,
                     *boost::unit_test::precondition(node24_available)) {
    // Under Valgrind, V8's background compiler threads wait for Valgrind's
    // lock, and whether Node 24's Turbofan code for fib was ready before the
    // main phase ended varied (one run in about fifteen ran fib in Maglev's
    // code and the interpreter: 21 M Ir named).  Compiling on the main
    // thread makes the main phase run the optimised code this checks.
    check_perf_prof_names(node24_binary(), true, {"--no-concurrent-recompilation"});
}

// A stripped V8 embedder (Deno from npm, many Electron and Chromium builds
// ship so): V8 runs its builtins and bytecode handlers from the
// executable's text and names them in its perf files, while the ELF has
// no symbol for them.  A stripped copy of Node shows the same: the
// producer's names are used where the executable has none.
namespace {

void check_stripped_builtins(const std::string& node) {
    TempDir dir;
    const std::string stripped = dir.file("node-stripped");
    const Result s = run({"/usr/bin/strip", "-o", stripped, node});
    BOOST_TEST_REQUIRE(s.status == 0, s);
    const std::string script = dir.file("short.js");
    std::ofstream(script) << "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
                             "let s = 0;\n"
                             "for (let i = 0; i < 30; i++) s += fib(15);\n"
                             "console.log(s);\n";
    for (const std::string mode : {"--perf-basic-prof", "--perf-prof"}) {
        BOOST_TEST_CONTEXT("node " << mode) {
            RunOptions opt;
            opt.cwd = dir.path();
            const std::string out = dir.file("callgrind" + mode + ".out");
            const Result r = run_valgrind(
                {"--tool=callgrind", "--jit-perf-map=yes", "--callgrind-out-file=" + out},
                {stripped, mode, "--single-threaded", script}, opt);
            remove_tmp_files_of(r.pid);  // Node leaves its map behind
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(contains(r.out, "18300"), r.out);
            const cg::Profile p = cg::Profile::parse_file(out);
            std::size_t n = 0;
            std::uint64_t ir = 0;
            for (const auto& [key, f] : p.functions()) {
                const std::string name = cg::strip_recursion_suffix(key.name);
                if ((name.rfind("Builtin:", 0) == 0 || name.rfind("BytecodeHandler:", 0) == 0) &&
                    key.object == stripped) {
                    ++n;
                    ir += f.self.at(0);
                }
            }
            BOOST_TEST_MESSAGE("node " << mode << ": " << n << " builtins and handlers named in "
                                       << stripped << ", " << ir << " Ir");
            BOOST_TEST(n >= 20u);
            BOOST_TEST(ir > 500000u);
            BOOST_TEST(!p.functions_named("Builtin:InterpreterEntryTrampoline").empty());
        }
    }
    // Cachegrind too (perf map).
    const std::string out = dir.file("cachegrind.out");
    RunOptions opt;
    opt.cwd = dir.path();
    const Result c =
        run_valgrind({"--tool=cachegrind", "--cache-sim=no", "--jit-perf-map=yes",
                      "--cachegrind-out-file=" + out},
                     {stripped, "--perf-basic-prof", "--single-threaded", script}, opt);
    remove_tmp_files_of(c.pid);
    BOOST_TEST_REQUIRE(c.status == 0, c);
    const cg::Profile p = cg::Profile::parse_file(out);
    BOOST_TEST(!p.functions_named("Builtin:InterpreterEntryTrampoline").empty());
}

}  // namespace

BOOST_AUTO_TEST_CASE(stripped_node_names_its_builtins_from_its_own_perf_files,
                     *boost::unit_test::precondition(node_available)) {
    check_stripped_builtins(node_binary());
}

BOOST_AUTO_TEST_CASE(stripped_node24_names_its_builtins_from_its_own_perf_files,
                     *boost::unit_test::precondition(node24_available)) {
    check_stripped_builtins(node24_binary());
}

// V8's baseline code (Sparkplug) starts with a call of the builtin
// BaselineOutOfLinePrologue, which builds the function's frame and
// returns below the frame it was called with.  Callgrind's calls= of
// the baseline function equal the calls the script counted (summed over
// its callers and recursion depths), in both of V8's modes, and none
// comes from the builtin; `vg-jit export` puts fib under its callers,
// never under the builtin.  With --separate-callers, late names (the
// jitdump of --perf-prof) move blocks into contexts made at the dump.
namespace {

/// The calls into JS functions named `fn` of `script`, by caller.
std::map<std::string, std::uint64_t> v8_calls_into(const cg::Profile& p, const std::string& fn,
                                                   const std::string& script) {
    // The name, then the callers of --separate-callers ("f'caller'...")
    // or the recursion depth ("f'2").
    const std::regex name("^(JS:|LazyCompile:)[*~^+]?'?" + fn + " \\S*/" +
                          std::regex_replace(script, std::regex("\\."), "\\.") + ":\\d+:\\d+('|$)");
    std::map<std::string, std::uint64_t> by_caller;
    const auto bare = [](const std::string& n) { return n.substr(0, n.find('\'')); };
    for (const auto& [edge, e] : p.calls())
        if (std::regex_search(edge.second.name, name)) by_caller[bare(edge.first.name)] += e.count;
    return by_caller;
}

void check_baseline_call_counts(const std::string& node) {
    const std::string script = absolute(srcdir() + "/tests/fixtures/node/baseline_fib.js");
    const std::vector<std::string> flags{"--single-threaded", "--always-sparkplug", "--max-opt=1"};
    for (const std::string mode : {"--perf-basic-prof", "--perf-prof"}) {
        BOOST_TEST_CONTEXT(node << " " << mode) {
            TempDir dir;
            RunOptions opt;
            opt.cwd = dir.path();
            opt.timeout_seconds = 300;
            std::vector<std::string> prog{node, mode};
            prog.insert(prog.end(), flags.begin(), flags.end());
            prog.push_back(script);
            const std::string out = dir.file("callgrind.out");
            const Result r = run_valgrind({"--tool=callgrind", "--jit-perf-map=yes",
                                           "--separate-callers=2", "--callgrind-out-file=" + out},
                                          prog, opt);
            remove_tmp_files_of(r.pid);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const cg::Profile p = cg::Profile::parse_file(out);
            static const std::regex counted(R"(fib calls (\d+) sum 2880)");
            std::smatch m;
            BOOST_TEST_REQUIRE(std::regex_search(r.out, m, counted), r.out);
            const std::uint64_t expected = std::stoull(m[1]);
            const auto by_caller = v8_calls_into(p, "fib", "baseline_fib.js");
            std::uint64_t calls = 0;
            for (const auto& [caller, n] : by_caller) {
                BOOST_TEST_MESSAGE(caller << " -> fib: " << n);
                BOOST_TEST(caller.find("BaselineOutOfLinePrologue") == std::string::npos,
                           caller << " called fib " << n << " times");
                calls += n;
            }
            BOOST_TEST(expected == 9300u);
            BOOST_TEST(calls == expected);

            const std::string folded = dir.file("folded");
            const Result x = run({vg_jit(), "export", "--format=folded", "-o", folded, out});
            BOOST_TEST_REQUIRE(x.status == 0, x);
            // The export's stacks of fib show the builtin that called it
            // (the dominator of its calls): never the prologue builtin,
            // and "[unknown callers]" right below fib (where the prologue,
            // as a second caller, hid the real one) for at most 1% of
            // fib's cost (the calls before fib was compiled).
            std::istringstream in(read_file(folded));
            std::string line;
            std::uint64_t fib_weight = 0, unknown_weight = 0;
            static const std::regex below_fib(R"((^|;)([^;]*);[^;]*\^fib [^;]*baseline_fib\.js)");
            while (std::getline(in, line)) {
                std::smatch f;
                if (!std::regex_search(line, f, below_fib)) continue;
                const std::uint64_t w = std::stoull(line.substr(line.rfind(' ') + 1));
                const std::string caller = f[2];
                BOOST_TEST(caller.find("BaselineOutOfLinePrologue") == std::string::npos,
                           "fib below " << caller);
                fib_weight += w;
                if (caller == "[unknown callers]") unknown_weight += w;
            }
            BOOST_TEST_MESSAGE("fib: " << fib_weight << " Ir in the export, " << unknown_weight
                                       << " right below [unknown callers]");
            BOOST_TEST(fib_weight > 100000u);
            BOOST_TEST(unknown_weight * 100 <= fib_weight);
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(node_sparkplug_call_counts_equal_the_scripts_counter,
                     *boost::unit_test::precondition(node_available)) {
    check_baseline_call_counts(node_binary());
}

BOOST_AUTO_TEST_CASE(node24_sparkplug_call_counts_equal_the_scripts_counter,
                     *boost::unit_test::precondition(node24_available)) {
    check_baseline_call_counts(node24_binary());
}

BOOST_AUTO_TEST_CASE(stripped_node24_sparkplug_call_counts_equal_the_scripts_counter,
                     *boost::unit_test::precondition(node24_available)) {
    TempDir dir;
    const std::string stripped = dir.file("node24-stripped");
    const Result s = run({"/usr/bin/strip", "-o", stripped, node24_binary()});
    BOOST_TEST_REQUIRE(s.status == 0, s);
    check_baseline_call_counts(stripped);
}
