// integration_producers.cpp - the core following the files JITs write for
// Linux perf, end to end: jitdump files (jit-<pid>.dump, followed once the
// process maps one) and perf maps (/tmp/perf-<pid>.map, with
// --jit-perf-map=yes).  Two producers run natively and under the staged
// Callgrind and Memcheck, and the tests parse what those write:
//
//  * tests/jitdump_producer, our own xbyak JIT: exact instruction counts
//    for names that arrive late, CODE_MOVE, line tables, truncated and
//    malformed files, perf maps written in pieces, symlinked maps;
//  * Node.js (a producer nobody here wrote; skipped, as a failed
//    precondition, without `node` on $PATH or $VGJIT_NODE)
//    with --perf-basic-prof and --perf-prof, running
//    tests/fixtures/node/fib.js: how much of the jitted code gets a name.

#define BOOST_TEST_MODULE integration_producers
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <fstream>
#include <map>
#include <filesystem>
#include <regex>
#include <thread>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;
using cg::line_cost;

namespace {

std::string producer() {
    return env_or("VGJIT_JITDUMP_PRODUCER", tests_builddir() + "/jitdump_producer");
}
std::string fib_js() { return absolute(srcdir() + "/tests/fixtures/node/fib.js"); }

/// A jitted function as the producer reports it on stderr.
struct FnRange {
    std::uint64_t addr = 0;
    std::uint64_t size = 0;
    bool contains(std::uint64_t a) const { return addr <= a && a < addr + size; }
};

/// "fn NAME 0xADDR SIZE" lines of jitdump_producer's stderr.
std::map<std::string, FnRange> function_ranges(const std::string& err) {
    std::map<std::string, FnRange> out;
    std::istringstream in(err);
    std::string line;
    static const std::regex re(R"(^fn (.+) 0x([0-9a-f]+) (\d+)$)");
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, re))
            out[m[1]] = FnRange{std::stoull(m[2], nullptr, 16), std::stoull(m[3])};
    }
    return out;
}

/// Instructions one call of a producer "sum" function executes: 3n + 3
/// (see jitdump_producer.cpp), `mover` one more.
constexpr std::uint64_t sum_call(std::uint64_t n) { return 3 * n + 3; }

/// One run of the producer under Valgrind in a scratch directory.
struct ProducerRun {
    Result native;
    Result vg;
    std::map<std::string, FnRange> fns;
};

/// Runs `mode` natively and under Valgrind with `args`, both in `dir`;
/// requires both to succeed and to print the same stdout.
ProducerRun run_producer(const TempDir& dir, const std::string& mode,
                         const std::vector<std::string>& args) {
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 120;
    ProducerRun r;
    r.native = run({producer(), mode}, opt);
    BOOST_TEST_REQUIRE(r.native.status == 0, r.native);
    r.vg = run_valgrind(args, {producer(), mode}, opt);
    BOOST_TEST_REQUIRE(r.vg.status == 0, r.vg);
    BOOST_TEST(r.vg.out == r.native.out, "stdout natively and under Valgrind");
    BOOST_TEST(!r.native.out.empty());
    r.fns = function_ranges(r.vg.err);
    return r;
}

/// Callgrind options writing instruction-level costs to `out`.
std::vector<std::string> callgrind_args(const std::string& out,
                                        std::vector<std::string> extra = {}) {
    std::vector<std::string> a{"--tool=callgrind", "--dump-instr=yes",
                               "--callgrind-out-file=" + out};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

/// The (only) function named `name` (any recursion depth merged is not
/// needed here: the producer's functions do not recurse).
const cg::FunctionCosts* function_named(const cg::Profile& p, const std::string& name) {
    const auto v = p.functions_named(name);
    BOOST_TEST(v.size() <= 1u, name << " appears " << v.size() << " times");
    return v.empty() ? nullptr : v.front();
}

/// Ir at instruction addresses inside `r`, summed over functions whose
/// object is "???" (code no DebugInfo describes) or, if `object` is not
/// empty, over functions in `object`.  Needs --dump-instr=yes.
std::uint64_t cost_in_range(const cg::Profile& p, const FnRange& r, const std::string& object) {
    // Code no producer named is in no object ("???"), or named after the
    // code that made it executable, in an object "PATH[jit]".
    const auto unnamed = [](const std::string& o) {
        return o == "???" || (o.size() > 5 && o.compare(o.size() - 5, 5, "[jit]") == 0);
    };
    std::uint64_t c = 0;
    for (const auto& [key, f] : p.functions()) {
        if (object == "???" ? !unnamed(key.object) : key.object != object) continue;
        for (const auto& [addr, costs] : f.instrs)
            if (r.contains(addr)) c += costs.at(0);
    }
    return c;
}

/// Lines of Valgrind's stderr that mention `path` and say "Warning".
std::vector<std::string> warnings_about(const std::string& err, const std::string& path) {
    std::vector<std::string> out;
    std::istringstream in(err);
    std::string line;
    while (std::getline(in, line))
        if (contains(line, "Warning") && contains(line, path)) out.push_back(line);
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// jitdump_producer
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(name_arriving_late_names_earlier_and_later_executions_exactly) {
    // late_fn(1000) runs 1000 times before its CODE_LOAD is in the file and
    // 1000 times after: the translations made without a name are
    // discarded, so the later calls carry the name, and Callgrind gives it
    // to the earlier ones when it dumps (the code is unmapped by then: the
    // name it had last still applies).
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "late", callgrind_args(out));
    BOOST_TEST_REQUIRE(r.fns.count("late_fn") == 1u, r.vg.err);
    const FnRange late = r.fns.at("late_fn");
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    const cg::FunctionCosts* f = function_named(p, "late_fn");
    BOOST_TEST_REQUIRE(f != nullptr);
    BOOST_TEST(f->key.object == dump);
    BOOST_TEST(f->self.at(0) == 2000 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, late, dump) == 2000 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, late, "???") == 0u);
}

BOOST_AUTO_TEST_CASE(name_read_during_a_lookup_names_later_executions_exactly) {
    // late_fn(1000) runs 1000 times unnamed; then the records of late_fn
    // and next_fn are written and next_fn runs at once: the lookup of its
    // name reads the file, in the middle of a translation, where nothing
    // may be discarded.  late_fn's old translations must go at the next
    // scheduler point, before its 1000 later calls.  Callgrind gives the
    // name to the earlier calls too when it dumps, so the profile alone
    // cannot tell whether they went: Valgrind's debug log (-d -d) names
    // every discard and who asked for it.
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "late-lookup", callgrind_args(out, {"-d", "-d"}));
    BOOST_TEST_REQUIRE(r.fns.count("late_fn") == 1u, r.vg.err);
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    const cg::FunctionCosts* next = function_named(p, "next_fn");
    BOOST_TEST_REQUIRE(next != nullptr);
    BOOST_TEST(next->self.at(0) == sum_call(1000));
    const FnRange late = r.fns.at("late_fn");
    BOOST_TEST(cost_in_range(p, late, dump) == 2000 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, late, "???") == 0u);
    char discard[96];
    std::snprintf(
        discard, sizeof discard, "discard_translations(0x%llx, %llu) req by jitreg.late_name",
        static_cast<unsigned long long>(late.addr), static_cast<unsigned long long>(late.size));
    BOOST_TEST(r.vg.err.find(discard) != std::string::npos, "no \"" << discard << "\" in the log");
}

BOOST_AUTO_TEST_CASE(code_move_keeps_name_and_line_table) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "move", callgrind_args(out, {"-v"}));
    BOOST_TEST_REQUIRE(r.fns.count("mover") == 1u, r.vg.err);
    BOOST_TEST_REQUIRE(r.fns.count("mover-moved") == 1u, r.vg.err);
    const FnRange a = r.fns.at("mover"), b = r.fns.at("mover-moved");
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    const std::string file = "/virtual/jitdump_producer.src";
    const cg::FunctionCosts* f = function_named(p, "mover");
    BOOST_TEST_REQUIRE(f != nullptr);
    BOOST_TEST(f->key.object == dump);
    BOOST_TEST(f->key.file == file);
    // 1000 calls of mover(500) at A, 1000 at B, then mover(1) at B; each
    // call is 3n + 4 instructions.
    const std::uint64_t per_call = sum_call(500) + 1;
    BOOST_TEST(cost_in_range(p, a, dump) == 1000 * per_call);
    BOOST_TEST(cost_in_range(p, b, dump) == 1000 * per_call + sum_call(1) + 1);
    BOOST_TEST(cost_in_range(p, a, "???") == 0u);
    BOOST_TEST(cost_in_range(p, b, "???") == 0u);
    BOOST_TEST(f->self.at(0) == 2000 * per_call + sum_call(1) + 1);
    // The line table moved with the code: line 10 (2 instructions per
    // call), 11 (the loop), 12 (the read and the return).
    BOOST_TEST(line_cost(*f, file, 10) == 2u * 2001);
    BOOST_TEST(line_cost(*f, file, 11) == 3u * (2000 * 500 + 1));
    BOOST_TEST(line_cost(*f, file, 12) == 2u * 2001);
    BOOST_TEST(contains(r.vg.err, "1 loaded, 1 moved, 0 refused, 0 malformed"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(memcheck_names_moved_jitdump_code_with_file_and_line) {
    TempDir dir;
    const ProducerRun r = run_producer(dir, "move", {"--tool=memcheck"});
    static const std::regex frame(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: mover \(jitdump_producer\.src:12\))");
    BOOST_TEST(std::regex_search(r.vg.err, frame), r.vg.err);
    BOOST_TEST(contains(r.vg.err, "ERROR SUMMARY: 1 errors from 1 contexts"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(truncated_final_record_leaves_earlier_names) {
    // Three good CODE_LOADs, then one cut in half: a producer that died
    // mid-write.  Each function runs 100 x (n = 1000).
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "truncate", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"trunc_a", "trunc_b", "trunc_c"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name);
        BOOST_TEST(f->key.object == dump);
        BOOST_TEST(f->self.at(0) == 100 * sum_call(1000), name);
    }
    BOOST_TEST(p.functions_named("trunc_d").empty());
    BOOST_TEST_REQUIRE(r.fns.count("trunc_d") == 1u);
    BOOST_TEST(cost_in_range(p, r.fns.at("trunc_d"), "???") == 100 * sum_call(1000));
    // Nothing fatal: no warning about the file, it was not given up.
    BOOST_TEST(warnings_about(r.vg.err, dump).empty(), r.vg.err);
    BOOST_TEST(!contains(r.vg.err, "stopped following"), r.vg.err);
    BOOST_TEST(contains(r.vg.err, "JIT: 3 registered"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(malformed_records_between_good_ones_are_skipped_with_warnings) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "garbage", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"good_one", "good_two"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name);
        BOOST_TEST(f->key.object == dump);
        BOOST_TEST(f->self.at(0) == 100 * sum_call(1000), name);
        // good_two's line table was malformed: no file.
        BOOST_TEST(f->key.file == "???", name);
    }
    // The code announced with an empty name (and by the other bad records)
    // stays unnamed.
    BOOST_TEST_REQUIRE(r.fns.count("no_name") == 1u);
    BOOST_TEST(cost_in_range(p, r.fns.at("no_name"), "???") == 100 * sum_call(1000));
    BOOST_TEST(p.functions_named("liar_name").empty());
    BOOST_TEST(p.functions_named("zero_size").empty());
    BOOST_TEST(p.functions_named("wraps").empty());
    const auto warnings = warnings_about(r.vg.err, dump);
    const std::vector<std::string> expected = {
        "offset 122: CODE_LOAD function name is not NUL-terminated within the record "
        "(total_size 60) or is longer than 64 KiB",
        "offset 222: CODE_LOAD with an empty name ignored",
        "offset 296: CODE_LOAD with code_size 0 ignored",
        "offset 362: code address + code size wraps around the address space: CODE_LOAD "
        "code_addr 0xfffffffffffff000, code_size 0x2000",
        "offset 440: CODE_DEBUG_INFO nr_entry is larger than the record can hold: nr_entry "
        "1000000, 111 bytes of entries, each at least 17",
        "offset 583: CODE_MOVE 0x1000 -> ",
    };
    BOOST_TEST(warnings.size() == expected.size(), r.vg.err);
    for (const auto& w : expected) {
        bool found = false;
        for (const auto& line : warnings) found = found || contains(line, w);
        BOOST_TEST(found, "warning \"" << w << "\" in\n" << r.vg.err);
    }
    // The unknown record id 42 is skipped silently, as the format asks.
    BOOST_TEST(contains(r.vg.err, "(CODE_CLOSE): 2 loaded, 0 moved, 1 refused, 5 malformed"),
               r.vg.err);
    BOOST_TEST(contains(r.vg.err, "refused: nothing registered there"), r.vg.err);
    // Without -v, nothing about the file.
    const std::string quiet_out = dir.file("callgrind.quiet");
    const Result quiet = run_valgrind(callgrind_args(quiet_out), {producer(), "garbage"},
                                      RunOptions{120, dir.path(), {}});
    BOOST_TEST(quiet.status == 0, quiet);
    BOOST_TEST(!contains(quiet.err, "Warning"), quiet.err);
}

/// The numbers of the -v exit summary line matching `re` (one capture group
/// per number), or an empty vector if no line matches.
std::vector<std::uint64_t> summary_numbers(const std::string& err, const std::regex& re) {
    std::smatch m;
    std::vector<std::uint64_t> v;
    if (std::regex_search(err, m, re))
        for (std::size_t i = 1; i < m.size(); ++i) v.push_back(std::stoull(m[i]));
    return v;
}

BOOST_AUTO_TEST_CASE(summary_counts_every_record_once_and_add_up) {
    // jitdump_producer counts writes 23 records after the header: 3 loaded,
    // 14 refused (12 in ELF text, 1 too big, 1 CODE_MOVE of nothing), 2
    // malformed, 3 without code, and 1 at memory that is not executable,
    // which waits for its code (and never sees it).
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "counts", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"count_a", "count_b", "count_c"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name);
        BOOST_TEST(f->self.at(0) == 10 * sum_call(100), name);
    }
    const auto file = summary_numbers(
        r.vg.err, std::regex("JIT: jitdump file " + dump +
                             R"(: (\d+) records read: (\d+) loaded, (\d+) moved, (\d+) refused, )"
                             R"((\d+) malformed, (\d+) without code, (\d+) late names for )"
                             R"(unmapped code, (\d+) waited for executable code)"));
    BOOST_TEST_REQUIRE(file.size() == 8u, r.vg.err);
    BOOST_TEST(file[0] == 23u);
    BOOST_TEST(file[1] == 3u);
    BOOST_TEST(file[2] == 0u);
    BOOST_TEST(file[3] == 14u);
    BOOST_TEST(file[4] == 2u);
    BOOST_TEST(file[5] == 3u);
    BOOST_TEST(file[6] == 0u);
    BOOST_TEST(file[7] == 1u);
    BOOST_TEST(file[0] == file[1] + file[2] + file[3] + file[4] + file[5] + file[6] + file[7]);
    // The refusals by reason, per file and over the run.
    const std::string reasons =
        "1 bad address range, "
        "12 range overlaps the text of a loaded object, "
        "1 nothing registered there";
    BOOST_TEST(contains(r.vg.err, "JIT: jitdump file " + dump + " refused: " + reasons), r.vg.err);
    BOOST_TEST(contains(r.vg.err, "JIT: refused: " + reasons), r.vg.err);
    const auto total = summary_numbers(
        r.vg.err, std::regex(R"(JIT: (\d+) registered, (\d+) unregistered, (\d+) replaced, )"
                             R"((\d+) unmapped, (\d+) refused,)"));
    BOOST_TEST_REQUIRE(total.size() == 5u, r.vg.err);
    BOOST_TEST(total[0] == 3u);
    BOOST_TEST(total[4] == 14u);
    // 16 problems: 10 printed, the other 6 counted and said so at exit.
    BOOST_TEST(warnings_about(r.vg.err, dump).size() == 10u + 1u, r.vg.err);  // + "only counted"
    BOOST_TEST(
        contains(r.vg.err, "JIT: jitdump file " + dump + ": 6 further problems were only counted"),
        r.vg.err);
}

BOOST_AUTO_TEST_CASE(a_jitdump_mapped_before_its_header_is_followed_once_it_has_one) {
    // JavaScriptCore maps jit-<N>-<pid>.dump while it is empty and writes
    // the header after: the file is looked at again until it has one.
    // empty.bin, mapped executable and never written, goes unmentioned.
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "header-after-mapping", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    for (const std::string name : {"late_header_a", "late_header_b"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name + "\n" + r.vg.err);
        BOOST_TEST(f->self.at(0) == 10 * sum_call(100), name);
        static const std::regex bun_like(R"(/jit-\d+-\d+\.dump$)");
        BOOST_TEST(std::regex_search(f->key.object, bun_like), f->key.object);
    }
    BOOST_TEST(!contains(r.vg.err, "empty.bin"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(records_written_together_are_each_named_or_refused_as_alone) {
    // jitdump_producer run-gap writes five CODE_LOADs at rising addresses
    // in two writes: run_a, run_e (which ran before its record); in_gap
    // (not code), run_c, run_d.  Each ends as it would alone: four loaded
    // with exact costs, in_gap waiting for its page to become executable,
    // which it never does.
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "run-gap", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string dump = dir.path() + "/jit-" + p.header().at("pid") + ".dump";
    for (const std::string name : {"run_a", "run_c", "run_d"}) {
        const cg::FunctionCosts* f = function_named(p, name);
        BOOST_TEST_REQUIRE(f != nullptr, name + "\n" + r.vg.err);
        BOOST_TEST(f->key.object == dump, name);
        BOOST_TEST(f->self.at(0) == 10 * sum_call(100), name);
    }
    const cg::FunctionCosts* e = function_named(p, "run_e");
    BOOST_TEST_REQUIRE(e != nullptr, r.vg.err);
    BOOST_TEST(e->self.at(0) == 20 * sum_call(100));
    BOOST_TEST(function_named(p, "in_gap") == nullptr);
    const auto file = summary_numbers(
        r.vg.err, std::regex("JIT: jitdump file " + dump +
                             R"(: (\d+) records read: (\d+) loaded, (\d+) moved, (\d+) refused, )"
                             R"((\d+) malformed, (\d+) without code, (\d+) late names for )"
                             R"(unmapped code, (\d+) waited for executable code)"));
    BOOST_TEST_REQUIRE(file.size() == 8u, r.vg.err);
    BOOST_TEST(file[0] == 6u);  // and CODE_CLOSE
    BOOST_TEST(file[1] == 4u);
    BOOST_TEST(file[3] == 0u);
    BOOST_TEST(file[7] == 1u);
    BOOST_TEST(warnings_about(r.vg.err, dump).empty(), r.vg.err);
    static const std::regex never(R"(JIT: never became code: in_gap at 0x[0-9a-f]+ \(64 bytes, )");
    BOOST_TEST(std::regex_search(r.vg.err, never), r.vg.err);
    // run_e's code was translated before its record came: it is
    // translated again under its name, which Callgrind matches when it
    // makes a block's function.  Collecting only inside run_e counts
    // exactly its 10 calls after the record.
    const std::string only = dir.file("callgrind.only");
    const ProducerRun t =
        run_producer(dir, "run-gap", callgrind_args(only, {"--toggle-collect=run_e"}));
    const cg::Profile q = cg::Profile::parse_file(only);
    const cg::FunctionCosts* collected = function_named(q, "run_e");
    BOOST_TEST_REQUIRE(collected != nullptr, t.vg.err);
    BOOST_TEST(collected->self.at(0) == 10 * sum_call(100));
}

/// True if every byte of `s` is printable ASCII.
static bool printable_ascii(const std::string& s) {
    for (unsigned char c : s)
        if (c < 0x20 || c >= 0x7f) return false;
    return true;
}

BOOST_AUTO_TEST_CASE(junk_names_are_escaped_and_junk_file_names_never_shown) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "junk-names", callgrind_args(out, {"-v"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    // The name's control characters and its non-UTF-8 byte are escaped.
    const cg::FunctionCosts* named = function_named(p, R"(junk_\x01name\x7f\xff)");
    BOOST_TEST_REQUIRE(named != nullptr, r.vg.err);
    BOOST_TEST(named->self.at(0) == 100 * sum_call(1000));
    // The junk file name is no file: its entry is dropped, so the loop
    // counts under line 50 of the good file; the other two entries stay.
    const std::string ok = "/virtual/ok.src";
    const cg::FunctionCosts* lined = function_named(p, "junk_file");
    BOOST_TEST_REQUIRE(lined != nullptr);
    BOOST_TEST(lined->key.file == ok);
    BOOST_TEST(line_cost(*lined, ok, 50) == 100u * (2 + 3 * 1000));
    BOOST_TEST(line_cost(*lined, ok, 51) == 0u);
    BOOST_TEST(line_cost(*lined, ok, 52) == 100u);
    for (const auto& [key, f] : p.functions()) {
        BOOST_TEST(printable_ascii(key.file), key.file);
        BOOST_TEST(printable_ascii(key.name), key.name);
        for (const auto& [pos, costs] : f.lines) BOOST_TEST(printable_ascii(pos.first), pos.first);
    }
    BOOST_TEST(contains(r.vg.err,
                        "JIT: 1 names escaped and 1 source file names ignored "
                        "(not UTF-8, or with control characters)"),
               r.vg.err);
    // The record that lost the entry says so once, with the count and why.
    static const std::regex dropped(
        R"(Warning: \S+/jit-\d+\.dump:offset \d+: CODE_LOAD junk_file at 0x[0-9a-f]+ \(\d+ bytes\): )"
        R"(line-table entries dropped: 1 of 3: 1 whose file name is not UTF-8 or has control characters\n)");
    BOOST_TEST(std::regex_search(r.vg.err, dropped), r.vg.err);
    BOOST_TEST(count_of(r.vg.err, "line-table entries dropped: ") == 1u, r.vg.err);
}

namespace {

/// A process started in the background with stdout and stderr going to
/// files; killed (SIGKILL) and reaped on destruction if still running.
class Background {
public:
    Background(const std::vector<std::string>& argv, const TempDir& dir)
        : out_(dir.file("bg.out")), err_(dir.file("bg.err")) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        const std::string cwd = dir.path();
        char* const* envp = environ;
        // posix_spawn has no cwd action before glibc 2.29's _np one: chdir
        // around the spawn instead (tests run single-threaded).
        char old[4096];
        if (!getcwd(old, sizeof old)) old[0] = 0;
        if (chdir(cwd.c_str()) != 0) throw std::runtime_error("chdir " + cwd);
        const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), envp);
        if (old[0] && chdir(old) != 0) throw std::runtime_error("chdir back");
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
        note_started(pid_);
    }
    ~Background() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    pid_t pid() const { return pid_; }
    std::string err() const { return read_file(err_); }
    std::string out() const { return read_file(out_); }
    /// Waits until stderr contains `what` (true) or `seconds` passed.
    bool wait_for(const std::string& what, int seconds) const {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (std::chrono::steady_clock::now() < end) {
            if (contains(err(), what)) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }
    /// Waits for the exit (at most `seconds`); returns the exit status or -1.
    int wait(int seconds) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (std::chrono::steady_clock::now() < end) {
            int st = 0;
            if (waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return -1;
    }

private:
    std::string out_, err_;
    pid_t pid_ = -1;
};

/// "0xSTART-0xEND NAME (OBJECT), N line entries" for a v.info jit line.
std::string listed_line(const FnRange& f, const std::string& name, const std::string& object,
                        unsigned lines) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%llx-0x%llx ", static_cast<unsigned long long>(f.addr),
                  static_cast<unsigned long long>(f.addr + f.size));
    return buf + name + " (" + object + "), " + std::to_string(lines) + " line entries";
}

}  // namespace

BOOST_AUTO_TEST_CASE(vgdb_v_info_jit_lists_live_kept_and_waiting_functions_and_followed_files) {
    TempDir dir;
    const std::string vgdb = stage() + "/bin/vgdb";
    BOOST_TEST_REQUIRE(access(vgdb.c_str(), X_OK) == 0, vgdb);
    Background vg({valgrind(), "--tool=none", "--vgdb=yes",
                   "--vgdb-prefix=" + dir.file("vgdb-pipe"), "--", producer(), "hold"},
                  dir);
    BOOST_TEST_REQUIRE(vg.wait_for("ready", 120), vg.err());
    const auto fns = function_ranges(vg.err());
    BOOST_TEST_REQUIRE(fns.count("hold_a") == 1u);
    BOOST_TEST_REQUIRE(fns.count("hold_b") == 1u);
    const std::string dump = dir.path() + "/jit-" + std::to_string(vg.pid()) + ".dump";
    const auto query = [&](const std::vector<std::string>& words) {
        std::vector<std::string> argv{vgdb, "--pid=" + std::to_string(vg.pid()),
                                      "--vgdb-prefix=" + dir.file("vgdb-pipe")};
        std::string cmd = "v.info jit";
        for (const auto& w : words) cmd += " " + w;
        argv.push_back(cmd);
        RunOptions opt;
        opt.timeout_seconds = 60;
        return run(argv, opt);
    };
    const std::string a = listed_line(fns.at("hold_a"), "hold_a", dump, 3);
    const std::string b = listed_line(fns.at("hold_b"), "hold_b", dump, 0);
    BOOST_TEST_REQUIRE(fns.count("hold_kept") == 1u);
    const std::string kept = listed_line(fns.at("hold_kept"), "hold_kept", "[jit]", 0) +
                             ", kept after its unregistration (code still mapped)\n";

    const Result all = query({});
    BOOST_TEST(all.status == 0, all);
    BOOST_TEST(contains(all.out, a + "\n"), all);
    BOOST_TEST(contains(all.out, b + "\n"), all);
    // Unregistered code that stays mapped keeps its name, marked and
    // counted apart from registered code.
    BOOST_TEST(contains(all.out, kept), all);
    BOOST_TEST(
        contains(all.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 3 listed here"),
        all);
    // The name whose page is not executable waits.
    static const std::regex waiting(
        R"(0x[0-9a-f]+-0x[0-9a-f]+ hold_wait \(.*\), waiting: not executable yet\n)");
    BOOST_TEST(std::regex_search(all.out, waiting), all);
    BOOST_TEST(contains(all.out, "JIT: 1 names waiting for their code, listed here"), all);
    BOOST_TEST(
        contains(all.out, "JIT: following jitdump file " + dump +
                              ": 4 records read: "
                              "2 loaded, 0 moved, 0 refused, 0 malformed, 1 without code, "
                              "0 late names for unmapped code, 1 waited for executable code"),
        all);

    char range[64];
    std::snprintf(range, sizeof range, "0x%llx",
                  static_cast<unsigned long long>(fns.at("hold_b").addr + 1));
    const Result one = query({range, "2"});
    BOOST_TEST(one.status == 0, one);
    BOOST_TEST(!contains(one.out, a), one);
    BOOST_TEST(contains(one.out, b), one);
    BOOST_TEST(
        contains(one.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 1 listed here"),
        one);

    const Result by_object = query({"object", dump});
    BOOST_TEST(contains(by_object.out, a), by_object);
    BOOST_TEST(
        contains(by_object.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 2 listed here"),
        by_object);
    const Result other_object = query({"object", "/nonexistent"});
    BOOST_TEST(
        contains(other_object.out,
                 "JIT: 2 functions live and 1 kept after their unregistration, 0 listed here"),
        other_object);
    const Result bad = query({"nonsense"});
    BOOST_TEST(contains(bad.out, "v.info jit: malformed address nonsense"), bad);

    std::ofstream(dir.file("stop")).put('\n');
    BOOST_TEST(vg.wait(120) == 0, vg.err());
    BOOST_TEST(contains(vg.out(), "hold done"));
}

BOOST_AUTO_TEST_CASE(perf_map_written_in_pieces_is_followed_with_the_option) {
    // pm_one's line is complete from the start; pm_two's line is written in
    // two halves with 100 calls of each function in between, then 100 more
    // calls of each: all 200 calls of each are named (pm_two's first 100
    // when Callgrind dumps).
    const std::string two = "pm_two (tier 2) [x.js:7]";
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "perfmap", callgrind_args(out, {"--jit-perf-map=yes"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    const cg::FunctionCosts* one = function_named(p, "pm_one");
    const cg::FunctionCosts* second = function_named(p, two);
    BOOST_TEST_REQUIRE(one != nullptr);
    BOOST_TEST_REQUIRE(second != nullptr);
    BOOST_TEST(one->key.object == map);
    BOOST_TEST(second->key.object == map);
    BOOST_TEST(one->self.at(0) == 200 * sum_call(1000));
    BOOST_TEST(second->self.at(0) == 200 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, r.fns.at(two), "???") == 0u);

    // Without --jit-perf-map=yes the map is not read.
    const std::string plain_out = dir.file("callgrind.plain");
    const Result plain = run_valgrind(callgrind_args(plain_out), {producer(), "perfmap"},
                                      RunOptions{120, dir.path(), {}});
    BOOST_TEST_REQUIRE(plain.status == 0, plain);
    BOOST_TEST(plain.out == r.native.out);
    const cg::Profile q = cg::Profile::parse_file(plain_out);
    BOOST_TEST(q.functions_named("pm_one").empty());
    BOOST_TEST(q.functions_named(two).empty());
    const auto fns = function_ranges(plain.err);
    BOOST_TEST(cost_in_range(q, fns.at("pm_one"), "???") == 200 * sum_call(1000));
}

BOOST_AUTO_TEST_CASE(perf_map_that_is_a_symlink_is_ignored_with_a_warning) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r =
        run_producer(dir, "perfmap-symlink", callgrind_args(out, {"--jit-perf-map=yes"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    BOOST_TEST(p.functions_named("symlinked_map").empty());
    BOOST_TEST(cost_in_range(p, r.fns.at("symlinked_map"), "???") == 100 * sum_call(1000));
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    BOOST_TEST(!warnings_about(r.vg.err, map).empty(), "no warning about " << map << " in\n"
                                                                           << r.vg.err);
}

namespace {

/// Boost.Test precondition: whether this process can give a file to
/// another user (uid and gid 65534, "nobody"), as jitdump_producer's
/// perfmap-foreign mode does: true as root (or with CAP_CHOWN) unless this
/// process is uid 65534, else false with the reason, so the case is
/// reported as skipped.
boost::test_tools::assertion_result can_give_files_away(boost::unit_test::test_unit_id) {
    if (::geteuid() == 65534) {
        boost::test_tools::assertion_result no(false);
        no.message() << "running as uid 65534 itself; run as root";
        return no;
    }
    TempDir dir;
    const std::string probe = dir.file("probe");
    const int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY, 0600);
    boost::test_tools::assertion_result ok(fd >= 0 && ::fchown(fd, 65534, 65534) == 0);
    if (!ok)
        ok.message() << "cannot give a file to uid 65534 (" << std::strerror(errno)
                     << "); run as root";
    if (fd >= 0) ::close(fd);
    return ok;
}

}  // namespace

BOOST_AUTO_TEST_CASE(perf_map_owned_by_another_user_is_ignored_with_a_warning,
                     *boost::unit_test::precondition(can_give_files_away)) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r =
        run_producer(dir, "perfmap-foreign", callgrind_args(out, {"--jit-perf-map=yes"}));
    BOOST_TEST_REQUIRE(!contains(r.native.err, "skip:"), r.native.err);
    BOOST_TEST_REQUIRE(!contains(r.vg.err, "skip:"), r.vg.err);
    const cg::Profile p = cg::Profile::parse_file(out);
    BOOST_TEST(p.functions_named("foreign_map").empty());
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    BOOST_TEST(contains(r.vg.err, "Warning: " + map +
                                      " is not a regular file owned by this user or root: "
                                      "ignored"),
               r.vg.err);
}

// ---------------------------------------------------------------------------
// Node.js
// ---------------------------------------------------------------------------

namespace {

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

BOOST_AUTO_TEST_CASE(jitdump_named_otherwise_is_followed_by_its_header) {
    // names early dump with the file in a subdirectory as Bun names its
    // (jit-<N>-<pid>.dump), or under a name of its own: found by the
    // jitdump header its mapping holds, with this process's pid.
    for (const std::string tmpl : {"sub/jit-7-{pid}.dump", "profile-{pid}.data"}) {
        BOOST_TEST_CONTEXT("path " << tmpl) {
            TempDir dir;
            std::filesystem::create_directory(dir.file("sub"));
            RunOptions opt;
            opt.cwd = dir.path();
            opt.env["JITDUMP_PRODUCER_PATH"] = tmpl;
            const std::string out = dir.file("callgrind.out");
            const Result r = run_valgrind(callgrind_args(out, {"-v"}),
                                          {producer(), "names", "early", "dump"}, opt);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            static const std::regex following(R"(JIT: following jitdump file \S+)");
            BOOST_TEST(std::regex_search(r.err, following), r.err);
            const cg::Profile p = cg::Profile::parse_file(out);
            for (const std::string name : {"names_top", "names_middle", "names_leaf"}) {
                const auto* f = function_named(p, name);
                BOOST_TEST(f != nullptr, name << " not named");
            }
            // No other mapped file (the program, its libraries) was
            // taken for one, and none was warned about.
            BOOST_TEST(!contains(r.err, "not a jitdump file"), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(file_named_like_a_jitdump_that_is_not_one_gets_a_verbose_warning) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    const Result g = run_valgrind({"--tool=none", "-v"}, {producer(), "bad-named", "garbage"}, opt);
    BOOST_TEST_REQUIRE(g.status == 0, g);
    static const std::regex garbage(
        R"(Warning: \S*jit-\d+\.dump: not a jitdump file: the first 4 bytes are not the )"
        R"(magic "JiTD" \([^)]*\): not followed)");
    BOOST_TEST(std::regex_search(g.err, garbage), g.err);
    // Without -v: nothing.
    const Result q = run_valgrind({"--tool=none"}, {producer(), "bad-named", "garbage"}, opt);
    BOOST_TEST_REQUIRE(q.status == 0, q);
    BOOST_TEST(!contains(q.err, "Warning"), q.err);
    const Result s = run_valgrind({"--tool=none", "-v"}, {producer(), "bad-named", "short"}, opt);
    BOOST_TEST_REQUIRE(s.status == 0, s);
    static const std::regex shorter(
        R"(Warning: \S*jit-\d+\.dump: its header is incomplete \(20 of 40 bytes\): )"
        R"(no record read)");
    BOOST_TEST(std::regex_search(s.err, shorter), s.err);
}

BOOST_AUTO_TEST_CASE(garbage_perf_map_counts_every_line_it_reads) {
    // Three malformed lines, the last without its '\n' (parsed at exit):
    // three lines read, three malformed.
    const Result r = run_valgrind(
        {"--tool=none", "-v", "--jit-perf-map=yes"},
        {"/bin/sh", "-c", "printf 'garbage line\\nmore garbage here\\nzz' > /tmp/perf-$$.map"});
    remove_tmp_files_of(r.pid);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex summary(
        R"(JIT: perf map (/tmp/perf-\d+\.map): (\d+) lines read: 0 loaded, 0 moved, 0 refused, )"
        R"((\d+) malformed, 0 without code)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, summary), r.err);
    BOOST_TEST(m[2].str() == "3");
    BOOST_TEST(m[3].str() == "3");
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
