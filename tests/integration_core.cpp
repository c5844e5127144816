// integration_core.cpp - the JIT code registry in the patched core, end to
// end: tests/testjit (a small xbyak JIT that registers its code through
// <valgrind/jit.h>) runs natively and under the staged Callgrind,
// Cachegrind, Memcheck, Helgrind, DRD, Massif and DHAT, and the tests parse
// what those write.  The cases, one file per topic:
//
//  * integration_core_requests.cpp: what the client requests return and
//    what -v says of them, natively, under every tool and stock Valgrind;
//  * integration_core_profiles.cpp: Callgrind's and Cachegrind's names,
//    files, lines, costs and calls of registered and replaced code;
//  * integration_core_kept.cpp: names kept after an unregistration while
//    the code stays mapped, and --keep-debuginfo=yes;
//  * integration_core_stripped.cpp: a stripped executable naming its own
//    code in a perf map;
//  * integration_core_tools.cpp: Memcheck's, Massif's, Helgrind's, DRD's
//    and DHAT's stacks through JIT code;
//  * integration_core_registry.cpp: the registry at its edges and at
//    scale: names read at every mapping edge, the name pool, thousands of
//    functions, the translation table's entry filter, random churn.
//
// This file holds the module and what the others share
// (integration_core.hpp).

#define BOOST_TEST_MODULE integration_core
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "integration_core.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>

using namespace vgjit::test;

namespace core_test {

std::string source() { return absolute(srcdir() + "/tests/fixtures/testjit.src"); }

std::vector<std::string> program(const std::string& mode) {
    return {testjit(), "--source=" + source(), mode};
}

std::map<std::string, Status> statuses(const std::string& err) {
    std::map<std::string, Status> out;
    std::istringstream in(err);
    std::string line;
    static const std::regex re(R"(^status (\S+) (\d+) (\d+)$)");
    while (std::getline(in, line)) {
        // Valgrind's own lines may precede on the same stream; testjit's
        // lines are whole lines.
        std::smatch m;
        if (std::regex_match(line, m, re)) out[m[1]] = Status{std::stoul(m[2]), std::stoi(m[3])};
    }
    return out;
}

cg::Profile callgrind_profile(const TempDir& dir, const std::string& mode,
                              std::vector<std::string> extra) {
    const std::string out = dir.file("callgrind." + mode);
    std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_valgrind(args, program(mode));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return cg::Profile::parse_file(out);
}

const cg::FunctionCosts& function(const cg::Profile& p, const std::string& name) {
    for (const auto& [key, f] : p.functions())
        if (key.name == name) return f;
    throw std::runtime_error("no function " + name + " in the profile");
}

std::vector<std::string> tool_args(const std::string& tool, const TempDir& dir,
                                   std::vector<std::string> extra) {
    std::vector<std::string> args{"--tool=" + tool};
    if (tool == "callgrind") args.push_back("--callgrind-out-file=" + dir.file("callgrind.out"));
    if (tool == "cachegrind") args.push_back("--cachegrind-out-file=" + dir.file("cachegrind.out"));
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

std::map<std::string, std::uint64_t> calls_into_by_caller(const cg::Profile& p,
                                                          const std::string& name) {
    std::map<std::string, std::uint64_t> by_caller;
    for (const auto& [edge, e] : p.calls())
        if (cg::strip_recursion_suffix(edge.second.name) == name)
            by_caller[cg::strip_recursion_suffix(edge.first.name)] += e.count;
    return by_caller;
}

std::uint64_t sum(const std::map<std::string, std::uint64_t>& m) {
    std::uint64_t n = 0;
    for (const auto& [k, v] : m) n += v;
    return n;
}

std::map<std::vector<std::string>, std::uint64_t> elf_edges(const cg::Profile& p) {
    std::map<std::vector<std::string>, std::uint64_t> out;
    for (const auto& [edge, e] : p.calls()) {
        const auto& [from, to] = edge;
        if (from.object.rfind('/', 0) != 0 || to.object.rfind('/', 0) != 0 ||
            address_named(from.name) || address_named(to.name))
            continue;
        out[{from.object, from.name, to.object, to.name}] += e.count;
    }
    return out;
}

}  // namespace core_test
