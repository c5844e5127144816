// integration_producers.cpp - the core following the files JITs write for
// Linux perf, end to end: jitdump files (jit-<pid>.dump, followed once the
// process maps one) and perf maps (/tmp/perf-<pid>.map, with
// --jit-perf-map=yes).  Two producers run natively and under the staged
// Callgrind and Memcheck, and the tests parse what those write:
//
//  * tests/jitdump_producer, our own xbyak JIT: exact instruction counts
//    for names that arrive late, CODE_MOVE, line tables, truncated and
//    malformed files, jitdumps under other names, v.info jit
//    (integration_producers_jitdump.cpp); perf maps written in pieces,
//    symlinked, foreign or garbage (integration_producers_perfmap.cpp);
//  * Node.js (a producer nobody here wrote; skipped, as a failed
//    precondition, without `node` on $PATH or $VGJIT_NODE)
//    with --perf-basic-prof and --perf-prof, running
//    tests/fixtures/node/fib.js: how much of the jitted code gets a name;
//    a stripped Node's builtins; Sparkplug's call counts
//    (integration_producers_node.cpp).
//
// This file holds the module and what the others share
// (integration_producers.hpp).

#define BOOST_TEST_MODULE integration_producers
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "integration_producers.hpp"

#include <regex>
#include <sstream>

using namespace vgjit::test;

namespace producers_test {

std::string producer() {
    return env_or("VGJIT_JITDUMP_PRODUCER", tests_builddir() + "/jitdump_producer");
}

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

std::vector<std::string> callgrind_args(const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> a{"--tool=callgrind", "--dump-instr=yes",
                               "--callgrind-out-file=" + out};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

const cg::FunctionCosts* function_named(const cg::Profile& p, const std::string& name) {
    const auto v = p.functions_named(name);
    BOOST_TEST(v.size() <= 1u, name << " appears " << v.size() << " times");
    return v.empty() ? nullptr : v.front();
}

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

std::vector<std::string> warnings_about(const std::string& err, const std::string& path) {
    std::vector<std::string> out;
    std::istringstream in(err);
    std::string line;
    while (std::getline(in, line))
        if (contains(line, "Warning") && contains(line, path)) out.push_back(line);
    return out;
}

bool printable_ascii(const std::string& s) {
    for (unsigned char c : s)
        if (c < 0x20 || c >= 0x7f) return false;
    return true;
}

}  // namespace producers_test
