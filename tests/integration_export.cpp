// integration_export.cpp - `vg-jit export` on profiles of the example JIT
// (minijit) taken by the staged Callgrind and Cachegrind: the Firefox
// Profiler's processed profile loaded by the profiler's own loader
// (profiler-cli, from the npm registry; build-aux/install-deps.sh installs
// it into npm-tools/), whose per-function costs and call tree are compared
// with the Callgrind profile's own numbers; folded stacks against their
// line sums; stacks that never show a caller that did not call (a program
// and a profile built so that splitting costs among callers would); the
// time line of several dumps; damaged profiles.  The cases, one file per
// topic, all in the suite export_profiles:
//
//  * integration_export_firefox.cpp: the Firefox Profiler's format,
//    without and with contexts, checked through profiler-cli;
//  * integration_export_folded.cpp: folded stacks' line sums,
//    Cachegrind's flat profile, the time line of several dumps, damaged
//    profiles, counts past 2^53;
//  * integration_export_stacks.cpp: the stack rules: no invented callers,
//    the [unknown callers] marker, adjacent frames are calls, random call
//    trees.
//
// This file holds the module and what the others share
// (integration_export.hpp).
//
// Environment (besides test_support.hpp's):
//   VGJIT_PROFILER_CLI  profiler-cli's script (default:
//                       $VGJIT_SRCDIR/npm-tools/node_modules/.bin/profiler-cli)
//   VGJIT_MINIJIT       overrides the minijit binary

#define BOOST_TEST_MODULE integration_export
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "integration_export.hpp"
#include "test_support.hpp"

#include <map>
#include <regex>
#include <sstream>

using vgjit::test::minijit;
using vgjit::test::read_file;
using vgjit::test::run_checked;
using vgjit::test::srcdir;
using vgjit::test::vg_jit;

namespace export_test {

std::string example(const std::string& name) { return srcdir() + "/examples/" + name; }

std::string jit_object(const std::string& file) { return "minijit:" + file; }

const TempDir& tmp() {
    static TempDir dir("vgjit-export");
    return dir;
}

std::string callgrind_profile(const std::string& name, const std::vector<std::string>& extra) {
    static std::map<std::string, std::string> done;
    auto it = done.find(name);
    if (it != done.end()) return it->second;
    const std::string out = tmp().file(name);
    std::vector<std::string> args = {"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = vgjit::test::run_valgrind(args, {minijit(), example("calls.mj")});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    done[name] = out;
    return out;
}

std::string plain_profile() { return callgrind_profile("callgrind.plain", {}); }
std::string context_profile() {
    return callgrind_profile("callgrind.ctx", {"--separate-callers=50"});
}

Result export_profile(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {vg_jit(), "export"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_checked(argv);
}

std::vector<std::string> defined_functions(const std::string& source) {
    std::vector<std::string> names;
    const std::string text = read_file(source);
    const std::regex re(R"(\bfn\s+([A-Za-z_][A-Za-z_0-9]*)\s*\()");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
         ++it)
        names.push_back((*it)[1]);
    return names;
}

std::vector<std::pair<std::vector<std::string>, std::uint64_t>> folded(const std::string& text) {
    std::vector<std::pair<std::vector<std::string>, std::uint64_t>> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t sp = line.rfind(' ');
        BOOST_TEST_REQUIRE(sp != std::string::npos, line);
        std::vector<std::string> frames;
        std::istringstream st(line.substr(0, sp));
        std::string f;
        while (std::getline(st, f, ';')) frames.push_back(f);
        out.push_back({frames, std::stoull(line.substr(sp + 1))});
    }
    return out;
}

}  // namespace export_test
