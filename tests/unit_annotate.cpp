// unit_annotate.cpp - `vg-jit annotate`: hand-written Callgrind profiles
// (name compression, subposition compression, calls, jumps, parts, errors)
// and, end to end, profiles of tests/perfmap_jit taken with the UNPATCHED
// Valgrind (build/stock-install, `make stock-valgrind`; $VGJIT_STOCK),
// compared with what the patched, staged Valgrind reports for the same
// program.  The end-to-end cases are skipped (reported as SKIP) when the
// stock Valgrind is not built.

#define BOOST_TEST_MODULE unit_annotate
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "jitdump_builder.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
namespace utf = boost::unit_test;
using namespace vgjit::test;

namespace {

std::string perfmap_jit() { return env_or("VGJIT_PERFMAP_JIT", tests_builddir() + "/perfmap_jit"); }

/// Runs `vg-jit annotate` with the given arguments.
Result annotate(const std::vector<std::string>& args) {
    std::vector<std::string> argv{vg_jit(), "annotate"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, RunOptions{60, "", {}});
}

/// The function of `p` with object `ob` and name `fn` (any file).
const cg::FunctionCosts* find_fn(const cg::Profile& p, const std::string& ob,
                                 const std::string& fn) {
    for (const auto& [k, f] : p.functions())
        if (k.object == ob && k.name == fn) return &f;
    return nullptr;
}

/// The call edge caller -> callee by names (any object/file).
const cg::CallEdge* find_call(const cg::Profile& p, const std::string& caller,
                              const std::string& callee) {
    for (const auto& [k, e] : p.calls())
        if (k.first.name == caller && k.second.name == callee) return &e;
    return nullptr;
}

/// Sum of event `ev` over the self costs of every function named `name`
/// (any recursion depth, any object).
std::uint64_t self_of(const cg::Profile& p, const std::string& name, const std::string& ev) {
    const std::size_t i = p.event_index(ev);
    std::uint64_t s = 0;
    for (const cg::FunctionCosts* f : p.functions_named(name, true)) s += f->self.at(i);
    return s;
}

/// True for Callgrind's names of code without symbols: 0xHEX['N].
bool pseudo_address(const std::string& name, std::uint64_t& addr) {
    const std::string base = cg::strip_recursion_suffix(name);
    if (!address_named(base)) return false;
    addr = std::stoull(base.substr(2), nullptr, 16);
    return true;
}

// A hand-written profile with every compression Callgrind uses.  The map
// names [0x1000, 0x1020) alpha and [0x2000, 0x2010) beta.
//   0x1000 (alpha's entry) calls 0x1010 (a piece of alpha: dropped),
//   0x2000 (beta) and 0x1000'2 (alpha recursively: kept);
//   0x2000 calls memcpy in libc, whose costs are partly in an inlined file.
const char* const kProfile = R"(# callgrind format
version: 1
creator: hand-written
positions: instr line
events: Ir Dr
summary: 166 4

ob=(1) ???
fl=(1) ???
fn=(1) 0x1000
0x1000 0 3 1
+4 * 5
cfn=(2) 0x1010
calls=2 +12 0
* 0 40 4
+2 0 7
cfn=(3) 0x0000000000002000
calls=1 0x2000 0
* 0 111 2
cfn=(5) 0x1000'2
calls=1 -6 0
* * 20
fn=(2)
0x1010 0 10 1
+3 0 10

fn=(3)
0x2000 0 60 2
+4 0 40
cob=(2) /lib/libc.so
cfi=(2) string.c
cfn=(4) memcpy
calls=1 0x500 12
* 0 11
fn=(5)
0x1000 0 20

ob=(2)
fl=(2)
fn=(4)
0x500 12 9
fi=(3) string.h
0x504 30 1
fe=(2)
0x508 12 1
totals: 166 4
)";

const char* const kMap = "1000 20 alpha\n2000 10 beta\n";

BOOST_AUTO_TEST_CASE(renames_merges_and_drops_pieces) {
    TempDir dir("vgjit-annotate");
    write_file(dir.file("in.out"), kProfile);
    write_file(dir.file("perf-1.map"), kMap);
    const Result r =
        annotate({"--map", dir.file("perf-1.map"), dir.file("in.out"), "-o", dir.file("out")});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.err.empty(), r.err);
    const cg::Profile in = cg::Profile::parse_file(dir.file("in.out"));
    const cg::Profile out = cg::Profile::parse_file(dir.file("out"));
    const std::string ob = absolute(dir.file("perf-1.map"));

    BOOST_TEST(out.totals() == in.totals());
    BOOST_TEST(out.self_total() == in.self_total());
    BOOST_TEST(out.self_total() == (cg::Costs{166, 4}));

    const cg::FunctionCosts* alpha = find_fn(out, ob, "alpha");
    BOOST_TEST_REQUIRE(alpha);
    BOOST_TEST(alpha->key.file == "???");
    // 0x1000 (3+5+7) and the piece at 0x1010 (10+10).
    BOOST_TEST(alpha->self == (cg::Costs{35, 2}));
    BOOST_TEST(alpha->instrs.at(0x1006) == (cg::Costs{7, 0}));
    BOOST_TEST(alpha->instrs.at(0x1013) == (cg::Costs{10, 0}));
    const cg::FunctionCosts* alpha2 = find_fn(out, ob, "alpha'2");
    BOOST_TEST_REQUIRE(alpha2);
    BOOST_TEST(alpha2->self == (cg::Costs{20, 0}));
    const cg::FunctionCosts* beta = find_fn(out, ob, "beta");
    BOOST_TEST_REQUIRE(beta);
    BOOST_TEST(beta->self == (cg::Costs{100, 2}));
    const cg::FunctionCosts* memcpy_ = find_fn(out, "/lib/libc.so", "memcpy");
    BOOST_TEST_REQUIRE(memcpy_);
    BOOST_TEST(memcpy_->self == (cg::Costs{11, 0}));
    BOOST_TEST(memcpy_->lines.at({"string.h", 30}) == (cg::Costs{1, 0}));

    // Calls: alpha -> beta and alpha -> alpha'2 stay; alpha -> its piece
    // is gone; beta -> memcpy keeps its object.
    const cg::CallEdge* ab = find_call(out, "alpha", "beta");
    BOOST_TEST_REQUIRE(ab);
    BOOST_TEST(ab->count == 1u);
    BOOST_TEST(ab->inclusive == (cg::Costs{111, 2}));
    const cg::CallEdge* rec = find_call(out, "alpha", "alpha'2");
    BOOST_TEST_REQUIRE(rec);
    BOOST_TEST(rec->count == 1u);
    BOOST_TEST(!find_call(out, "alpha", "alpha"));
    const cg::CallEdge* bm = find_call(out, "beta", "memcpy");
    BOOST_TEST_REQUIRE(bm);
    BOOST_TEST(bm->callee.object == "/lib/libc.so");
    BOOST_TEST(out.calls().size() == 3u);
    for (const auto& [k, f] : out.functions()) {
        std::uint64_t a = 0;
        BOOST_TEST(!pseudo_address(k.name, a), "pseudo-function left: " << k.name);
    }
    // The staged callgrind_annotate reads it without complaint.
    const Result ca = run({stage() + "/bin/callgrind_annotate", dir.file("out")});
    BOOST_TEST(ca.status == 0, ca);
    BOOST_TEST(!contains(ca.err, "WARNING"), ca.err);
    BOOST_TEST(contains(ca.out, "alpha"));
    BOOST_TEST(contains(ca.out, "beta"));
}

BOOST_AUTO_TEST_CASE(without_instruction_addresses_costs_go_by_entry_address) {
    TempDir dir("vgjit-annotate");
    write_file(dir.file("in.out"), R"(# callgrind format
events: Ir
fn=0x1000
0 5
cfn=0x1010
calls=1 0
0 30
fn=0x1010
0 30
fn=0x3000
0 1
)");
    write_file(dir.file("m.map"), kMap);
    const Result r =
        annotate({"--map=" + dir.file("m.map"), "--output=" + dir.file("out"), dir.file("in.out")});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "warning: no instruction addresses"), r.err);
    const cg::Profile out = cg::Profile::parse_file(dir.file("out"));
    BOOST_TEST(self_of(out, "alpha", "Ir") == 35u);
    BOOST_TEST(out.calls().empty());
    // Outside every mapped range: left as it was.
    BOOST_TEST(self_of(out, "0x3000", "Ir") == 1u);
    BOOST_TEST(out.self_total() == (cg::Costs{36}));
}

BOOST_AUTO_TEST_CASE(later_map_entries_replace_overlapping_earlier_ones) {
    TempDir dir("vgjit-annotate");
    write_file(dir.file("in.out"), R"(positions: instr
events: Ir
ob=???
fn=0x1000
0x1000 1
+4 2
+8 4
fn=0x2000
0x2000 8
)");
    // In one file: "second" replaces "first" (the overlap removes it all);
    // across files: the later file's "gamma" replaces "beta".
    write_file(dir.file("a.map"), "1000 10 first\n1008 10 second\n2000 10 beta\n");
    write_file(dir.file("b.map"), "2000 10 gamma\n");
    const Result r = annotate({"--map", dir.file("a.map"), "--map", dir.file("b.map"), "-o",
                               dir.file("out"), dir.file("in.out")});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile out = cg::Profile::parse_file(dir.file("out"));
    BOOST_TEST(self_of(out, "first", "Ir") == 0u);
    BOOST_TEST(self_of(out, "second", "Ir") == 4u);
    BOOST_TEST(self_of(out, "0x1000", "Ir") == 3u);  // 0x1000..0x1007: nobody's now
    BOOST_TEST(self_of(out, "beta", "Ir") == 0u);
    BOOST_TEST(self_of(out, "gamma", "Ir") == 8u);
    BOOST_TEST(find_fn(out, absolute(dir.file("b.map")), "gamma"));
}

BOOST_AUTO_TEST_CASE(jitdump_line_tables_and_code_move) {
    TempDir dir("vgjit-annotate");
    jitdump_test::JitdumpBuilder b;
    b.header(1, 4242)
        .debug_info(0x1000, {{0x1000, 10, 0, "/src/a.js"},
                             {0x1004, 11, 0, "/src/a.js"},
                             {0x1008, 7, 0, "/src/b.js"}})
        .code_load(0x1000, 0x20, "alpha", 1)
        .code_move(0x1000, 0x3000, 0x20, 1);
    const std::string dump = dir.file("jit-4242.dump");
    write_file(dump, std::string(b.bytes.begin(), b.bytes.end()));
    write_file(dir.file("in.out"), R"(positions: instr line
events: Ir
ob=(1) ???
fl=(1) ???
fn=(1) 0x3000
0x3000 0 1
+5 * 2
+3 * 4
fn=(2) 0x1000
0x1000 0 8
)");
    const Result r = annotate({"--map", dump, dir.file("in.out"), "-o", dir.file("out")});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile out = cg::Profile::parse_file(dir.file("out"));
    const cg::FunctionCosts* alpha = find_fn(out, absolute(dump), "alpha");
    BOOST_TEST_REQUIRE(alpha);
    BOOST_TEST(alpha->key.file == "/src/a.js");
    BOOST_TEST(alpha->self == (cg::Costs{7}));
    BOOST_TEST(alpha->lines.at({"/src/a.js", 10}) == (cg::Costs{1}));
    BOOST_TEST(alpha->lines.at({"/src/a.js", 11}) == (cg::Costs{2}));
    BOOST_TEST(alpha->lines.at({"/src/b.js", 7}) == (cg::Costs{4}));
    // The old address is no longer alpha's.
    BOOST_TEST(self_of(out, "0x1000", "Ir") == 8u);
}

BOOST_AUTO_TEST_CASE(parts_events_and_jumps) {
    TempDir dir("vgjit-annotate");
    write_file(dir.file("in.out"), R"(# callgrind format
version: 1
part: 1
positions: instr line
events: Ir Dr Dw
event: Ir : Instruction Fetch
ob=(1) ???
fl=(1) ???
fn=(1) 0x1000
0x1000 0 1 2 3
jump=3 +8 0
+2 0
+2 * 1
jfn=(2) 0x2000
jcnd=2/5 0x2000 0
* 0
fn=(2)
0x2000 0 10
totals: 12 2 3
part: 2
positions: instr line
events: Ir
ob=(1)
fl=(1)
fn=(1)
0x1000 0 100
totals: 100
)");
    write_file(dir.file("m.map"), kMap);
    const Result r = annotate({"--map", dir.file("m.map"), dir.file("in.out")});  // to stdout
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const std::string& o = r.out;
    BOOST_TEST(contains(o, "part: 1\n"));
    BOOST_TEST(contains(o, "part: 2\n"));
    BOOST_TEST(contains(o, "events: Ir Dr Dw\n"));
    BOOST_TEST(contains(o, "event: Ir : Instruction Fetch\n"));
    BOOST_TEST(contains(o, "totals: 12 2 3\n"));
    BOOST_TEST(contains(o, "totals: 100\n"));
    // jump inside alpha (no jfn), jcnd to beta (jfn names it); absolute.
    BOOST_TEST(contains(o, "jump=3 0x1008 0\n0x1002 0\n"), o);
    BOOST_TEST(contains(o, "jfn=(2) beta\njcnd=2/5 0x2000 0\n0x1002 0\n"), o);
    BOOST_TEST(!contains(o, "fn=(1) 0x"), o);
    // Part 2 alone, through the profile reader (single-part only).
    const std::size_t p2 = o.find("part: 2\n");
    BOOST_TEST_REQUIRE(p2 != std::string::npos);
    std::istringstream second(o.substr(p2));
    const cg::Profile out2 = cg::Profile::parse(second, "part 2");
    BOOST_TEST(self_of(out2, "alpha", "Ir") == 100u);
}

BOOST_AUTO_TEST_CASE(errors_and_exit_statuses) {
    TempDir dir("vgjit-annotate");
    write_file(dir.file("m.map"), kMap);
    const auto bad = [&](const std::string& text, const std::string& expect) {
        write_file(dir.file("bad.out"), text);
        const Result r =
            annotate({"--map", dir.file("m.map"), dir.file("bad.out"), "-o", dir.file("o")});
        BOOST_TEST(r.status == 1, r);
        BOOST_TEST(contains(r.err, expect), "expected '" << expect << "' in: " << r.err);
    };
    bad("events: Ir\nfn=a\n0 1\nthis is not a line\n", "bad.out:4: error: malformed line");
    bad("events: Ir\nfn=a\n0 1 2\n", "bad.out:3: error: cost line has 2 costs");
    bad("events: Ir\nfn=(7)\n", "bad.out:2: error: name compression id (7) used before");
    bad("events: Ir\nfn=a\ncalls=1 0\n0 1\n", "bad.out:3: error: calls= without a preceding cfn=");
    bad("events: Ir\nfn=a\n0 x\n", "bad.out:3: error: bad cost 'x'");
    bad("events: Ir\nfn=a\ncfn=b\ncalls=1 0\n", "ends after a calls=");
    bad("fn=a\n0 1\n", "bad.out:1: error: cost data before the \"events:\" header");
    bad("events: Ir\nfn=a\n0 1\nxfn=b\n", "bad.out:4: error: unknown specification \"xfn=\"");

    bad("", "bad.out: error: not a Callgrind profile");

    write_file(dir.file("ok.out"), "events: Ir\nfn=0x1000\n0 1\n");
    // Unreadable profile.
    Result r = annotate({"--map", dir.file("m.map"), dir.file("missing.out")});
    BOOST_TEST(r.status == 1, r);
    BOOST_TEST(contains(r.err, "missing.out: error: cannot open"), r.err);
    // A missing map: reported, the profile is still rewritten, status 1.
    r = annotate({"--map", dir.file("nomap"), "--map", dir.file("m.map"), dir.file("ok.out"), "-o",
                  dir.file("o2")});
    BOOST_TEST(r.status == 1, r);
    BOOST_TEST(contains(r.err, "nomap: error: cannot open"), r.err);
    BOOST_TEST(self_of(cg::Profile::parse_file(dir.file("o2")), "alpha", "Ir") == 1u);
    // A map with a bad line: the good lines are used.
    write_file(dir.file("half.map"), "zz 10 broken\n1000 20 alpha\n");
    r = annotate({"--map", dir.file("half.map"), dir.file("ok.out"), "-o", dir.file("o3")});
    BOOST_TEST(r.status == 1, r);
    BOOST_TEST(contains(r.err, "half.map:1: error:"), r.err);
    BOOST_TEST(self_of(cg::Profile::parse_file(dir.file("o3")), "alpha", "Ir") == 1u);
    // Usage errors.
    BOOST_TEST(annotate({dir.file("ok.out")}).status == 2);          // no --map
    BOOST_TEST(annotate({"--map", dir.file("m.map")}).status == 2);  // no profile
    BOOST_TEST(annotate({"--map"}).status == 2);                     // no argument
    BOOST_TEST(annotate({"--map", dir.file("m.map"), "--bogus", dir.file("ok.out")}).status == 2);
    r = annotate({"--help"});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(contains(r.out, "Approximate:"));
}

// ---------------------------------------------------------------------------
// End to end: perfmap_jit under the unpatched and the patched Valgrind.
// ---------------------------------------------------------------------------

/// One run of perfmap_jit: its profile and the files it wrote (copied into
/// the scratch directory; the originals are removed).
struct JitRun {
    std::string profile, perfmap, jitdump;
};

JitRun profile_run(const TempDir& dir, const std::string& valgrind, const std::string& tag,
                   const std::vector<std::string>& extra) {
    JitRun j;
    j.profile = dir.file(tag + ".callgrind");
    std::vector<std::string> argv{valgrind, "--tool=callgrind",
                                  "--callgrind-out-file=" + j.profile};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(perfmap_jit());
    const Result r = run(argv, RunOptions{300, dir.path(), {}});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.out, "result top 4654540\nresult fib 610\nresult moved 20100\n"),
                       r.out);
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("perfmap ", 0) == 0) {
            const std::string src = line.substr(8);
            j.perfmap = dir.file(tag + ".map");
            write_file(j.perfmap, read_file(src));
            std::remove(src.c_str());
        } else if (line.rfind("jitdump ", 0) == 0) {
            j.jitdump = dir.file(line.substr(8));
        }
    }
    BOOST_TEST_REQUIRE(!j.perfmap.empty());
    BOOST_TEST_REQUIRE(!j.jitdump.empty());
    return j;
}

/// Address ranges of a perf map.
std::vector<std::pair<std::uint64_t, std::uint64_t>> map_ranges(const std::string& path) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    std::istringstream in(read_file(path));
    std::string start, size, name;
    while (in >> start >> size >> name)
        out.emplace_back(std::stoull(start, nullptr, 16),
                         std::stoull(start, nullptr, 16) + std::stoull(size, nullptr, 16));
    return out;
}

const std::vector<std::string> kNamed = {"pj_leaf", "pj_middle", "pj_top",
                                         "pj_tail", "pj_fib",    "pj_moved"};

/// Checks what every rewrite must give.
void check_common(const cg::Profile& in, const cg::Profile& out, const std::string& out_path,
                  const std::string& map, const std::vector<std::string>& listed = kNamed) {
    BOOST_TEST(out.events() == in.events());
    BOOST_TEST(out.totals() == in.totals());  // every event
    BOOST_TEST(out.self_total() == in.self_total());
    BOOST_TEST(out.self_total() == in.totals());
    const auto ranges = map_ranges(map);
    auto in_mapped = [&](std::uint64_t a) {
        for (const auto& r : ranges)
            if (a >= r.first && a < r.second) return true;
        return false;
    };
    for (const auto& [k, f] : out.functions()) {
        std::uint64_t a = 0;
        if ((k.object == "???" || k.object.empty()) && pseudo_address(k.name, a))
            BOOST_TEST(!in_mapped(a), "pseudo-function " << k.name << " left in a mapped range");
    }
    for (const auto& [k, e] : out.calls()) {
        std::uint64_t a = 0;
        if ((k.second.object == "???" || k.second.object.empty()) &&
            pseudo_address(k.second.name, a))
            BOOST_TEST(!in_mapped(a), "call to pseudo-function " << k.second.name << " left");
    }
    const Result ca = run({stage() + "/bin/callgrind_annotate", "--threshold=100", out_path});
    BOOST_TEST(ca.status == 0, ca);
    BOOST_TEST(!contains(ca.err, "WARNING"), ca.err);
    for (const std::string& n : listed)
        BOOST_TEST(contains(ca.out, ":" + n + " ["), n << " not listed");
}

BOOST_AUTO_TEST_CASE(stock_profile_matches_patched_valgrind,
                     *utf::precondition(stock_valgrind_available)) {
    TempDir dir("vgjit-annotate-e2e");
    const JitRun s = profile_run(dir, stock_valgrind(), "stock", {"--dump-instr=yes"});
    const JitRun ref = profile_run(dir, valgrind(), "patched", {"--dump-instr=yes"});
    const cg::Profile in = cg::Profile::parse_file(s.profile);
    const cg::Profile patched = cg::Profile::parse_file(ref.profile);

    // The stock profile really has pseudo-functions for the jitted code.
    BOOST_TEST_REQUIRE(in.functions_named("pj_leaf").empty());

    for (const std::string& map : {s.perfmap, s.jitdump}) {
        BOOST_TEST_CONTEXT("map " << map) {
            const std::string out_path = map + ".annotated";
            const Result r = annotate({"--map", map, s.profile, "-o", out_path});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const cg::Profile out = cg::Profile::parse_file(out_path);
            check_common(in, out, out_path, s.perfmap);
            for (const std::string& n : kNamed) {
                const std::uint64_t want = self_of(patched, n, "Ir");
                BOOST_TEST(want > 0u, n);
                BOOST_TEST(self_of(out, n, "Ir") == want, n << ": annotated "
                                                            << self_of(out, n, "Ir")
                                                            << ", patched Valgrind " << want);
            }
            // pj_moved runs at its CODE_MOVE address: all of the cost there
            // (the perf map names both addresses, the jitdump moves it).
            std::uint64_t moved_stock = 0;
            const auto ranges = map_ranges(s.perfmap);
            for (const auto& [k, f] : in.functions()) {
                std::uint64_t a = 0;
                if (pseudo_address(k.name, a) && a == ranges.back().first)
                    moved_stock += f.self.at(0);
            }
            BOOST_TEST(moved_stock > 0u);
            BOOST_TEST(self_of(out, "pj_moved", "Ir") == moved_stock);
            // Call counts of the call graph.
            const cg::CallEdge* tm = find_call(out, "pj_top", "pj_middle");
            BOOST_TEST_REQUIRE(tm);
            BOOST_TEST(tm->count == 20u);
            const cg::CallEdge* ml = find_call(out, "pj_middle", "pj_leaf");
            BOOST_TEST_REQUIRE(ml);
            BOOST_TEST(ml->count == 200u);
            // pj_middle's internal subroutine calls are not calls.
            BOOST_TEST(!find_call(out, "pj_middle", "pj_middle"));
            BOOST_TEST(!find_call(out, "pj_middle", "pj_middle'2"));
            // Recursion stays recursion.
            BOOST_TEST(find_call(out, "pj_fib", "pj_fib'2"));
        }
    }

    // With the jitdump's line table: per-line self costs as the patched core.
    const cg::Profile out = cg::Profile::parse_file(s.jitdump + ".annotated");
    for (const std::string& n : kNamed) {
        std::map<std::pair<std::string, std::uint64_t>, cg::Costs> got, want;
        for (const cg::FunctionCosts* f : out.functions_named(n, true))
            for (const auto& [l, c] : f->lines) {
                auto& g = got[l];
                g.resize(c.size());
                for (std::size_t i = 0; i < c.size(); ++i) g[i] += c[i];
            }
        for (const cg::FunctionCosts* f : patched.functions_named(n, true))
            for (const auto& [l, c] : f->lines) {
                auto& w = want[l];
                w.resize(c.size());
                for (std::size_t i = 0; i < c.size(); ++i) w[i] += c[i];
            }
        BOOST_TEST(got == want, n << ": per-line costs differ from the patched Valgrind's");
        for (const cg::FunctionCosts* f : out.functions_named(n, true))
            BOOST_TEST(f->key.file == "/virtual/perfmap_jit.src");
    }
    std::remove(s.jitdump.c_str());
    std::remove(ref.jitdump.c_str());
}

BOOST_AUTO_TEST_CASE(stock_profile_with_jumps_and_cache_events,
                     *utf::precondition(stock_valgrind_available)) {
    TempDir dir("vgjit-annotate-e2e");
    const JitRun s = profile_run(dir, stock_valgrind(), "stock",
                                 {"--dump-instr=yes", "--collect-jumps=yes", "--cache-sim=yes"});
    const cg::Profile in = cg::Profile::parse_file(s.profile);
    BOOST_TEST_REQUIRE(in.events().size() > 1u);
    BOOST_TEST_REQUIRE(contains(read_file(s.profile), "\njcnd="));
    const std::string out_path = s.profile + ".annotated";
    const Result r = annotate({"--map", s.perfmap, s.profile, "-o", out_path});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile out = cg::Profile::parse_file(out_path);
    check_common(in, out, out_path, s.perfmap);
    // pj_leaf's loop: its conditional jump inside the function, no jfn=.
    BOOST_TEST(contains(read_file(out_path), "\njcnd="));
}

BOOST_AUTO_TEST_CASE(stock_profile_without_dump_instr,
                     *utf::precondition(stock_valgrind_available)) {
    TempDir dir("vgjit-annotate-e2e");
    const JitRun s = profile_run(dir, stock_valgrind(), "stock", {});
    const JitRun ref = profile_run(dir, valgrind(), "patched", {"--dump-instr=yes"});
    const cg::Profile in = cg::Profile::parse_file(s.profile);
    const cg::Profile patched = cg::Profile::parse_file(ref.profile);
    const std::string out_path = s.profile + ".annotated";
    const Result r = annotate({"--map", s.perfmap, s.profile, "-o", out_path});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "warning: no instruction addresses"), r.err);
    const cg::Profile out = cg::Profile::parse_file(out_path);
    check_common(in, out, out_path, s.perfmap,
                 {"pj_leaf", "pj_middle", "pj_top", "pj_fib", "pj_moved"});
    // Approximate: pj_tail is reached by a tail jump, so its cost stays in
    // pj_top, the function entered by the call.  Functions without tail
    // jumps into them are still exact.
    for (const std::string n : {"pj_leaf", "pj_middle", "pj_fib", "pj_moved"})
        BOOST_TEST(self_of(out, n, "Ir") == self_of(patched, n, "Ir"), n);
    BOOST_TEST(self_of(out, "pj_tail", "Ir") == 0u);
    BOOST_TEST(self_of(out, "pj_top", "Ir") ==
               self_of(patched, "pj_top", "Ir") + self_of(patched, "pj_tail", "Ir"));
    std::remove(s.jitdump.c_str());
    std::remove(ref.jitdump.c_str());
}

}  // namespace
