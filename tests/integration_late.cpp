// integration_late.cpp - names that JITs write after their code ran still
// name the profile.  tests/jitdump_producer's "names" mode runs one call
// graph (names_top -> names_middle -> names_leaf, names_top -> the
// recursive names_fib) and announces it in a jitdump or a perf map, either
// before the code runs ("early") or after it ran ("late": jitdump records
// appended at the end, a perf map created at the end as HotSpot's
// -XX:+DumpPerfMapAtExit does).  The core reads the files to their end
// when the client exits and Callgrind binds the names when it dumps, so
// the late profile must equal the early one: every jitted function's self
// cost and per-line costs, and every call edge's count and inclusive cost.
//
// The cases, one file per topic:
//
//  * integration_late_names.cpp: jitdump_producer's "names" mode, early
//    and late, under Callgrind, Cachegrind and Memcheck; code entered by
//    jumps; line tables 0x40 past their code;
//  * integration_late_reuse.cpp: code reuse: an address that hosted two
//    functions, a move, code unmapped before its name was read;
//  * integration_late_runtimes.cpp: CPython 3.13's -X perf_jit and
//    HotSpot's -XX:+DumpPerfMapAtExit, producers nobody here wrote.
//
// This file holds the module and what the others share
// (integration_late.hpp).

#define BOOST_TEST_MODULE integration_late
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "integration_late.hpp"
#include "test_support.hpp"

#include <sstream>

using namespace vgjit::test;

namespace late_test {

std::string producer() {
    return env_or("VGJIT_JITDUMP_PRODUCER", tests_builddir() + "/jitdump_producer");
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> jitted_ranges(const std::string& err) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    std::istringstream in(err);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream l(line);
        std::string tag, name, addr;
        std::uint64_t size = 0;
        if (l >> tag >> name >> addr >> size && tag == "fn" && addr.rfind("0x", 0) == 0) {
            const std::uint64_t a = std::stoull(addr, nullptr, 16);
            out.emplace_back(a, a + size);
        }
    }
    return out;
}

std::optional<std::uint64_t> address_of(const std::string& name) {
    if (!address_named(name)) return std::nullopt;
    return std::stoull(name, nullptr, 16);
}

}  // namespace late_test
