// integration_core_tools.cpp - integration_core's cases of the tools
// that print stacks: Memcheck (file and line, demangled names, a forked
// child, a JIT function named malloc), Massif, Helgrind, DRD and DHAT;
// integration_core.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_core.hpp"
#include "test_support.hpp"

#include <regex>
#include <string>

using namespace vgjit::test;
using namespace core_test;

BOOST_AUTO_TEST_CASE(memcheck_names_jitted_frame_with_file_and_line) {
    const Result r = run_valgrind({"--tool=memcheck"}, program("memerr"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex frame(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: jit_reader \(testjit\.src:61\))");
    BOOST_TEST(std::regex_search(r.err, frame), r.err);
}

BOOST_AUTO_TEST_CASE(registered_names_are_demangled_like_elf_names) {
    const Result d = run_valgrind({"--tool=memcheck"}, program("mangled"));
    BOOST_TEST(contains(d.err, ": jitvm::reader::read(int*) (testjit.src:61)"), d.err);
    const Result m = run_valgrind({"--tool=memcheck", "--demangle=no"}, program("mangled"));
    BOOST_TEST(contains(m.err, ": _ZN5jitvm6reader4readEPi (testjit.src:61)"), m.err);
}

BOOST_AUTO_TEST_CASE(forked_child_keeps_registrations) {
    const Result r = run_valgrind({"--tool=memcheck"}, program("fork"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, ": jit_reader (testjit.src:61)"), r.err);
}

BOOST_AUTO_TEST_CASE(massif_names_jitted_allocation_sites) {
    TempDir dir;
    const std::string out = dir.file("massif.out");
    const Result r = run_valgrind(
        {"--tool=massif", "--threshold=0", "--detailed-freq=1", "--massif-out-file=" + out},
        program("alloc"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const std::string text = read_file(out);
    BOOST_TEST(contains(text, "jit_allocator (testjit.src:71)"), text);
}

BOOST_AUTO_TEST_CASE(jitted_function_named_malloc_is_not_redirected) {
    const Result r = run_valgrind({"--tool=memcheck"}, program("malloc"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    // Had the core redirected it to Memcheck's malloc, it would have
    // returned a pointer, not 5.
    BOOST_TEST(contains(r.out, "jitted malloc returned 5"), r);
    BOOST_TEST(contains(r.err, "ERROR SUMMARY: 0 errors"), r);
}

BOOST_AUTO_TEST_CASE(helgrind_and_drd_name_racing_jitted_code) {
    const Result hg = run_valgrind({"--tool=helgrind"}, program("race"));
    BOOST_TEST_REQUIRE(hg.status == 0, hg);
    static const std::regex hg_race(
        R"(Possible data race during (read|write) of size 4[^\n]*\n==\d+== Locks held: none\n==\d+==    at 0x[0-9A-F]+: jit_racer \(testjit\.src:95\))");
    BOOST_TEST(std::regex_search(hg.err, hg_race), hg.err);
    const Result drd = run_valgrind({"--tool=drd"}, program("race"));
    BOOST_TEST_REQUIRE(drd.status == 0, drd);
    static const std::regex drd_race(
        R"(Conflicting (load|store) by thread \d+[^\n]*\n==\d+==    at 0x[0-9A-F]+: jit_racer \(testjit\.src:95\))");
    BOOST_TEST(std::regex_search(drd.err, drd_race), drd.err);
}

BOOST_AUTO_TEST_CASE(dhat_names_jitted_allocation_sites) {
    TempDir dir;
    const std::string out = dir.file("dhat.json");
    const Result r = run_valgrind({"--tool=dhat", "--dhat-out-file=" + out}, program("alloc"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex frame(R"re("0x[0-9A-F]+: jit_allocator \(testjit\.src:71\)")re");
    const std::string text = read_file(out);
    BOOST_TEST(std::regex_search(text, frame), text.substr(0, 2000));
}
