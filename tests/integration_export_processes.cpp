// integration_export_processes.cpp - `vg-jit export` and `vg-jit profiles`
// on a real multi-process run: multiproc (tests/multiproc.c) forks and
// execs itself twice under the staged Callgrind with --trace-children=yes,
// one child running JIT code registered through <valgrind/jit.h>, the
// other the same loop in C, and each of the three processes writes its
// callgrind.out.<pid>.  The Firefox profile of all three, loaded by the
// profiler's own loader (profiler-cli, as in integration_export.cpp), must
// hold one process per pid, named after its command, with the JIT
// category's samples equal to the JIT code's cost in the profile; folded
// stacks start with their process; `profiles` lists the three with their
// totals and JIT costs as the profiles give them.
//
// Environment (besides test_support.hpp's):
//   VGJIT_PROFILER_CLI  profiler-cli's script (default:
//                       $VGJIT_SRCDIR/npm-tools/node_modules/.bin/profiler-cli)
//   VGJIT_MULTIPROC     overrides the multiproc binary

#define BOOST_TEST_MODULE integration_export_processes
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "profiler_cli.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace cg = vgjit::callgrind;
using nlohmann::json;
using vgjit::test::env_or;
using vgjit::test::profiler_cli_available;
using vgjit::test::ProfilerCli;
using vgjit::test::Result;
using vgjit::test::run_checked;
using vgjit::test::RunOptions;
using vgjit::test::srcdir;
using vgjit::test::TempDir;
using vgjit::test::tests_builddir;
using vgjit::test::vg_jit;

namespace {

std::string multiproc() { return env_or("VGJIT_MULTIPROC", tests_builddir() + "/multiproc"); }

/// One process of the run, from its own profile.
struct Process {
    std::string file, pid, command;
    std::string name;          ///< what vg-jit names it ("multiproc --type=jit")
    std::uint64_t total = 0;   ///< its "totals:" of Ir
    std::uint64_t jit = 0;     ///< self cost of functions of object "[jit]"
    std::uint64_t native = 0;  ///< self cost in multiproc's native_sum
};

/// The run: multiproc parent 200 under Callgrind, once; its processes by
/// role ("parent", "jit", "native").
const std::map<std::string, Process>& the_run() {
    static TempDir dir("vgjit-export-processes");
    static std::map<std::string, Process> procs;
    if (!procs.empty()) return procs;
    const Result r =
        vgjit::test::run_valgrind({"--tool=callgrind", "--trace-children=yes",
                                   "--callgrind-out-file=" + dir.file("callgrind.out.%p")},
                                  {multiproc(), "parent", "200"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(vgjit::test::contains(r.out, "parent OK"), r);
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
        const cg::Profile p = cg::Profile::parse_file(e.path().string());
        Process proc;
        proc.file = e.path().string();
        proc.pid = p.header().at("pid");
        proc.command = p.header().at("cmd");
        const std::size_t ir = p.event_index("Ir");
        proc.total = p.totals()[ir];
        for (const auto& [key, f] : p.functions()) {
            if (key.object == "[jit]") proc.jit += f.self[ir];
            if (cg::split_context_name(key.name).function == "native_sum")
                proc.native += f.self[ir];
        }
        std::string role = "parent";
        if (vgjit::test::contains(proc.command, "--type=jit")) role = "jit";
        if (vgjit::test::contains(proc.command, "--type=native")) role = "native";
        proc.name = "multiproc " + (role == "parent" ? role : "--type=" + role);
        BOOST_TEST_REQUIRE(procs.emplace(role, proc).second, "two " << role << " processes");
    }
    BOOST_TEST_REQUIRE(procs.size() == 3u);
    return procs;
}

std::vector<std::string> files() {
    std::vector<std::string> f;
    for (const auto& [role, p] : the_run()) f.push_back(p.file);
    return f;
}

Result tool(std::vector<std::string> args) {
    args.insert(args.begin(), vg_jit());
    return run_checked(args);
}

std::uint64_t category_samples(const json& samples, const std::string& category) {
    for (const json& c : samples.at("categoryBreakdown").at("categories"))
        if (c.at("name") == category) return c.at("samples").get<std::uint64_t>();
    return 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(export_processes)

// The run itself: three processes, the JIT child's cost mostly in its JIT
// code, the others' not at all.
BOOST_AUTO_TEST_CASE(the_run_has_three_processes) {
    const auto& procs = the_run();
    BOOST_TEST(procs.at("jit").jit > procs.at("jit").total / 2);
    BOOST_TEST(procs.at("native").jit == 0u);
    BOOST_TEST(procs.at("parent").jit == 0u);
    BOOST_TEST(procs.at("native").native > procs.at("native").total / 2);
}

// profiler-cli shows a process per pid, named after its command, with
// each process's whole cost and the JIT code's cost in category JIT.
BOOST_AUTO_TEST_CASE(firefox_has_a_process_per_pid,
                     *boost::unit_test::precondition(profiler_cli_available)) {
    const auto& procs = the_run();
    static TempDir dir("vgjit-export-processes-out");
    const std::string out = dir.file("run.json");
    std::vector<std::string> args = {"export", "-o", out};
    for (const std::string& f : files()) args.push_back(f);
    const Result r = tool(args);
    BOOST_TEST_REQUIRE(r.status == 0, r);

    ProfilerCli cli(out);
    const json list = cli.query({"thread", "list"});
    BOOST_TEST(list.at("processCount").get<int>() == 3);
    BOOST_TEST_REQUIRE(list.at("threads").size() == 3u, list.dump(1));
    std::map<std::string, std::string> seen;  // pid -> thread handle
    for (const json& t : list.at("threads")) {
        const std::string pid = t.at("pid").get<std::string>();
        const auto it = std::find_if(procs.begin(), procs.end(),
                                     [&](const auto& p) { return p.second.pid == pid; });
        BOOST_TEST_CONTEXT(t.dump()) {
            BOOST_TEST_REQUIRE((it != procs.end()));
            BOOST_TEST(t.at("processName").get<std::string>() == it->second.name);
            BOOST_TEST(t.at("name").get<std::string>() == it->second.name);
            BOOST_TEST(seen.emplace(pid, t.at("threadHandle").get<std::string>()).second);
        }
    }
    for (const auto& [role, p] : procs) {
        BOOST_TEST_CONTEXT(role << " " << p.pid) {
            BOOST_TEST_REQUIRE(seen.count(p.pid) == 1u);
            const json samples = cli.query({"thread", "samples", "--thread", seen.at(p.pid)});
            BOOST_TEST(samples.at("categoryBreakdown").at("totalSamples").get<std::uint64_t>() ==
                       p.total);
            BOOST_TEST(category_samples(samples, "JIT") == p.jit);
        }
    }
}

// Folded stacks start with "NAME [PID]"; each process's lines add up to
// its total.
BOOST_AUTO_TEST_CASE(folded_stacks_start_with_their_process) {
    const auto& procs = the_run();
    std::vector<std::string> args = {"export", "--format=folded"};
    for (const std::string& f : files()) args.push_back(f);
    const Result r = tool(args);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    std::map<std::string, std::uint64_t> sums, jit_leaf;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        const std::size_t semi = line.find(';'), sp = line.rfind(' ');
        BOOST_TEST_REQUIRE((semi != std::string::npos && sp != std::string::npos), line);
        const std::uint64_t w = std::stoull(line.substr(sp + 1));
        sums[line.substr(0, semi)] += w;
        if (line.compare(sp - 8, 8, ";jit_sum") == 0) jit_leaf[line.substr(0, semi)] += w;
    }
    BOOST_TEST(sums.size() == 3u);
    for (const auto& [role, p] : procs) {
        const std::string prefix = p.name + " [" + p.pid + "]";
        BOOST_TEST(sums[prefix] == p.total, prefix);
        BOOST_TEST(jit_leaf[prefix] == p.jit, prefix);
    }
}

// `profiles` lists the three processes, the JIT child first, with the
// profiles' own totals and JIT costs; a directory stands for its files.
BOOST_AUTO_TEST_CASE(profiles_lists_the_jit_process_first) {
    const auto& procs = the_run();
    const std::string dir = std::filesystem::path(procs.at("jit").file).parent_path().string();
    const Result r = tool({"profiles", "--json", dir});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const json j = json::parse(r.out);
    BOOST_TEST(j.at("event") == "Ir");
    const json& list = j.at("processes");
    BOOST_TEST_REQUIRE(list.size() == 3u, r.out);
    BOOST_TEST(list[0].at("pid").get<std::string>() == procs.at("jit").pid);
    for (const json& e : list) {
        const std::string pid = e.at("pid").get<std::string>();
        const auto it = std::find_if(procs.begin(), procs.end(),
                                     [&](const auto& p) { return p.second.pid == pid; });
        BOOST_TEST_CONTEXT(e.dump()) {
            BOOST_TEST_REQUIRE((it != procs.end()));
            const Process& p = it->second;
            BOOST_TEST(e.at("name").get<std::string>() == p.name);
            BOOST_TEST(e.at("command").get<std::string>() == p.command);
            BOOST_TEST(e.at("total").get<std::uint64_t>() == p.total);
            BOOST_TEST(e.at("jit").get<std::uint64_t>() == p.jit);
            const double share = e.at("jit_share").get<double>();
            if (it->first == "jit")
                BOOST_TEST(share > 0.5);
            else
                BOOST_TEST(share == 0.0);
            BOOST_TEST(e.at("files").size() == 1u);
        }
    }
    // The table: a heading, then the JIT process's line first.
    const Result t = tool({"profiles", dir});
    BOOST_TEST_REQUIRE(t.status == 0, t);
    std::istringstream in(t.out);
    std::string head, first;
    std::getline(in, head);
    std::getline(in, first);
    BOOST_TEST(head.find("PID") != std::string::npos, t.out);
    std::istringstream row(first);
    std::string pid;
    row >> pid;
    BOOST_TEST(pid == procs.at("jit").pid, t.out);
    BOOST_TEST(first.size() >= procs.at("jit").name.size());
    BOOST_TEST(first.compare(first.size() - procs.at("jit").name.size(),
                             procs.at("jit").name.size(), procs.at("jit").name) == 0,
               t.out);
}

// The profiles of one process given as parts of one run stay one process:
// the JIT child's profile given with a copy of itself split into two
// dumps is one process of two parts.
BOOST_AUTO_TEST_CASE(a_process_given_twice_is_one_process) {
    const auto& procs = the_run();
    const Process& jit = procs.at("jit");
    const Result r = tool({"profiles", "--json", jit.file, jit.file});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const json list = json::parse(r.out).at("processes");
    BOOST_TEST_REQUIRE(list.size() == 1u, r.out);
    BOOST_TEST(list[0].at("parts").get<int>() == 2);
    BOOST_TEST(list[0].at("total").get<std::uint64_t>() == 2 * jit.total);
}

BOOST_AUTO_TEST_SUITE_END()
