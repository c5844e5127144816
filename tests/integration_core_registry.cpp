// integration_core_registry.cpp - integration_core's cases of the
// registry at its edges and at scale: names read exactly at every
// mapping edge, the name pool's compactions, 2000 functions, the
// translation table's entry filter (patch 0004), and random churn checked
// against a model; integration_core.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_core.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace vgjit::test;
using namespace core_test;

BOOST_AUTO_TEST_CASE(names_are_read_exactly_at_every_offset_length_and_mapping_edge) {
    // The core reads a name a word at a time within its mapping: each
    // name must come out whole, escaped where it holds junk bytes, also
    // when it ends on the last byte of a mapping or runs into the next.
    const Result r = run_valgrind({"--tool=none", "--trace-jit=yes"}, program("names"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.out, "names registered: 322"), r.out);
    std::vector<std::string> expected(322), traced;
    std::istringstream in(r.err);
    std::string line;
    static const std::regex expect(R"(^expect names-(\d+) (.*)$)");
    static const std::regex trace(
        R"(^--\d+-- jit: register 0x[0-9a-f]+-0x[0-9a-f]+ (.*) \(\[jit\]\), 0 lines$)");
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, expect) && std::stoul(m[1]) < expected.size())
            expected[std::stoul(m[1])] = m[2];
        else if (std::regex_match(line, m, trace))
            traced.push_back(m[1]);
    }
    const auto st = statuses(r.err);
    BOOST_TEST_REQUIRE(traced.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const std::string what = "names-" + std::to_string(i);
        BOOST_TEST_CONTEXT(what) {
            BOOST_TEST_REQUIRE(st.count(what) == 1);
            BOOST_TEST(st.at(what).ret == 1u);
            BOOST_TEST(st.at(what).err == 0);
            BOOST_TEST(traced[i] == expected[i]);
        }
    }
    // Some names hold junk bytes: they were escaped, not shown raw.
    BOOST_TEST(std::count_if(expected.begin(), expected.end(), [](const std::string& e) {
                   return e.find("\\x") != std::string::npos;
               }) > 10);
}

BOOST_AUTO_TEST_CASE(names_in_use_survive_name_pool_compactions) {
    // testjit compact: one name shared by two live functions, one used by
    // one, while the names of 60000 others die and the pool is compacted;
    // --trace-jit prints each name when its function is unregistered.
    const Result r = run_valgrind({"--tool=none", "-v", "--trace-jit=yes"}, program("compact"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.out, "compact done"), r.out);
    static const std::regex pool(
        R"(JIT: name pool: \d+ bytes in use, \d+ bytes unused, (\d+) compactions)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, pool),
                       r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0));
    BOOST_TEST(std::stoul(m[1]) >= 2u);
    const auto st = statuses(r.err);
    for (const char* what : {"kept-1", "kept-2", "kept-3", "unkept-1", "unkept-2", "unkept-3"}) {
        BOOST_TEST_REQUIRE(st.count(what) == 1, what);
        BOOST_TEST(st.at(what).ret == 1u, what);
    }
    std::vector<std::string> names;
    std::istringstream in(r.err);
    std::string line;
    static const std::regex unreg(
        R"(^--\d+-- jit: unregister 0x[0-9a-f]+-0x[0-9a-f]+ (kept\S*|\S*shared\S*|\S*alone\S*) \(\[jit\]\)$)");
    while (std::getline(in, line))
        if (std::regex_match(line, m, unreg)) names.push_back(m[1]);
    const std::string shared = "kept_shared_" + std::string(40, 's');
    const std::string alone = "kept_alone_" + std::string(40, 'a');
    BOOST_TEST(names == (std::vector<std::string>{shared, shared, alone}),
               r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0));
}

BOOST_AUTO_TEST_CASE(many_functions_are_each_named) {
    // 2000 functions of 16 bytes registered with VALGRIND_JIT_REGISTER
    // (default object), each run once: mov + ret.
    TempDir dir;
    const std::string out = dir.file("callgrind.many");
    std::vector<std::string> prog = program("many");
    prog.push_back("2000");
    const Result r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(out);
    std::size_t named = 0;
    for (const auto& [key, f] : p.functions()) {
        if (key.name.rfind("many_", 0) != 0) continue;
        ++named;
        BOOST_TEST(key.object == "[jit]");
        BOOST_TEST(f.self.at(0) == 2u, key.name);
    }
    BOOST_TEST(named == 2000u);
    // No address-named pseudo-function inside the registered code.
    static const std::regex range(R"(many range 0x([0-9a-f]+) 0x([0-9a-f]+))");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, range), r.err);
    const std::uint64_t lo = std::stoull(m[1], nullptr, 16), hi = std::stoull(m[2], nullptr, 16);
    for (const auto& [key, f] : p.functions()) {
        if (!address_named(key.name)) continue;
        const std::uint64_t a = std::stoull(key.name, nullptr, 16);
        BOOST_TEST(!(lo <= a && a < hi), "unnamed block " << key.name << " in JIT code");
    }
}

/// A counter of Valgrind's --stats=yes output: the number (with thousands
/// separators) matched by the first group of `pattern`, e.g.
/// R"(transtab: new +([\d,]+))".
static std::uint64_t stats_counter(const std::string& err, const std::string& pattern) {
    std::smatch m;
    if (!std::regex_search(err, m, std::regex(pattern)))
        throw std::runtime_error("no match for " + pattern + " in --stats output");
    std::string digits = m[1];
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    return std::stoull(digits);
}

BOOST_AUTO_TEST_CASE(translation_lookups_are_exact_with_the_entry_filter) {
    // Patch 0004: once a third translation sector is in use, a filter of
    // entry addresses answers lookups of untranslated code.  testjit
    // retranslate N runs N functions, discards the first half's
    // translations, and runs all N again: exactly N + N/2 of their
    // translations are made if the filter never hides a translation (a
    // hidden one is translated again) and forgets discarded ones.  The
    // program's own translations are measured with a small N.
    const std::string kFiltered = R"(tt/tc: ([\d,]+) lookups answered by the entry filter)";
    auto new_translations = [](long n) {
        const Result native = run({testjit(), "retranslate", std::to_string(n)});
        const Result r = run_valgrind({"--tool=none", "--stats=yes"},
                                      {testjit(), "retranslate", std::to_string(n)});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        BOOST_TEST(r.out == native.out);
        BOOST_TEST(contains(r.out, "retranslate sum "), r.out);
        return std::make_pair(r, stats_counter(r.err, R"(transtab: new +([\d,]+))"));
    };
    const auto [small, small_new] = new_translations(1000);
    BOOST_TEST(contains(small.err, "lookups answered by the entry filter (not in use)"));
    const long n = 120000;  // about 4 sectors of 42,588 translations
    const auto [big, big_new] = new_translations(n);
    BOOST_TEST(contains(big.err, "transtab: allocate entry filter"));
    // The same program code around both runs: allow a few blocks of
    // difference (the number printed at the end is longer).
    const std::int64_t extra = static_cast<std::int64_t>(big_new - small_new) - (n - 1000) * 3 / 2;
    BOOST_TEST(std::llabs(extra) <= 16, "translations beyond N + N/2: " << extra);
    // The second pass's first half missed everywhere after its discard:
    // the filter, counted down by the discard, answered nearly all of them.
    BOOST_TEST(stats_counter(big.err, kFiltered) >= std::uint64_t(n / 2 * 9 / 10));
    BOOST_TEST(stats_counter(big.err, R"(transtab: discarded +([\d,]+))") >= std::uint64_t(n / 2));

    // Three sectors: the filter exists from the third on, the oldest
    // sector is recycled (its translations counted out of the filter),
    // and --sanity-level=4 checks at each discard that the filter counts
    // every translation in every sector.
    const Result native = run({testjit(), "retranslate", "100000"});
    const Result r =
        run_valgrind({"--tool=none", "--stats=yes", "--num-transtab-sectors=3", "--sanity-level=4"},
                     {testjit(), "retranslate", "100000"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == native.out);
    BOOST_TEST(!contains(r.err, "sanity fail"), r.err.substr(0, 4000));
    BOOST_TEST(stats_counter(r.err, R"(sectors recycled ([\d,]+))") >= 1u, r.err);
    BOOST_TEST(stats_counter(r.err, kFiltered) > 0u);
}

BOOST_AUTO_TEST_CASE(random_churn_matches_a_model_and_keeps_names_exact) {
    // testjit churn: 300000 random register / unregister / unregister-range
    // requests over 20000 slots (ascending, descending and random order,
    // so the registry's chunks fill, split, merge and empty), every return
    // value and status checked against a model inside the client.  Long
    // names make the name pool compact several times.
    for (const char* seed : {"1", "2", "3"}) {
        std::vector<std::string> prog = program("churn");
        prog.insert(prog.end(), {seed, "300000"});
        const Result r = run_valgrind({"--tool=none"}, prog);
        BOOST_TEST_REQUIRE(r.status == 0, r);
        BOOST_TEST(contains(r.err, "churn mismatches 0,"),
                   "seed " << seed << ": " << r.err.substr(0, 4000));
    }
    // Under Callgrind, with the exit summary: every function still
    // registered at the end ran once (mov + ret = 2 instructions) and must
    // carry exactly its name; shared names add up; no removed name has
    // costs.
    TempDir dir;
    const std::string out = dir.file("callgrind.churn");
    std::vector<std::string> prog = program("churn");
    prog.insert(prog.end(), {"7", "300000"});
    const Result r = run_valgrind({"--tool=callgrind", "-v", "--callgrind-out-file=" + out}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.err, "churn mismatches 0,"), r.err.substr(0, 4000));
    std::map<std::string, std::uint64_t> expected;
    {
        std::istringstream in(r.err);
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("churn live ", 0) == 0) expected[line.substr(11)] += 2;
    }
    BOOST_TEST_REQUIRE(expected.size() > 500u);
    const cg::Profile p = cg::Profile::parse_file(out);
    std::map<std::string, std::uint64_t> actual;
    for (const auto& [key, f] : p.functions()) {
        if (key.name.rfind("churn_", 0) != 0) continue;
        BOOST_TEST(key.object == "[jit]", key.name);
        actual[key.name] += f.self.at(0);
    }
    BOOST_TEST(actual.size() == expected.size());
    for (const auto& [name, ir] : expected) {
        const auto it = actual.find(name);
        BOOST_TEST((it != actual.end() && it->second == ir), name << ": expected " << ir);
    }
    // The name pool was compacted (names of removed functions freed).
    static const std::regex pool(
        R"(JIT: name pool: \d+ bytes in use, \d+ bytes unused, (\d+) compactions freed (\d+) bytes)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, pool),
                       r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0));
    BOOST_TEST(std::stoul(m[1]) >= 3u);
    BOOST_TEST(std::stoull(m[2]) >= 3u * (1u << 20));
}
