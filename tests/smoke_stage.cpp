// smoke_stage.cpp: the staged Valgrind (stage/bin/valgrind) is the pinned
// release, runs tools from the staged tool directory, and (once the core
// patch is in coregrind-patch/series) lists the JIT options.
#define BOOST_TEST_MODULE smoke_stage
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace utf = boost::unit_test;

namespace {

// A directory given by the harness's environment, else the path compiled in
// by tests/Makefile.am (for running the test program by hand).
std::string dir_from_env(const char *var, const char *fallback)
{
    const char *v = std::getenv(var);
    return (v != nullptr && *v != '\0') ? v : fallback;
}

std::string stage_valgrind()
{
    return dir_from_env("VGJIT_STAGE", VGJIT_STAGE) + "/bin/valgrind";
}

std::string tests_builddir()
{
    return dir_from_env("VGJIT_TESTS_BUILDDIR", VGJIT_TESTS_BUILDDIR);
}

// Result of a shell command: exit status (-1 if it did not exit normally)
// and its standard output and standard error, interleaved.
struct Run {
    int status = -1;
    std::string output;
};

Run run(const std::string &command)
{
    Run r;
    std::string full = command + " 2>&1";
    FILE *p = ::popen(full.c_str(), "r");
    BOOST_TEST_REQUIRE(p != nullptr, "popen failed for: " << command);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
        r.output.append(buf, n);
    int st = ::pclose(p);
    if (st != -1 && WIFEXITED(st))
        r.status = WEXITSTATUS(st);
    return r;
}

bool contains(const std::string &hay, const std::string &needle)
{
    return hay.find(needle) != std::string::npos;
}

// Whether coregrind-patch/series lists any patch: before the core patch
// lands the JIT options cannot exist, afterwards they must.
boost::test_tools::assertion_result series_has_patches(utf::test_unit_id)
{
    std::ifstream in(dir_from_env("VGJIT_SRCDIR", VGJIT_SRCDIR) + "/coregrind-patch/series");
    std::string line;
    while (std::getline(in, line)) {
        auto start = line.find_first_not_of(" \t");
        if (start != std::string::npos && line[start] != '#')
            return true;
    }
    boost::test_tools::assertion_result r(false);
    r.message() << "coregrind-patch/series lists no patch yet";
    return r;
}

} // namespace

BOOST_AUTO_TEST_CASE(version_is_the_pinned_release)
{
    Run r = run(stage_valgrind() + " --version");
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.output == "valgrind-3.27.1\n");
}

BOOST_AUTO_TEST_CASE(memcheck_clean_run_reports_no_errors)
{
    Run r = run(stage_valgrind() + " --tool=memcheck --error-exitcode=3 --leak-check=full "
                + tests_builddir() + "/stage_helper clean");
    BOOST_TEST(r.status == 0, "output:\n" << r.output);
    BOOST_TEST(contains(r.output, "ERROR SUMMARY: 0 errors from 0 contexts"), "output:\n" << r.output);
    BOOST_TEST(contains(r.output, "All heap blocks were freed -- no leaks are possible"),
               "output:\n" << r.output);
}

BOOST_AUTO_TEST_CASE(memcheck_finds_planted_errors)
{
    Run r = run(stage_valgrind() + " --tool=memcheck --error-exitcode=3 --leak-check=full "
                + tests_builddir() + "/stage_helper");
    BOOST_TEST(r.status == 3, "output:\n" << r.output);
    BOOST_TEST(contains(r.output, "Conditional jump or move depends on uninitialised value(s)"),
               "output:\n" << r.output);
    // Needs the staged vgpreload_memcheck (malloc replacement).
    BOOST_TEST(contains(r.output, "64 bytes in 1 blocks are definitely lost"), "output:\n" << r.output);
}

BOOST_AUTO_TEST_CASE(help_lists_trace_jit, *utf::precondition(series_has_patches))
{
    Run r = run(stage_valgrind() + " --help");
    BOOST_TEST(r.status == 0);
    BOOST_TEST(contains(r.output, "--trace-jit="), "valgrind --help does not list --trace-jit");
}
