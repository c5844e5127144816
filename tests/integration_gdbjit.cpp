// integration_gdbjit.cpp - the GDB JIT compilation interface read by the
// patched core, end to end: tests/gdbjit (a JIT that registers relocatable
// objects compiled from tests/fixtures/gdbjit/module_*.c, as LLVM's MCJIT
// does) and LLVM 14's lli running C compiled with clang-14, under the
// staged Callgrind and Memcheck; the tests parse what those write.  The
// cases, one file per topic:
//
//  * integration_gdbjit_objects.cpp: tests/gdbjit's objects: names,
//    calls and lines equal to the modules linked natively, the interface
//    under another name, reuse, -v, the other tools, hostile entries;
//  * integration_gdbjit_lli.cpp: LLVM 14's lli on C compiled by clang-14:
//    names, calls, lines, Memcheck's stacks through CFI and inlined
//    calls, Helgrind, DRD and DHAT;
//  * integration_gdbjit_kept.cpp: code that outlives its registration
//    (tests/llvm_keep, and gdbjit's own modes).
//
// This file holds the module and what the others share
// (integration_gdbjit.hpp).

#define BOOST_TEST_MODULE integration_gdbjit
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "integration_gdbjit.hpp"

#include <filesystem>
#include <regex>
#include <sstream>

#include <unistd.h>

using namespace vgjit::test;

namespace gdbjit_test {

std::string gdbjit() { return tests_builddir() + "/gdbjit"; }
std::string module_a() { return tests_builddir() + "/gdbjit_module_a.o"; }
std::string module_b() { return tests_builddir() + "/gdbjit_module_b.o"; }

std::vector<std::string> program(const std::string& mode) {
    return {gdbjit(), mode, module_a(), module_b()};
}

cg::Profile callgrind(const TempDir& dir, const std::vector<std::string>& prog,
                      std::vector<std::string> extra, Result* result) {
    const std::string out = dir.file("callgrind.out");
    std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_valgrind(args, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    if (result) *result = r;
    return cg::Profile::parse_file(out);
}

std::vector<cg::FunctionKey> named(const cg::Profile& p, const std::string& name) {
    std::vector<cg::FunctionKey> out;
    for (const auto& [key, f] : p.functions())
        if (cg::strip_recursion_suffix(key.name) == name) out.push_back(key);
    return out;
}

std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> line_costs(const cg::Profile& p,
                                                                          const std::string& name) {
    std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> out;
    for (const auto& [key, f] : p.functions()) {
        if (cg::strip_recursion_suffix(key.name) != name) continue;
        for (const auto& [pos, costs] : f.lines)
            out[{std::filesystem::path(pos.first).filename().string(), pos.second}] += costs.at(0);
    }
    return out;
}

cg::Profile cachegrind(const TempDir& dir, const std::vector<std::string>& prog) {
    const std::string out = dir.file("cachegrind.out");
    const Result r =
        run_valgrind({"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return cg::Profile::parse_file(out);
}

std::uint64_t fib_calls(int n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

std::vector<std::string> error_frames(const std::string& err, const std::string& what) {
    std::vector<std::string> frames;
    const auto at = err.find(what);
    if (at == std::string::npos) return frames;
    static const std::regex frame(R"(^==\d+==    (?:at|by) 0x[0-9A-F]+: (.*)$)");
    std::istringstream in(err.substr(err.find('\n', at) + 1));
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, frame)) break;
        // Directories differ with how the compiler was given the file.
        static const std::regex dir(R"(\((?:[^()/]*/)+)");
        frames.push_back(std::regex_replace(m[1].str(), dir, "("));
        if (m[1].str().rfind("main ", 0) == 0) break;
    }
    return frames;
}

}  // namespace gdbjit_test
