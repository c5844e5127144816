// unit_parsers_perfmap.cpp: unit_parsers' perf maps (unit_parsers.cpp
// says what the program holds): the lines of several producers, line
// ends, lines the reader refuses and goes on after, and the end of a file
// that is complete.
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "parser_driver.hpp"
#include "unit_parsers.hpp"

#include <cstddef>
#include <string>
#include <vector>

using namespace jitdump_test;

namespace {

/// Parses the perf map `text` with every feeding strategy (`finish`: as a
/// complete file, read to its end); requires identical events; returns
/// them.
Lines perfmap_all_ways(const std::string& text, bool finish = false) {
    const std::vector<unsigned char> bytes(text.begin(), text.end());
    const Lines whole = run_perfmap(bytes, Feed::Whole, 0, finish);
    for (std::size_t k = 0; k <= bytes.size(); ++k) {
        BOOST_REQUIRE_MESSAGE(run_perfmap(bytes, Feed::Split, k, finish) == whole,
                              "split at " << k << " differs");
    }
    BOOST_REQUIRE(run_perfmap(bytes, Feed::Growing, 0, finish) == whole);
    BOOST_REQUIRE(run_perfmap(bytes, Feed::Minimal, 0, finish) == whole);
    return whole;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(perfmap)

BOOST_AUTO_TEST_CASE(names_with_spaces_parentheses_and_prefixes) {
    const Lines got = perfmap_all_ways(
        "7f0000001000 20 LazyCompile:~fib /app/x.js:1\n"
        "0x7f0000002000 0x10 Function (anonymous) [native]\n"
        "7F0000003000\t4\tpy::main:/tmp/a b.py\n"
        "  1 1 x\n");
    const Lines want = {"ENTRY L1 @0 0x7f0000001000+0x20 'LazyCompile:~fib /app/x.js:1'",
                        "ENTRY L2 @45 0x7f0000002000+0x10 'Function (anonymous) [native]'",
                        "ENTRY L3 @95 0x7f0000003000+0x4 'py::main:/tmp/a b.py'",
                        "ENTRY L4 @131 0x1+0x1 'x'", "END @139"};
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(hotspot_dump_perf_map_at_exit_lines) {
    // OpenJDK's -XX:+DumpPerfMapAtExit: "0x"-prefixed, zero-padded 16-digit
    // START and SIZE, names with blanks, parentheses and angle brackets.
    const Lines got = perfmap_all_ways(
        "0x00007f3c1d000000 0x0000000000017de0 Interpreter\n"
        "0x00007f3c1d0a1b40 0x0000000000000130 int JitWork.fib(int)\n"
        "0X00007F3C1D0A2000 0X0000000000000040 void java.lang.Object.<init>()\n"
        "0x00007f3c1d0a3000 0x0000000000000000 zero\n"
        "0x10000000000000000 0x10 too_big\n"
        "0x00007f3c1d0a4000 0x40name_glued\n"
        "0x00007f3c1d0a5000 0x0000000000000008 last");
    const Lines want = {"ENTRY L1 @0 0x7f3c1d000000+0x17de0 'Interpreter'",
                        "ENTRY L2 @50 0x7f3c1d0a1b40+0x130 'int JitWork.fib(int)'",
                        "ENTRY L3 @109 0x7f3c1d0a2000+0x40 'void java.lang.Object.<init>()'",
                        "BAD L4 @178 err=" + std::to_string(PERFMAP_ERR_ZERO_SIZE),
                        "BAD L5 @221 err=" + std::to_string(PERFMAP_ERR_NUMBER_TOO_BIG),
                        "BAD L6 @254 err=" + std::to_string(PERFMAP_ERR_BAD_SIZE),
                        "END @288"};
    BOOST_TEST(got == want, boost::test_tools::per_element());
    // Read to its end (the file is complete at exit): the last line counts
    // without its '\n'.
    const Lines done = perfmap_all_ways("0x00007f3c1d0a5000 0x0000000000000008 last", true);
    BOOST_REQUIRE_EQUAL(done.size(), 2u);
    BOOST_TEST(done[0] == "ENTRY L1 @0 0x7f3c1d0a5000+0x8 'last'");
}

BOOST_AUTO_TEST_CASE(crlf_and_missing_trailing_newline) {
    const Lines live = perfmap_all_ways("1000 10 a\r\n2000 10 b c\r\n3000 10 partial");
    const Lines want_live = {"ENTRY L1 @0 0x1000+0x10 'a'", "ENTRY L2 @11 0x2000+0x10 'b c'",
                             "END @24"};
    BOOST_TEST(live == want_live, boost::test_tools::per_element());
    // A complete file: the last line counts even without '\n'.
    const Lines done = perfmap_all_ways("1000 10 a\r\n2000 10 b c\r\n3000 10 partial\r", true);
    BOOST_REQUIRE_EQUAL(done.size(), 4u);
    BOOST_TEST(done[2] == "ENTRY L3 @24 0x3000+0x10 'partial'");
    BOOST_TEST(done[3] == "END @40");
}

BOOST_AUTO_TEST_CASE(garbage_lines_are_reported_and_do_not_stop_the_reader) {
    const Lines got = perfmap_all_ways(
        "1000 10 good1\n"             // L1
        "zz 10 bad start\n"           // L2
        "1000 qq bad size\n"          // L3
        "1000 10\n"                   // L4 no name
        "1000 10   \n"                // L5 blanks only after size
        "1000 0 zero\n"               // L6
        "ffffffffffffff00 200 w\n"    // L7 wraps
        "11112222333344445 1 big\n"   // L8 17 digits
        "\n"                          // L9 blank: ignored
        "1000\n"                      // L10 no size
        "10g0 1 x\n"                  // L11 junk in number
        "0x 1 x\n"                    // L12 prefix without digits
        "0000000000000000001 1 lz\n"  // L13 leading zeros are fine
        "2000 10 good2\n");           // L14
    const Lines want = {"ENTRY L1 @0 0x1000+0x10 'good1'",
                        "BAD L2 @14 err=" + std::to_string(PERFMAP_ERR_BAD_START),
                        "BAD L3 @30 err=" + std::to_string(PERFMAP_ERR_BAD_SIZE),
                        "BAD L4 @47 err=" + std::to_string(PERFMAP_ERR_MISSING_NAME),
                        "BAD L5 @55 err=" + std::to_string(PERFMAP_ERR_MISSING_NAME),
                        "BAD L6 @66 err=" + std::to_string(PERFMAP_ERR_ZERO_SIZE),
                        "BAD L7 @78 err=" + std::to_string(PERFMAP_ERR_RANGE_WRAPS),
                        "BAD L8 @101 err=" + std::to_string(PERFMAP_ERR_NUMBER_TOO_BIG),
                        "BAD L10 @126 err=" + std::to_string(PERFMAP_ERR_BAD_SIZE),
                        "BAD L11 @131 err=" + std::to_string(PERFMAP_ERR_BAD_START),
                        "BAD L12 @140 err=" + std::to_string(PERFMAP_ERR_BAD_START),
                        "ENTRY L13 @147 0x1+0x1 'lz'",
                        "ENTRY L14 @172 0x2000+0x10 'good2'",
                        "END @186"};
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(nul_byte_in_line) {
    const std::string text("1000 10 a\0b\n2000 10 c\n", 22);
    const Lines got = perfmap_all_ways(text);
    BOOST_REQUIRE_EQUAL(got.size(), 3u);
    BOOST_TEST(got[0] == "BAD L1 @0 err=" + std::to_string(PERFMAP_ERR_NUL_BYTE));
    BOOST_TEST(got[1] == "ENTRY L2 @12 0x2000+0x10 'c'");
}

BOOST_AUTO_TEST_CASE(over_long_line_is_reported_once_and_skipped) {
    std::string text = "1000 10 before\n";
    text += "2000 10 " + std::string(PERFMAP_LINE_MAX + 100, 'n') + "\n";
    text += "3000 10 after\n";
    const std::vector<unsigned char> bytes(text.begin(), text.end());
    const Lines whole = run_perfmap(bytes, Feed::Whole);
    const Lines want = {"ENTRY L1 @0 0x1000+0x10 'before'",
                        "BAD L2 @15 err=" + std::to_string(PERFMAP_ERR_LINE_TOO_LONG),
                        "ENTRY L3 @65660 0x3000+0x10 'after'", "END @65674"};
    BOOST_TEST(whole == want, boost::test_tools::per_element());
    for (std::size_t k :
         {0ul, 1ul, 15ul, 16ul, 30000ul, 65551ul, 65552ul, 65553ul, 65659ul, 65660ul, 65661ul})
        BOOST_TEST((run_perfmap(bytes, Feed::Split, k) == whole), "split " << k);
    BOOST_TEST((run_perfmap(bytes, Feed::Minimal) == whole));
    // A line of exactly PERFMAP_LINE_MAX bytes is still parsed.
    std::string edge = "1 1 " + std::string(PERFMAP_LINE_MAX - 4, 'e') + "\n";
    const Lines e = run_perfmap({edge.begin(), edge.end()}, Feed::Minimal);
    BOOST_REQUIRE_EQUAL(e.size(), 2u);
    BOOST_TEST(e[0].rfind("ENTRY L1 @0 0x1+0x1 'eee", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(empty_input_needs_one_byte) {
    PerfmapReader r;
    PerfmapEvent ev;
    ML_(perfmap_init)(&r);
    BOOST_TEST(ML_(perfmap_next)(&r, nullptr, 0, &ev) == PERFMAP_EV_NEED_MORE);
    BOOST_TEST(ev.need == 1u);
    BOOST_TEST(ML_(perfmap_finish)(&r, nullptr, 0, &ev) == PERFMAP_EV_NEED_MORE);
    const unsigned char line[] = "10 2 f";
    BOOST_TEST(ML_(perfmap_next)(&r, line, 6, &ev) == PERFMAP_EV_NEED_MORE);
    BOOST_TEST(ev.need == 7u);
    BOOST_TEST(ML_(perfmap_finish)(&r, line, 6, &ev) == PERFMAP_EV_ENTRY);
    BOOST_TEST(r.offset == 6u);
    BOOST_TEST(r.line == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
