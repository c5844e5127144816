// integration_exec.cpp - a program that runs itself again through its
// /proc "exe" link (Chromium, Electron, runc) under the staged Valgrind.
// The link names the tool's executable inside Valgrind; the exec wrapper
// must run the client's executable instead (coregrind-patch's exec of
// /proc/self/exe patch): with --trace-children=yes the child is traced
// (its own Memcheck header and Callgrind profile, under its own pid),
// without it the child runs natively.  tests/exec_self is the program;
// its child prints its pid and RUNNING_ON_VALGRIND.

#define BOOST_TEST_MODULE integration_exec
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include <filesystem>
#include <regex>
#include <string>

using namespace vgjit::test;

namespace {

std::string exec_self() { return env_or("VGJIT_EXEC_SELF", tests_builddir() + "/exec_self"); }

/// The ways exec_self runs itself again (its argument).
const char* const kWays[] = {"self", "pid", "thread-self", "dirfd", "fexecve"};

/// What exec_self's child printed: its pid and RUNNING_ON_VALGRIND; pid 0
/// if it printed nothing.
struct Child {
    int pid = 0;
    unsigned valgrind = 0;
};

Child child_of(const Result& r) {
    static const std::regex line(R"(child: pid (\d+) valgrind (\d+))");
    std::smatch m;
    Child c;
    if (std::regex_search(r.out, m, line)) {
        c.pid = std::stoi(m[1]);
        c.valgrind = static_cast<unsigned>(std::stoul(m[2]));
    }
    return c;
}

}  // namespace

// The child is traced: its own Memcheck, running exec_self (not the tool's
// executable, which failed to load: "mmap(0x58000000, 4096) failed in
// UME").
BOOST_AUTO_TEST_CASE(memcheck_traces_the_child) {
    const std::string client = absolute(exec_self());
    for (const char* way : kWays) {
        BOOST_TEST_CONTEXT(way) {
            const Result r =
                run_valgrind({"--tool=memcheck", "--trace-children=yes"}, {exec_self(), way});
            BOOST_TEST(r.status == 0, r);
            BOOST_TEST(!contains(r.err, "failed in UME"));
            const Child c = child_of(r);
            BOOST_TEST_REQUIRE(c.pid != 0, r);
            BOOST_TEST(c.valgrind == 1u);
            const std::string me = "==" + std::to_string(c.pid) + "== ";
            BOOST_TEST(contains(r.err, me + "Memcheck, a memory error detector"), r);
            BOOST_TEST(contains(r.err, me + "Command: " + client + " child\n"), r);
            BOOST_TEST(contains(r.err, me + "ERROR SUMMARY: 0 errors"), r);
        }
    }
}

// The child's Callgrind writes its own profile, callgrind.out.<its pid>,
// of exec_self.
BOOST_AUTO_TEST_CASE(callgrind_profiles_the_child) {
    const std::string client = absolute(exec_self());
    for (const char* way : kWays) {
        BOOST_TEST_CONTEXT(way) {
            TempDir dir("vgjit-exec");
            const Result r = run_valgrind({"--tool=callgrind", "--trace-children=yes",
                                           "--callgrind-out-file=" + dir.file("callgrind.out.%p")},
                                          {exec_self(), way});
            BOOST_TEST(r.status == 0, r);
            const Child c = child_of(r);
            BOOST_TEST_REQUIRE(c.pid != 0, r);
            const std::string profile = dir.file("callgrind.out." + std::to_string(c.pid));
            BOOST_TEST_REQUIRE(std::filesystem::exists(profile), r);
            const std::string text = read_file(profile);
            std::smatch cmd;  // "cmd:  PROGRAM ARGS" (Callgrind puts two spaces)
            BOOST_TEST_REQUIRE(std::regex_search(text, cmd, std::regex(R"(\ncmd: +(.*)\n)")));
            BOOST_TEST(cmd[1].str() == client + " child");
            BOOST_TEST(contains(text, "\nfn="));
        }
    }
}

// Without --trace-children the child runs natively (it ran the tool's
// executable, which refused: "You cannot run '...' directly").
BOOST_AUTO_TEST_CASE(untraced_child_runs_natively) {
    for (const char* way : kWays) {
        BOOST_TEST_CONTEXT(way) {
            const Result r = run_valgrind({"--tool=memcheck"}, {exec_self(), way});
            BOOST_TEST(r.status == 0, r);
            BOOST_TEST(!contains(r.err, "cannot run"));
            const Child c = child_of(r);
            BOOST_TEST_REQUIRE(c.pid != 0, r);
            BOOST_TEST(c.valgrind == 0u);
            BOOST_TEST(!contains(r.err, "==" + std::to_string(c.pid) + "=="));
        }
    }
}
