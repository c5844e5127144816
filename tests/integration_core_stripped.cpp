// integration_core_stripped.cpp - integration_core's cases of a stripped
// executable (tests/strippedmap) that names its own functions in a perf
// map, early, late or stale: Memcheck's stacks, Cachegrind's and
// Callgrind's late names, stock Callgrind's calls; integration_core.cpp
// says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_core.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

using namespace vgjit::test;
using namespace core_test;

namespace {

/// tests/strippedmap stripped into dir (its perf map is the only name
/// source for its own functions).
std::string stripped_map_program(const TempDir& dir) {
    const std::string stripped = dir.file("strippedmap-stripped");
    const Result s = run({"/usr/bin/strip", "-o", stripped, tests_builddir() + "/strippedmap"});
    BOOST_TEST_REQUIRE(s.status == 0, s);
    return stripped;
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

/// Runs the stripped strippedmap `prog` in mode `how` under stock
/// Callgrind, writing DIR/callgrind.stock; removes its map.
cg::Profile stock_callgrind(const TempDir& dir, const std::string& prog, const std::string& how) {
    const std::string stock_out = dir.file("callgrind.stock");
    const Result s = run({stock_valgrind(), "--tool=callgrind", "--callgrind-out-file=" + stock_out,
                          "--", prog, how});
    remove_tmp_files_of(s.pid);
    BOOST_TEST_REQUIRE(s.status == 0, s);
    return cg::Profile::parse_file(stock_out);
}

/// The calls of `p`, all edges summed.
std::uint64_t total_calls(const cg::Profile& p) {
    std::uint64_t n = 0;
    for (const auto& [edge, e] : p.calls()) n += e.count;
    return n;
}

/// The calls between the client's functions of known objects, by (caller
/// object, caller, callee object, callee).  Valgrind's own preloads are
/// left out: they differ by install path and build.
std::map<std::vector<std::string>, std::uint64_t> client_edges(const cg::Profile& profile) {
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
}

}  // namespace

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
    const cg::Profile stock = stock_callgrind(dir, prog, "late");
    const std::uint64_t stock_calls = total_calls(stock), patched_calls = total_calls(p);
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
