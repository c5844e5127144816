// integration_producers_perfmap.cpp - integration_producers' cases of
// perf maps (/tmp/perf-<pid>.map, read with --jit-perf-map=yes): written
// in pieces, a symbolic link, owned by another user, garbage;
// integration_producers.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_producers.hpp"
#include "test_support.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <string>

using namespace vgjit::test;
using namespace producers_test;

BOOST_AUTO_TEST_CASE(perf_map_written_in_pieces_is_followed_with_the_option) {
    // pm_one's line is complete from the start; pm_two's line is written in
    // two halves with 100 calls of each function in between, then 100 more
    // calls of each: all 200 calls of each are named (pm_two's first 100
    // when Callgrind dumps).
    const std::string two = "pm_two (tier 2) [x.js:7]";
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r = run_producer(dir, "perfmap", callgrind_args(out, {"--jit-perf-map=yes"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    const cg::FunctionCosts* one = function_named(p, "pm_one");
    const cg::FunctionCosts* second = function_named(p, two);
    BOOST_TEST_REQUIRE(one != nullptr);
    BOOST_TEST_REQUIRE(second != nullptr);
    BOOST_TEST(one->key.object == map);
    BOOST_TEST(second->key.object == map);
    BOOST_TEST(one->self.at(0) == 200 * sum_call(1000));
    BOOST_TEST(second->self.at(0) == 200 * sum_call(1000));
    BOOST_TEST(cost_in_range(p, r.fns.at(two), "???") == 0u);

    // Without --jit-perf-map=yes the map is not read.
    const std::string plain_out = dir.file("callgrind.plain");
    const Result plain = run_valgrind(callgrind_args(plain_out), {producer(), "perfmap"},
                                      RunOptions{120, dir.path(), {}});
    BOOST_TEST_REQUIRE(plain.status == 0, plain);
    BOOST_TEST(plain.out == r.native.out);
    const cg::Profile q = cg::Profile::parse_file(plain_out);
    BOOST_TEST(q.functions_named("pm_one").empty());
    BOOST_TEST(q.functions_named(two).empty());
    const auto fns = function_ranges(plain.err);
    BOOST_TEST(cost_in_range(q, fns.at("pm_one"), "???") == 200 * sum_call(1000));
}

BOOST_AUTO_TEST_CASE(perf_map_that_is_a_symlink_is_ignored_with_a_warning) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r =
        run_producer(dir, "perfmap-symlink", callgrind_args(out, {"--jit-perf-map=yes"}));
    const cg::Profile p = cg::Profile::parse_file(out);
    BOOST_TEST(p.functions_named("symlinked_map").empty());
    BOOST_TEST(cost_in_range(p, r.fns.at("symlinked_map"), "???") == 100 * sum_call(1000));
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    BOOST_TEST(!warnings_about(r.vg.err, map).empty(), "no warning about " << map << " in\n"
                                                                           << r.vg.err);
}

namespace {

/// Boost.Test precondition: whether this process can give a file to
/// another user (uid and gid 65534, "nobody"), as jitdump_producer's
/// perfmap-foreign mode does: true as root (or with CAP_CHOWN) unless this
/// process is uid 65534, else false with the reason, so the case is
/// reported as skipped.
boost::test_tools::assertion_result can_give_files_away(boost::unit_test::test_unit_id) {
    if (::geteuid() == 65534) {
        boost::test_tools::assertion_result no(false);
        no.message() << "running as uid 65534 itself; run as root";
        return no;
    }
    TempDir dir;
    const std::string probe = dir.file("probe");
    const int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY, 0600);
    boost::test_tools::assertion_result ok(fd >= 0 && ::fchown(fd, 65534, 65534) == 0);
    if (!ok)
        ok.message() << "cannot give a file to uid 65534 (" << std::strerror(errno)
                     << "); run as root";
    if (fd >= 0) ::close(fd);
    return ok;
}

}  // namespace

BOOST_AUTO_TEST_CASE(perf_map_owned_by_another_user_is_ignored_with_a_warning,
                     *boost::unit_test::precondition(can_give_files_away)) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const ProducerRun r =
        run_producer(dir, "perfmap-foreign", callgrind_args(out, {"--jit-perf-map=yes"}));
    BOOST_TEST_REQUIRE(!contains(r.native.err, "skip:"), r.native.err);
    BOOST_TEST_REQUIRE(!contains(r.vg.err, "skip:"), r.vg.err);
    const cg::Profile p = cg::Profile::parse_file(out);
    BOOST_TEST(p.functions_named("foreign_map").empty());
    const std::string map = "/tmp/perf-" + p.header().at("pid") + ".map";
    BOOST_TEST(contains(r.vg.err, "Warning: " + map +
                                      " is not a regular file owned by this user or root: "
                                      "ignored"),
               r.vg.err);
}

BOOST_AUTO_TEST_CASE(garbage_perf_map_counts_every_line_it_reads) {
    // Three malformed lines, the last without its '\n' (parsed at exit):
    // three lines read, three malformed.
    const Result r = run_valgrind(
        {"--tool=none", "-v", "--jit-perf-map=yes"},
        {"/bin/sh", "-c", "printf 'garbage line\\nmore garbage here\\nzz' > /tmp/perf-$$.map"});
    remove_tmp_files_of(r.pid);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex summary(
        R"(JIT: perf map (/tmp/perf-\d+\.map): (\d+) lines read: 0 loaded, 0 moved, 0 refused, )"
        R"((\d+) malformed, 0 without code)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, summary), r.err);
    BOOST_TEST(m[2].str() == "3");
    BOOST_TEST(m[3].str() == "3");
}
