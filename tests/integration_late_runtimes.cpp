// integration_late_runtimes.cpp - integration_late's cases of runtimes
// nobody here wrote whose names all arrive after their code ran:
// CPython 3.13's -X perf_jit and HotSpot's perf map written at exit;
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
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;
using namespace late_test;

// ---------------------------------------------------------------------------
// CPython 3.13 -X perf_jit: a producer nobody here wrote.  It writes its
// jitdump through a buffered stream and frees its trampolines before it
// exits, so every name arrives after its code ran (and the code is gone by
// the time Callgrind dumps).
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(cpython_perf_jit_trampolines_named_with_exact_call_counts,
                     *boost::unit_test::precondition(python313_available)) {
    TempDir dir;
    const std::string script = dir.file("fib.py");
    {
        std::FILE* f = std::fopen(script.c_str(), "w");
        BOOST_TEST_REQUIRE(f != nullptr);
        std::fputs(
            "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
            "print(fib(15))\n",
            f);
        std::fclose(f);
    }
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 300;
    const std::string out = dir.file("callgrind.out");
    const Result r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out},
                                  {python313(), "-X", "perf_jit", script}, opt);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == "610\n");
    const cg::Profile p = cg::Profile::parse_file(out);
    ::unlink(("/tmp/jit-" + p.header().at("pid") + ".dump").c_str());
    // fib(15) makes 2 * fib(16) - 1 = 1973 calls; each goes through the
    // trampoline CPython names py::fib:<script>.
    const std::string name = "py::fib:" + script;
    std::uint64_t calls = 0;
    for (const auto& [edge, e] : p.calls())
        if (cg::strip_recursion_suffix(edge.second.name) == name) calls += e.count;
    BOOST_TEST(calls == 1973u);
    BOOST_TEST(!p.functions_named(name, true).empty());
}

namespace {

/// OpenJDK's real launcher: $VGJIT_JAVA, else `java` on $PATH with its
/// symbolic links resolved (under Valgrind, the launcher's $ORIGIN lookups
/// fail through Debian's alternatives link), or "".
std::string java_launcher() {
    if (const char* p = std::getenv("VGJIT_JAVA"); p && *p) return p;
    const std::string java = find_on_path("java");
    std::error_code ec;
    const auto real = java.empty() ? std::filesystem::path() : std::filesystem::canonical(java, ec);
    return ec ? "" : real.string();
}

/// javac next to the real launcher, else on $PATH, or "".
std::string javac_compiler() {
    const std::string java = java_launcher();
    if (!java.empty()) {
        const std::string next = (std::filesystem::path(java).parent_path() / "javac").string();
        if (::access(next.c_str(), X_OK) == 0) return next;
    }
    return find_on_path("javac");
}

boost::test_tools::assertion_result java_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(!java_launcher().empty() && !javac_compiler().empty());
    if (!ok)
        ok.message()
            << "no java and javac (a JDK: openjdk-17-jdk-headless) on $PATH or $VGJIT_JAVA";
    return ok;
}

}  // namespace

// HotSpot writes its perf map only when it exits (-XX:+DumpPerfMapAtExit,
// 0x-prefixed fields): every name arrives after the code ran.  With
// -Xcomp and -XX:CompileOnly=JitWork.fib, fib is compiled before its first
// call and is the only compiled Java method; -XX:-Inline keeps every
// recursive call a call, and C1 only (-XX:TieredStopAtLevel=1) keeps one
// compiled copy, so Callgrind must count the program's own calls.
BOOST_AUTO_TEST_CASE(hotspot_perf_map_written_at_exit_names_exact_call_counts,
                     *boost::unit_test::precondition(java_available)) {
    TempDir dir;
    {
        std::ofstream src(dir.file("JitWork.java"));
        src << "public class JitWork {\n"
               "    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
               "    public static void main(String[] args) {\n"
               "        System.out.println(\"fib \" + fib(Integer.parseInt(args[0])));\n"
               "    }\n"
               "}\n";
    }
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 600;
    const Result javac = run({javac_compiler(), "-d", dir.path(), dir.file("JitWork.java")}, opt);
    BOOST_TEST_REQUIRE(javac.status == 0, javac);
    const std::string out = dir.file("callgrind.out");
    const Result r = run_valgrind(
        {"--tool=callgrind", "--jit-perf-map=yes", "-v", "--callgrind-out-file=" + out},
        {java_launcher(), "-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit", "-Xcomp",
         "-XX:CompileOnly=JitWork.fib", "-XX:-Inline", "-XX:TieredStopAtLevel=1", "-cp", dir.path(),
         "JitWork", "18"},
        opt);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "fib 2584"), r.out);
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    ::unlink(map.c_str());
    // fib(18) makes 2 * fib(19) - 1 = 8361 calls: 8360 from fib itself.
    // The first call from each of fib's two call sites goes to HotSpot's
    // resolver stub, which jumps to fib once it has patched the site.
    const std::string name = "int JitWork.fib(int)";
    std::uint64_t recursive = 0, resolved = 0, named = 0;
    for (const auto& [edge, e] : p.calls()) {
        if (cg::strip_recursion_suffix(edge.first.name) != name) continue;
        const std::string callee = cg::strip_recursion_suffix(edge.second.name);
        if (callee == name) recursive += e.count;
        if (callee == "resolve_static_call") resolved += e.count;
    }
    const auto fns = p.functions_named(name, true);
    for (const auto* f : fns) {
        BOOST_TEST(f->key.object == map);
        named += f->self.at(0);
    }
    BOOST_TEST(recursive + resolved == 8360u);
    BOOST_TEST(resolved <= 2u);
    BOOST_TEST(named > 0u);
    // One function in the file, not one per address-named piece: the
    // name is defined under a single compressed id.
    std::ifstream raw(out);
    std::set<std::string> ids;
    for (std::string line; std::getline(raw, line);) {
        const auto space = line.find(") " + name);
        if ((line.rfind("fn=(", 0) == 0 || line.rfind("cfn=(", 0) == 0) &&
            space != std::string::npos && line.size() == space + 2 + name.size())
            ids.insert(line.substr(line.find('(') + 1, space - line.find('(') - 1));
    }
    BOOST_TEST(ids.size() == 1u);
    BOOST_TEST(named > 0u);
}
