// unit_tool_text.cpp: Boost.Test tests of vg-jit's manual (--help, help
// COMMAND, and the vg-jit(1) man page help2man makes from --help at build
// time, tool/vg-jit.1) and of its handling
// of names and file names that are not text (check flags them, dump escapes
// them).  Runs the built tool/vg-jit.
#define BOOST_TEST_MODULE unit_tool_text
#include <boost/test/unit_test.hpp>

#include "jitdump_builder.hpp"
#include "test_support.hpp"

#include <algorithm>
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

std::string write(const TempDir& dir, const std::string& name,
                  const std::vector<unsigned char>& b) {
    return write(dir, name, std::string(b.begin(), b.end()));
}

boost::test_tools::assertion_result have_groff(utf::test_unit_id) {
    boost::test_tools::assertion_result r(::access("/usr/bin/groff", X_OK) == 0);
    r.message() << "/usr/bin/groff is not installed";
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(manual)

// The man page is made from --help: rendered by groff, it holds the words
// of --help in the same order, apart from the headings help2man turns into
// sections ("Usage:", "or:", "Options:", "Examples:").
BOOST_AUTO_TEST_CASE(man_page_has_the_words_of_help, *utf::precondition(have_groff)) {
    const std::string page = builddir() + "/tool/vg-jit.1";
    BOOST_REQUIRE_MESSAGE(::access(page.c_str(), R_OK) == 0, page << " was not built");
    // -ww: every warning; -Tascii with overstriking off, a wide line so
    // that nothing is hyphenated (the page also says .nh).
    const Result r =
        run({"/bin/sh", "-c", "groff -ww -man -Tascii -rLL=300n -P-c -P-b -P-u -P-o " + page});
    BOOST_REQUIRE_MESSAGE(r.status == 0, r);
    BOOST_TEST(r.err.empty(), "groff warnings:\n" << r.err);
    const std::vector<std::string> rendered = words(r.out);
    for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "SEE"})
        BOOST_TEST((std::find(rendered.begin(), rendered.end(), section) != rendered.end()),
                   section);
    const Result help = run_tool({"--help"});
    BOOST_REQUIRE(help.status == 0);
    std::size_t at = 0, missing = 0;
    for (const std::string& w : words(help.out)) {
        if (w == "Usage:" || w == "or:" || w == "Options:" || w == "Examples:") continue;
        const auto found = std::find(rendered.begin() + at, rendered.end(), w);
        if (found == rendered.end()) {
            BOOST_TEST_MESSAGE("not in the man page after word " << at << ": " << w);
            ++missing;
            continue;
        }
        at = static_cast<std::size_t>(found - rendered.begin()) + 1;
    }
    BOOST_TEST(missing == 0u);
    // help2man's NAME line is the summary after the synopsis.
    BOOST_TEST(contains(r.out, "vg-jit - Inspect the files JIT runtimes write"),
               r.out.substr(0, 400));
}

BOOST_AUTO_TEST_CASE(help_command_prints_its_synopsis_and_entry) {
    const Result all = run_tool({"--help"});
    BOOST_REQUIRE(all.status == 0);
    for (const char* cmd : {"check", "dump", "annotate", "export", "profiles", "help"}) {
        const Result h = run_tool({"help", cmd});
        BOOST_TEST(h.status == 0, cmd);
        // Its synopsis line is one of the manual's usage lines.
        const std::string syn = h.out.substr(0, h.out.find('\n'));
        BOOST_TEST(syn.rfind("Usage: vg-jit " + std::string(cmd), 0) == 0u, h.out);
        BOOST_TEST((all.out.rfind(syn + "\n", 0) == 0u ||
                    contains(all.out, "  or:  " + syn.substr(7) + "\n")),
                   cmd);
        // Its entry is the manual's, byte for byte, under "Commands:".
        const std::string entry = h.out.substr(7);
        BOOST_TEST(entry.size() > 40u, cmd);
        BOOST_REQUIRE(contains(all.out, "\nCommands:\n"));
        BOOST_TEST(contains(all.out.substr(all.out.find("\nCommands:\n")), "\n" + entry),
                   cmd << ":\n"
                       << entry);
        // `vg-jit CMD --help` is the same text.
        BOOST_TEST(run_tool({cmd, "--help"}).out == h.out, cmd);
    }
    // One command's help holds no other command's entry.
    BOOST_TEST(!contains(run_tool({"help", "check"}).out, "vg-jit dump"));
}

// Every option a command declares is in its help with its text, and the
// synopsis names it.
BOOST_AUTO_TEST_CASE(command_help_lists_its_options) {
    const Result h = run_tool({"help", "annotate"});
    BOOST_REQUIRE(h.status == 0);
    BOOST_TEST(
        contains(h.out,
                 "Usage: vg-jit annotate --map=FILE... [--output=OUT] [--verbose] PROFILE\n"),
        h.out);
    BOOST_TEST(contains(h.out, "\n  --map=FILE            A jitdump file or perf map"), h.out);
    BOOST_TEST(contains(h.out, "\n  -o, --output=OUT      Where to write"), h.out);
    BOOST_TEST(contains(h.out, "\n  -v, --verbose         Print what was read"), h.out);
    const Result c = run_tool({"check", "--help"});
    BOOST_TEST(contains(c.out, "Usage: vg-jit check [--strict] [--quiet] [--format=FMT] FILE...\n"),
               c.out);
    BOOST_TEST(contains(c.out, "\n  -q, --quiet           No summary lines"), c.out);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(text)

BOOST_AUTO_TEST_CASE(perf_map_names_that_are_not_text) {
    TempDir dir("vgjit-text");
    const std::string map = write(dir, "perf-77.map",
                                  std::string("1000 10 good\n"
                                              "2000 10 bad\xff\xfe"
                                              "name\n"
                                              "3000 10 ctl\x01x\\y\n"
                                              "4000 10 caf\xc3\xa9\n"
                                              "5000 10 c1\xc2\x85"
                                              "end\n"));
    const Result c = run_tool({"check", map});
    BOOST_TEST(c.status == 0, c);  // warnings only
    BOOST_TEST(contains(c.out, map + ":2: warning: name 'bad\\xff\\xfename' is not text: byte 0xff "
                                     "at offset 3 is not UTF-8\n"),
               c);
    BOOST_TEST(contains(c.out, map + ":3: warning: name 'ctl\\x01x\\\\y' is not text: control "
                                     "character U+0001 at offset 3\n"),
               c);
    BOOST_TEST(contains(c.out, map + ":5: warning: name 'c1\\xc2\\x85end' is not text: control "
                                     "character U+0085 at offset 2\n"),
               c);
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
                          {0x2004, 2, 0,
                           std::string("SY:JS:\x01"
                                       "fib")},
                          {0x2008, 3, 0,
                           std::string("\xc0\xaf"
                                       "bad")}});
    b.code_load(0x2000, 16, std::string("junk\x1b[31m"), 2);
    const std::string f = write(dir, "jit-4242.dump", b.bytes);
    const Result c = run_tool({"check", f});
    BOOST_TEST(c.status == 0, c);
    BOOST_TEST(
        contains(c.out,
                 ": warning: CODE_DEBUG_INFO: 2 of 3 line entries have a file name that is not "
                 "text (first: entry 1, 'SY:JS:\\x01fib': control character U+0001 at offset 6)\n"),
        c);
    BOOST_TEST(contains(c.out,
                        ": warning: CODE_LOAD name 'junk\\x1b[31m' is not text: control character "
                        "U+001B at offset 4\n"),
               c);
    BOOST_TEST(contains(c.out, "0 errors, 2 warnings\n"), c);

    const Result d = run_tool({"dump", f});
    BOOST_TEST(d.status == 0, d);
    BOOST_TEST(contains(d.out, "SY:JS:\\x01fib:2"), d);
    BOOST_TEST(contains(d.out, "\\xc0\\xafbad:3"), d);
    BOOST_TEST(contains(d.out, "'junk\\x1b[31m'"), d);
    BOOST_TEST(!contains(d.out, "\x1b"), d);
    // JSON escapes control characters its own way (\u00XX).
    const Result j = run_tool({"dump", "--json", f});
    BOOST_TEST(contains(j.out, "\"junk\\u001b[31m\""), j);
}

BOOST_AUTO_TEST_SUITE_END()
