// integration_jithpp.cpp: <valgrind/jit.hpp>, the C++17 layer over
// <valgrind/jit.h>.  jithpp_client is run under the staged Valgrind with
// --trace-jit=yes, and the register/unregister lines are checked against the
// client's markers (VALGRIND_PRINTF, same log, so the order is exact); it
// is run natively, where every handle must stay empty and nothing be
// allocated; and the header is compiled with -Wall -Wextra -pedantic
// -Werror as C++17 and C++20.
#define BOOST_TEST_MODULE integration_jithpp
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace utf = boost::unit_test;
using namespace vgjit::test;

namespace {

std::string client() { return tests_builddir() + "/jithpp_client"; }

/// The events of a --trace-jit=yes log, in order, as short strings:
/// "mark X", "register NAME", "unregister NAME", "replaced NAME".
std::vector<std::string> events(const std::string& log) {
    static const std::regex mark(R"(^\*\*\d+\*\* mark (\S+)$)");
    static const std::regex jit(
        R"(^--\d+-- jit: (register|unregister|replaced) 0x[0-9a-f]+-0x[0-9a-f]+ (\S+) )");
    std::vector<std::string> out;
    std::istringstream in(log);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, mark))
            out.push_back("mark " + m[1].str());
        else if (std::regex_search(line, m, jit))
            out.push_back(m[1].str() + " " + m[2].str());
    }
    return out;
}

/// The events strictly between "mark FROM" and "mark TO".
std::vector<std::string> between(const std::vector<std::string>& ev, const std::string& from,
                                 const std::string& to) {
    std::vector<std::string> out;
    bool in = false;
    for (const std::string& e : ev) {
        if (e == "mark " + from)
            in = true;
        else if (e == "mark " + to)
            return out;
        else if (in)
            out.push_back(e);
    }
    BOOST_TEST_MESSAGE("markers " << from << " .. " << to << " not both found");
    return {"<markers missing>"};
}

std::size_t count(const std::vector<std::string>& ev, const std::string& what) {
    std::size_t n = 0;
    for (const std::string& e : ev) n += e == what;
    return n;
}

using Events = std::vector<std::string>;

/// One run under the staged Valgrind (shared by the cases below).
const Result& traced() {
    static const Result r = run_valgrind({"--tool=none", "--trace-jit=yes"}, {client()});
    return r;
}

boost::test_tools::assertion_result x86_64(utf::test_unit_id) {
#if defined(__x86_64__)
    return true;
#else
    boost::test_tools::assertion_result r(false);
    r.message() << "jithpp_client's jitted code is x86-64";
    return r;
#endif
}

}  // namespace

BOOST_AUTO_TEST_SUITE(under_valgrind, *utf::precondition(x86_64))

BOOST_AUTO_TEST_CASE(destructor_unregisters_at_scope_end) {
    const Result& r = traced();
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    const Events ev = events(r.err);
    BOOST_TEST(between(ev, "scope-begin", "scope-last") == Events{"register hpp_scoped"});
    BOOST_TEST(between(ev, "scope-last", "scope-end") == Events{"unregister hpp_scoped"});
    BOOST_TEST(count(ev, "unregister hpp_scoped") == 1u);
    BOOST_TEST(contains(r.out, "scoped: registered 1, state ok\n"), r);
    // The line table of std::pair entries reached the core.
    BOOST_TEST(contains(r.err, " hpp_scoped (hpp-object), 2 lines\n"), r);
}

BOOST_AUTO_TEST_CASE(moved_from_handles_do_nothing) {
    const Result& r = traced();
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    const Events ev = events(r.err);
    BOOST_TEST(contains(r.out, "moved-from: registered 0, state ok\n"), r);
    BOOST_TEST(contains(r.out, "moved-from-again: registered 0, state ok\n"), r);
    BOOST_TEST(contains(r.out, "moved-to: registered 1, state ok\n"), r);
    BOOST_TEST(between(ev, "c-last", "c-gone") == Events{"unregister hpp_moved"});
    BOOST_TEST(between(ev, "c-gone", "ab-gone").empty());
    BOOST_TEST(count(ev, "unregister hpp_moved") == 1u);
    BOOST_TEST(contains(r.err, " hpp_moved ([jit]), 1 lines\n"), r);
}

BOOST_AUTO_TEST_CASE(move_assignment_and_reset_unregister_once) {
    const Result& r = traced();
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    const Events ev = events(r.err);
    BOOST_TEST(between(ev, "assign-before", "assign-after") ==
               (Events{"register hpp_assign_new", "unregister hpp_assign_old"}));
    BOOST_TEST(between(ev, "assign-after", "reset-after") == Events{"unregister hpp_assign_new"});
    BOOST_TEST(contains(r.out, "reset: ok, registered 0\n"), r);
    BOOST_TEST(between(ev, "reset-after", "d-gone").empty());
}

BOOST_AUTO_TEST_CASE(code_replaced_at_the_same_start_is_unregistered_once) {
    const Result& r = traced();
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    const Events ev = events(r.err);
    BOOST_TEST(count(ev, "replaced hpp_v1") == 1u);
    BOOST_TEST(count(ev, "unregister hpp_v1") == 0u);
    BOOST_TEST(contains(r.out, "same-start: registered 1, state replaced\n"), r);
    BOOST_TEST(between(ev, "e-last", "e-gone") == Events{"unregister hpp_v2"});
    BOOST_TEST(count(ev, "unregister hpp_v2") == 1u);
}

BOOST_AUTO_TEST_CASE(refusals_leave_an_empty_handle_with_the_reason) {
    const Result& r = traced();
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "api_version 3\n"), r);
    BOOST_TEST(contains(r.out, "size-0: registered 0, state bad_range\n"), r);
    BOOST_TEST(contains(r.out, "nul-in-name: registered 0, state bad_name\n"), r);
    BOOST_TEST(count(events(r.err), "register hpp_empty") == 0u);
}

BOOST_AUTO_TEST_CASE(unwind_information_goes_with_the_registration) {
    const Result& r = traced();
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "fixed-frame: registered 1, state ok\n"), r);
    BOOST_TEST(contains(r.out, "misaligned-frame: registered 0, state bad_unwind\n"), r);
    // The core added CFI for exactly the registered range.
    static const std::regex reg(R"(jit: register (0x[0-9a-f]+-0x[0-9a-f]+) hpp_fixed_frame )");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, reg), r.err);
    BOOST_TEST(contains(r.err, "jit: CFI of " + m[1].str() + ": "), r.err);
    BOOST_TEST(count(events(r.err), "register hpp_bad_frame") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(natively_every_handle_is_empty_and_nothing_is_allocated,
                     *utf::precondition(x86_64)) {
    const Result r = run({client()});
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "api_version 0\n"), r);
    BOOST_TEST(!contains(r.out, "registered 1"), r);
    for (const char* what : {"scoped", "moved-to", "assigned", "same-start", "size-0",
                             "nul-in-name", "fixed-frame", "misaligned-frame"})
        BOOST_TEST(contains(r.out, std::string(what) + ": registered 0, state not_running\n"),
                   what);
    BOOST_TEST(contains(r.out, "allocations while registering: 0\n"), r);
    // The jitted code ran the same.
    BOOST_TEST(contains(r.out, "sum 6\n"), r);
    // Same markers, in the same order, as under Valgrind.
    std::vector<std::string> native, valgrind;
    std::istringstream a(r.out), b(traced().out);
    for (std::string l; std::getline(a, l);)
        if (l.rfind("mark ", 0) == 0) native.push_back(l);
    for (std::string l; std::getline(b, l);)
        if (l.rfind("mark ", 0) == 0) valgrind.push_back(l);
    BOOST_TEST(native == valgrind, boost::test_tools::per_element());
}

/// Compiles the client with the project's C++ compiler and the given flags.
Result compile(const std::vector<std::string>& flags) {
    std::vector<std::string> argv = {"/bin/sh", "-c", ""};
    std::string cmd = std::string(VGJIT_CXX) + " -fsyntax-only -Wall -Wextra -pedantic -Werror";
    for (const std::string& f : flags) cmd += " " + f;
    cmd += " -I" + srcdir() + "/include -I" + stage() + "/include/valgrind " + srcdir() +
           "/tests/jithpp_client.cpp";
    argv[2] = cmd;
    return run(argv);
}

BOOST_AUTO_TEST_CASE(compiles_warning_free_as_cxx17_and_cxx20) {
    for (const char* std : {"-std=c++17", "-std=c++20"}) {
        const Result r = compile({std});
        BOOST_TEST(r.status == 0, std << ": " << r);
        const Result n = compile({std, "-fno-exceptions"});
        BOOST_TEST(n.status == 0, std << " -fno-exceptions: " << n);
    }
    // Before C++17 it says what it needs instead of failing somewhere inside.
    const Result old = compile({"-std=c++14"});
    BOOST_TEST(old.status != 0);
    BOOST_TEST(contains(old.err, "needs C++17"), old);
}
