// smoke_stage.cpp: the staged Valgrind (stage/bin/valgrind) is the pinned
// release, runs tools from the staged tool directory, and (once the core
// patch is in coregrind-patch/series) lists the JIT options.
#define BOOST_TEST_MODULE smoke_stage
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include <fstream>
#include <string>

namespace utf = boost::unit_test;
using namespace vgjit::test;

namespace {

// Whether coregrind-patch/series lists any patch: before the core patch
// lands the JIT options cannot exist, afterwards they must.
boost::test_tools::assertion_result series_has_patches(utf::test_unit_id) {
    std::ifstream in(srcdir() + "/coregrind-patch/series");
    std::string line;
    while (std::getline(in, line)) {
        auto start = line.find_first_not_of(" \t");
        if (start != std::string::npos && line[start] != '#') return true;
    }
    boost::test_tools::assertion_result r(false);
    r.message() << "coregrind-patch/series lists no patch yet";
    return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(version_is_the_pinned_release) {
    const Result r = run({valgrind(), "--version"});
    BOOST_TEST(r.status == 0, r);
    BOOST_TEST(r.out == "valgrind-3.27.1\n");
}

BOOST_AUTO_TEST_CASE(memcheck_clean_run_reports_no_errors) {
    const Result r = run_valgrind({"--tool=memcheck", "--error-exitcode=3", "--leak-check=full"},
                                  {tests_builddir() + "/stage_helper", "clean"});
    BOOST_TEST(r.status == 0, r);
    BOOST_TEST(contains(r.err, "ERROR SUMMARY: 0 errors from 0 contexts"), r);
    BOOST_TEST(contains(r.err, "All heap blocks were freed -- no leaks are possible"), r);
}

BOOST_AUTO_TEST_CASE(memcheck_finds_planted_errors) {
    const Result r = run_valgrind({"--tool=memcheck", "--error-exitcode=3", "--leak-check=full"},
                                  {tests_builddir() + "/stage_helper"});
    BOOST_TEST(r.status == 3, r);
    BOOST_TEST(contains(r.err, "Conditional jump or move depends on uninitialised value(s)"), r);
    // Needs the staged vgpreload_memcheck (malloc replacement).
    BOOST_TEST(contains(r.err, "64 bytes in 1 blocks are definitely lost"), r);
}

BOOST_AUTO_TEST_CASE(help_lists_trace_jit, *utf::precondition(series_has_patches)) {
    const Result r = run({valgrind(), "--help"});
    BOOST_TEST(r.status == 0, r);
    BOOST_TEST(contains(r.out, "--trace-jit="), "valgrind --help does not list --trace-jit");
}
