// unit_tool_text.cpp: Boost.Test tests of vg-jit's manual (--help, help
// COMMAND, and the vg-jit(1) man page rendered by --man) and of its handling
// of names and file names that are not text (check flags them, dump escapes
// them).  Runs the built tool/vg-jit.
#define BOOST_TEST_MODULE unit_tool_text
#include <boost/test/unit_test.hpp>

#include "jitdump_builder.hpp"
#include "test_support.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace utf = boost::unit_test;
using namespace vgjit::test;
using jitdump_test::JitdumpBuilder;

namespace {

Result run_tool(const std::vector<std::string>& args) {
    std::vector<std::string> argv{vg_jit()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
}

/// The whitespace-separated words of `s`.
std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> w;
    std::istringstream in(s);
    for (std::string x; in >> x;) w.push_back(x);
    return w;
}

std::string write(const TempDir& dir, const std::string& name, const std::string& bytes) {
    std::ofstream(dir.file(name), std::ios::binary) << bytes;
    return dir.file(name);
}

std::string write(const TempDir& dir, const std::string& name, const std::vector<unsigned char>& b) {
    return write(dir, name, std::string(b.begin(), b.end()));
}

boost::test_tools::assertion_result have_groff(utf::test_unit_id) {
    boost::test_tools::assertion_result r(::access("/usr/bin/groff", X_OK) == 0);
    r.message() << "/usr/bin/groff is not installed";
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(manual)

// The man page is rendered from the same tables as --help: rendered by
// groff, it holds the same words in the same order (apart from the page
// header and footer groff adds).
BOOST_AUTO_TEST_CASE(man_page_has_the_words_of_help, *utf::precondition(have_groff)) {
    TempDir dir("vgjit-man");
    const Result man = run_tool({"--man"});
    BOOST_REQUIRE_MESSAGE(man.status == 0, man);
    const std::string page = write(dir, "vg-jit.1", man.out);
    // -ww: every warning; -Tascii with overstriking off, a wide line so
    // that nothing is hyphenated (the page also says .nh).
    const Result r = run({"/bin/sh", "-c",
                          "groff -ww -man -Tascii -rLL=300n -P-c -P-b -P-u -P-o " + page});
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    BOOST_TEST(r.err.empty(), "groff warnings:\n" << r.err);
    std::vector<std::string> rendered = words(r.out);
    // Drop groff's header ("VG-JIT(1) User Commands VG-JIT(1)") and footer
    // ("vg-jit 0.1.0 VG-JIT(1)").
    BOOST_REQUIRE(rendered.size() > 8u);
    BOOST_TEST(rendered[0] == "VG-JIT(1)");
    rendered.erase(rendered.begin(), rendered.begin() + 4);
    while (!rendered.empty() && rendered.back() != "SEE" && rendered.back().find("perf-report") == std::string::npos)
        rendered.pop_back();
    const Result help = run_tool({"--help"});
    BOOST_REQUIRE(help.status == 0);
    const std::vector<std::string> expected = words(help.out);
    BOOST_TEST(rendered == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(help_command_prints_its_synopsis_and_entry) {
    const Result all = run_tool({"--help"});
    BOOST_REQUIRE(all.status == 0);
    for (const char* cmd : {"check", "dump", "annotate", "help"}) {
        const Result h = run_tool({"help", cmd});
        BOOST_TEST(h.status == 0, cmd);
        // Its synopsis line is the one in the manual's SYNOPSIS.
        const std::string syn = h.out.substr(0, h.out.find("\n\n"));
        BOOST_TEST(syn.rfind("SYNOPSIS\n    vg-jit " + std::string(cmd) + " ", 0) == 0u, h.out);
        BOOST_TEST(contains(all.out, syn.substr(9) + "\n"), cmd);
        // Its entry is the manual's COMMANDS entry, byte for byte.
        const std::string entry = h.out.substr(h.out.find("DESCRIPTION\n") + 12);
        BOOST_TEST(entry.size() > 40u, cmd);
        BOOST_TEST(contains(all.out, "COMMANDS\n"), cmd);
        BOOST_TEST(contains(all.out.substr(all.out.find("COMMANDS\n")), entry), cmd << ":\n" << entry);
        // `vg-jit CMD --help` is the same text.
        BOOST_TEST(run_tool({cmd, "--help"}).out == h.out, cmd);
    }
    // One command's help holds no other command's entry.
    BOOST_TEST(!contains(run_tool({"help", "check"}).out, "    dump FILE\n"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(text)

BOOST_AUTO_TEST_CASE(perf_map_names_that_are_not_text) {
    TempDir dir("vgjit-text");
    const std::string map = write(dir, "perf-77.map",
                                  std::string("1000 10 good\n"
                                              "2000 10 bad\xff\xfe" "name\n"
                                              "3000 10 ctl\x01x\\y\n"
                                              "4000 10 caf\xc3\xa9\n"
                                              "5000 10 c1\xc2\x85" "end\n"));
    const Result c = run_tool({"check", map});
    BOOST_TEST(c.status == 0, c);  // warnings only
    BOOST_TEST(contains(c.out, map + ":2: warning: name 'bad\\xff\\xfename' is not text: byte 0xff at offset 3 is not UTF-8\n"), c);
    BOOST_TEST(contains(c.out, map + ":3: warning: name 'ctl\\x01x\\\\y' is not text: control character U+0001 at offset 3\n"), c);
    BOOST_TEST(contains(c.out, map + ":5: warning: name 'c1\\xc2\\x85end' is not text: control character U+0085 at offset 2\n"), c);
    BOOST_TEST(!contains(c.out, ":1: warning"), c);
    BOOST_TEST(!contains(c.out, ":4: warning"), c);  // valid UTF-8
    BOOST_TEST(contains(c.out, "perf map, 5 entries, 0 errors, 3 warnings\n"), c);
    BOOST_TEST(run_tool({"check", "--strict", map}).status == 1);

    const Result d = run_tool({"dump", map});
    BOOST_TEST(d.status == 0, d);
    BOOST_TEST(contains(d.out, "size 16 'bad\\xff\\xfename'\n"), d);
    BOOST_TEST(contains(d.out, "size 16 'ctl\\x01x\\\\y'\n"), d);
    BOOST_TEST(contains(d.out, "size 16 'caf\xc3\xa9'\n"), d);
    BOOST_TEST(contains(d.out, "size 16 'c1\\xc2\\x85end'\n"), d);
    // Nothing raw gets through: the listing is UTF-8 without control
    // characters besides the newlines.
    for (unsigned char ch : d.out)
        BOOST_TEST((ch == '\n' || (ch >= 0x20 && ch != 0x7f && ch != 0xff && ch != 0xfe)),
                   "raw byte " << int(ch));
}

BOOST_AUTO_TEST_CASE(jitdump_names_and_line_table_files_that_are_not_text) {
    TempDir dir("vgjit-text");
    JitdumpBuilder b;
    b.header();
    b.code_load(0x1000, 16, "ok_fn", 1);
    b.debug_info(0x2000, {{0x2000, 1, 0, "good.js"},
                          {0x2004, 2, 0, std::string("SY:JS:\x01" "fib")},
                          {0x2008, 3, 0, std::string("\xc0\xaf" "bad")}});
    b.code_load(0x2000, 16, std::string("junk\x1b[31m"), 2);
    const std::string f = write(dir, "jit-4242.dump", b.bytes);
    const Result c = run_tool({"check", f});
    BOOST_TEST(c.status == 0, c);
    BOOST_TEST(contains(c.out, ": warning: CODE_DEBUG_INFO: 2 of 3 line entries have a file name that is not text (first: entry 1, 'SY:JS:\\x01fib': control character U+0001 at offset 6)\n"), c);
    BOOST_TEST(contains(c.out, ": warning: CODE_LOAD name 'junk\\x1b[31m' is not text: control character U+001B at offset 4\n"), c);
    BOOST_TEST(contains(c.out, "0 errors, 2 warnings\n"), c);

    const Result d = run_tool({"dump", f});
    BOOST_TEST(d.status == 0, d);
    BOOST_TEST(contains(d.out, "SY:JS:\\x01fib:2"), d);
    BOOST_TEST(contains(d.out, "\\xc0\\xafbad:3"), d);
    BOOST_TEST(contains(d.out, "'junk\\x1b[31m'"), d);
    BOOST_TEST(!contains(d.out, "\x1b"), d);
    // JSON keeps its own escaping (\u00XX), unchanged.
    const Result j = run_tool({"dump", "--json", f});
    BOOST_TEST(contains(j.out, "\"junk\\u001b[31m\""), j);
}

BOOST_AUTO_TEST_SUITE_END()
