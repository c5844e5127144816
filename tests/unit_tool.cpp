// unit_tool.cpp: Boost.Test tests for vg-jit (tool/).  Runs the built
// program on the fixtures in tests/fixtures/ and checks exit statuses and
// the reported offsets and line numbers; also unit-tests the tool's rules
// for JSON strings and its file-name helpers directly.
//
// The program is vgjit::test::vg_jit() ($VGJIT_TOOL, else the build
// tree's tool/vg-jit); fixtures under vgjit::test::srcdir().
#define BOOST_TEST_MODULE unit_tool
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "../tool/analyze.hpp"
#include "../tool/profile_export.hpp"
#include "../tool/text.hpp"
#include "../examples/src/eh_frame.hpp"
#include "fixtures/jitdump_fixtures.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using vgjit::test::contains;
using vgjit::test::env_or;
using vgjit::test::srcdir;
using vgjit::test::vg_jit;

std::string fixture(const std::string& name) { return srcdir() + "/tests/fixtures/" + name; }

/// What one vg-jit run gave: its exit status and its output (stdout, then
/// stderr).
struct Result {
    int status;
    std::string out;
};

/// Runs vg-jit with `args` (no shell) through vgjit::test::run(); a run that
/// did not exit normally (signal, timeout) fails the test case.
Result run(const std::vector<std::string>& args) {
    std::vector<std::string> argv{vg_jit()};
    argv.insert(argv.end(), args.begin(), args.end());
    const vgjit::test::Result r = vgjit::test::run(argv);
    BOOST_REQUIRE_MESSAGE(!r.timed_out && r.status < 128, "vg-jit did not exit normally: " << r);
    return Result{r.status, r.out + r.err};
}

std::size_t count(const std::string& hay, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1))
        ++n;
    return n;
}

/// Checks one malformed fixture: exit 1 and "FILE:WHERE: error: PHRASE".
void expect_error(const std::string& name, const std::string& where, const std::string& phrase) {
    const std::string f = fixture(name);
    const Result r = run({"check", f});
    BOOST_TEST(r.status == 1, name << " exit status " << r.status);
    const std::string want = f + ":" + where + ": error: " + phrase;
    BOOST_TEST(contains(r.out, want), name << ": expected\n  " << want << "\ngot\n" << r.out);
}

/// Writes `bytes` to `path`.
void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(usage)

BOOST_AUTO_TEST_CASE(help_is_a_manual_page) {
    const Result r = run({"--help"});
    BOOST_TEST(r.status == 0);
    for (const char* s : {"Usage: vg-jit check", "  or:  vg-jit dump", "\nCommands:\n",
                          "\nExit status:\n", "\nOptions:\n", "\nExamples:\n", "\nvg-jit export "})
        BOOST_TEST(contains(r.out, s), "missing " << s);
    BOOST_TEST(run({"-h"}).out == r.out);
    BOOST_TEST(run({"help"}).out == r.out);
    const Result h = run({"help", "check"});
    BOOST_TEST(h.status == 0);
    BOOST_TEST(contains(h.out, "vg-jit check "));
    BOOST_TEST(!contains(h.out, "vg-jit dump"));
    BOOST_TEST(run({"dump", "--help"}).status == 0);
    BOOST_TEST(run({"--version"}).out.rfind("vg-jit ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2) {
    for (const auto& args : std::vector<std::vector<std::string>>{{},
                                                                  {"frobnicate"},
                                                                  {"--bogus"},
                                                                  {"check"},
                                                                  {"check", "--bogus", "x"},
                                                                  {"check", "--format=coff", "x"},
                                                                  {"dump"},
                                                                  {"dump", "a", "b"},
                                                                  {"help", "frobnicate"},
                                                                  {"--man"}}) {
        const Result r = run(args);
        BOOST_TEST(r.status == 2, "args size " << args.size());
        BOOST_TEST(contains(r.out, "vg-jit: "));
    }
}

// A usage error says what was wrong, on stderr, and nothing is done.
BOOST_AUTO_TEST_CASE(usage_errors_say_what_was_wrong) {
    const std::string map = fixture("perf-4242.map");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{}, "vg-jit: no command given\n"},
        {{"frobnicate"}, "vg-jit: unknown command 'frobnicate'\n"},
        {{"--bogus"}, "vg-jit: unknown option '--bogus'\n"},
        {{"check", "--bogus", map}, "vg-jit: check: unknown option '--bogus'\n"},
        {{"check", "--format=coff", map},
         "vg-jit: check: --format: coff not in {auto,jitdump,perfmap,perf-map,elf}\n"},
        {{"check", map, "--format"}, "vg-jit: check: --format: 1 required FMT missing\n"},
        {{"check"}, "vg-jit: check: no FILE given\n"},
        {{"dump", map, map}, "vg-jit: dump: unexpected argument '" + map + "'\n"},
        {{"annotate", "--map"}, "vg-jit: annotate: --map: 1 required FILE missing\n"},
        {{"annotate", "x.out"}, "vg-jit: annotate: --map is required\n"},
        {{"annotate", "--map", map}, "vg-jit: annotate: no PROFILE given\n"},
        {{"annotate", "--map=", "x.out"}, "vg-jit: annotate: option '--map=' has an empty value\n"},
        {{"export", "-o"}, "vg-jit: export: --output: 1 required OUT missing\n"},
        {{"export", "--format=svg", "x.out"},
         "vg-jit: export: --format: svg not in {firefox,folded}\n"},
        {{"export", "--event=", "x.out"}, "vg-jit: export: option '--event=' has an empty value\n"},
        {{"profiles"}, "vg-jit: profiles: no PROFILE given\n"},
        {{"profiles", "--event=", "x.out"},
         "vg-jit: profiles: option '--event=' has an empty value\n"},
        {{"help", "frobnicate"}, "vg-jit: help: unknown command 'frobnicate'\n"},
    };
    for (const auto& [args, message] : cases) {
        const Result r = run(args);
        BOOST_TEST(r.status == 2, message);
        BOOST_TEST(r.out == message + "Try 'vg-jit --help' for more information.\n", r.out);
    }
}

// Options keep the forms they had: "--opt=V" and "--opt V", short
// options, repeated options (the last wins, --map accumulates), "--".
BOOST_AUTO_TEST_CASE(option_forms) {
    const std::string map = fixture("perf-4242.map");
    const Result plain = run({"check", map});
    BOOST_TEST(plain.status == 0, plain.out);
    BOOST_TEST(run({"check", "--format=perfmap", map}).out == plain.out);
    BOOST_TEST(run({"check", "--format", "perf-map", map}).out == plain.out);
    BOOST_TEST(run({"check", "--format=elf", "--format=auto", map}).out == plain.out);
    BOOST_TEST(run({"check", "--strict", "--strict", map}).status == plain.status);
    const Result quiet = run({"check", "-q", map});
    BOOST_TEST(quiet.status == 0);
    BOOST_TEST(!contains(quiet.out, "entries"), quiet.out);
    BOOST_TEST(run({"check", "--quiet", map}).out == quiet.out);
    // Read as ELF, the perf map is not an ELF object.
    BOOST_TEST(run({"check", "--format=elf", map}).status == 1);
    // After "--", "--strict" is a file name.
    const Result dashes = run({"check", "--", "--strict"});
    BOOST_TEST(dashes.status == 1);
    BOOST_TEST(contains(dashes.out, "--strict: error: cannot open"), dashes.out);
}

BOOST_AUTO_TEST_CASE(unreadable_file_is_a_problem_not_a_usage_error) {
    const Result r = run({"check", "/nonexistent/jit-1.dump"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.out, "/nonexistent/jit-1.dump: error: cannot open"));
    const Result d = run({"check", srcdir()});
    BOOST_TEST(d.status == 1);
    BOOST_TEST(contains(d.out, "error: is a directory"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(check_jitdump)

BOOST_AUTO_TEST_CASE(committed_fixtures_match_the_generator) {
    for (const auto& [name, bytes] : jitdump_test::jitdump_fixtures()) {
        std::ifstream in(fixture(name), std::ios::binary);
        BOOST_REQUIRE_MESSAGE(in, "missing fixture " << name);
        const std::string on_disk((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
        BOOST_TEST(on_disk == std::string(bytes.begin(), bytes.end()),
                   name << " is stale: run tests/fixtures/gen_fixtures");
    }
}

BOOST_AUTO_TEST_CASE(good_files_are_clean) {
    for (const char* name : {"jit-4242.dump", "good-v2.dump"}) {
        const Result r = run({"check", fixture(name)});
        BOOST_TEST(r.status == 0, name << ":\n" << r.out);
        BOOST_TEST(contains(r.out, fixture(name) + ": jitdump, 7 records, 0 errors, 0 warnings"),
                   r.out);
        BOOST_TEST(!contains(r.out, "error:"));
        BOOST_TEST(!contains(r.out, "warning:"));
    }
    const Result q = run({"check", "--quiet", fixture("jit-4242.dump")});
    BOOST_TEST(q.status == 0);
    BOOST_TEST(q.out.empty(), q.out);
}

BOOST_AUTO_TEST_CASE(malformed_files_report_offsets) {
    expect_error("bad-magic.dump", "0", "not a jitdump file");
    expect_error(
        "big-endian.dump", "0",
        "jitdump file written in the other byte order: its magic is byte-swapped (0x4a695444); "
        "not supported");
    expect_error("bad-version.dump", "0", "unsupported jitdump version 3");
    expect_error("truncated-header.dump", "0",
                 "truncated file header: the file has 30 bytes, a jitdump header needs 40");
    expect_error("truncated-record.dump", "381",
                 "truncated CODE_MOVE record: total_size 64 but only 30 bytes left");
    expect_error("truncated-code.dump", "284",
                 "truncated CODE_LOAD record: total_size 97 extends 7 bytes beyond the end");
    expect_error("record-too-short.dump", "56",
                 "record total_size is smaller than the record's fixed part: CODE_LOAD record of "
                 "total_size 20, its fixed part 56 bytes; the rest of the file cannot be read");
    expect_error("name-unterminated.dump", "40", "CODE_LOAD function name is not NUL-terminated");
    expect_error("pid-mismatch.dump", "56",
                 "CODE_LOAD 'other_pid' has pid 1, the header says 4242");
    expect_error("jit-999.dump", "20", "header pid 4242 differs from the pid 999 in the file name");
    expect_error("debug-beyond.dump", "40", "CODE_DEBUG_INFO entries run past the end");
    expect_error("wraps.dump", "40",
                 "code address + code size wraps around the address space: CODE_LOAD code_addr ");
}

BOOST_AUTO_TEST_CASE(unwinding_info_is_checked_as_the_core_checks_it) {
    // A correct .eh_frame passes; the same CFI with a pointer encoding the
    // core's CFI reader does not decode, or a record longer than the
    // section, is reported (the core refuses both).
    ehframe::FrameCfi cfi;
    cfi.set_cfa_offset(1, 16);
    ehframe::Layout unknown_encoding;
    unknown_encoding.fde_encoding = 0x0f;
    std::vector<unsigned char> overlong = cfi.eh_frame(0x1000, 32, 0x1020);
    overlong[0] = 0x70;  // the CIE's length runs past the section
    const struct {
        const char* name;
        std::vector<unsigned char> eh_frame;
        const char* why;  // nullptr: clean
    } cases[] = {
        {"good", cfi.eh_frame(0x1000, 32, 0x1020), nullptr},
        {"encoding", cfi.eh_frame(0x1000, 32, 0x1020, unknown_encoding),
         "a CIE uses a pointer encoding that is not read"},
        {"overlong", overlong, "a CFI record lies outside its section"},
    };
    vgjit::test::TempDir d("vgjit-unit-tool");
    for (const auto& c : cases) {
        jitdump_test::JitdumpBuilder b(true);
        b.header(1, 4242, 1000, 0);
        b.unwinding_eh_frame(c.eh_frame);
        b.code_load(0x1000, 32, "fn", 1, 2000, 4242, 4243);
        const std::string f = d.file(std::string("jit-4242-") + c.name + ".dump");
        write_file(f, std::string(b.bytes.begin(), b.bytes.end()));
        const Result r = run({"check", f});
        BOOST_TEST_CONTEXT(c.name) {
            if (c.why == nullptr) {
                BOOST_TEST(r.status == 0, r.out);
                BOOST_TEST(!contains(r.out, "warning:"), r.out);
            } else {
                BOOST_TEST(r.status == 0, r.out);  // a warning: the file stays usable
                BOOST_TEST(
                    contains(
                        r.out,
                        f + ":40: warning: CODE_UNWINDING_INFO's .eh_frame is refused: " + c.why),
                    r.out);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(only_the_reported_problems) {
    // name-unterminated: the bad record is skipped, the next one is read.
    const Result r = run({"check", fixture("name-unterminated.dump")});
    BOOST_TEST(count(r.out, "error:") == 1u, r.out);
    BOOST_TEST(contains(r.out, "jitdump, 1 record, 1 error, 0 warnings"), r.out);
    // A truncated file still counts the records before the cut.
    const Result t = run({"check", fixture("truncated-record.dump")});
    BOOST_TEST(contains(t.out, "jitdump, 4 records, 1 error"), t.out);
}

BOOST_AUTO_TEST_CASE(overlaps_are_warnings_unless_strict) {
    const std::string f = fixture("overlap.dump");
    const Result r = run({"check", f});
    BOOST_TEST(r.status == 0, r.out);
    BOOST_TEST(contains(r.out, f + ":118: warning: range [0x1008, 0x1018) of 'second' overlaps "
                                   "the live entry 'first' [0x1000, 0x1010) from offset 40"),
               r.out);
    BOOST_TEST(count(r.out, "warning:") == 1u);  // the identical re-announcement is fine
    BOOST_TEST(run({"check", "--strict", f}).status == 1);
}

BOOST_AUTO_TEST_CASE(several_files_fail_if_one_fails) {
    const Result r = run(
        {"check", fixture("jit-4242.dump"), fixture("bad-magic.dump"), fixture("perf-4242.map")});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(count(r.out, " errors, ") + count(r.out, " error, ") == 3u, r.out);
}

BOOST_AUTO_TEST_CASE(format_option_overrides_detection) {
    // A jitdump read as a perf map: its binary lines do not parse.
    const Result r = run({"check", "--format=perfmap", fixture("jit-4242.dump")});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.out, ": perf map, 0 entries"), r.out);
    // A perf map read as a jitdump: bad magic.
    const Result j = run({"check", "--format=jitdump", fixture("perf-4242.map")});
    BOOST_TEST(j.status == 1);
    BOOST_TEST(contains(j.out, fixture("perf-4242.map") + ":0: error: not a jitdump file"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(check_perfmap)

BOOST_AUTO_TEST_CASE(good_map_is_clean) {
    const Result r = run({"check", fixture("perf-4242.map")});
    BOOST_TEST(r.status == 0, r.out);
    BOOST_TEST(contains(r.out, "perf map, 4 entries, 0 errors, 0 warnings"), r.out);
}

BOOST_AUTO_TEST_CASE(bad_lines_are_reported_by_line_number) {
    const std::string f = fixture("bad-lines.map");
    const Result r = run({"check", f});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.out, f + ":2: error: START is not a hexadecimal number"), r.out);
    BOOST_TEST(contains(r.out, f + ":3: error: SIZE is missing or not a hexadecimal number"));
    BOOST_TEST(contains(r.out, f + ":4: error: function name missing"));
    BOOST_TEST(contains(r.out, f + ":5: error: SIZE is 0"));
    BOOST_TEST(contains(r.out, f + ":6: error: START + SIZE wraps around"));
    BOOST_TEST(count(r.out, "error:") == 5u, r.out);  // lines 1, 7 (blank), 8 are fine
    BOOST_TEST(contains(r.out, "perf map, 2 entries, 5 errors"), r.out);
}

BOOST_AUTO_TEST_CASE(missing_final_newline_and_binary_junk) {
    const std::string u = fixture("unterminated.map");
    const Result r = run({"check", u});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.out, u + ":2: error: last line has no terminating newline"), r.out);
    BOOST_TEST(contains(r.out, "perf map, 2 entries"), r.out);
    const std::string b = fixture("binary.map");
    const Result j = run({"check", b});
    BOOST_TEST(j.status == 1);
    BOOST_TEST(contains(j.out, b + ":1: error: line contains a NUL byte"), j.out);
}

BOOST_AUTO_TEST_CASE(overlapping_entries) {
    const std::string f = fixture("overlap.map");
    const Result r = run({"check", f});
    BOOST_TEST(r.status == 0, r.out);
    BOOST_TEST(contains(r.out, f + ":2: warning: range [0x1080, 0x1090) of 'inner' overlaps the "
                                   "live entry 'outer' [0x1000, 0x1100) from line 1"),
               r.out);
    BOOST_TEST(count(r.out, "warning:") == 1u, r.out);
    BOOST_TEST(run({"check", "--strict", f}).status == 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dump)

BOOST_AUTO_TEST_CASE(text_listing_of_a_jitdump) {
    const std::string f = fixture("jit-4242.dump");
    const Result r = run({"dump", f});
    BOOST_TEST(r.status == 0, r.out);
    BOOST_TEST(contains(r.out, f + ": jitdump version 1, x86-64 (e_machine 62), pid 4242"), r.out);
    BOOST_TEST(contains(r.out, "@40        CODE_DEBUG_INFO      ts 1500"), r.out);
    BOOST_TEST(contains(r.out, "0x1008  app.js:11 (discriminator 2) (same file as previous)"));
    BOOST_TEST(contains(r.out, "0x1010  lib.js:12\n"));
    BOOST_TEST(contains(r.out,
                        "[0x1000, 0x1020) size 32 'fib' index 1 pid 4242 tid 4243, 32 code "
                        "bytes"),
               r.out);
    BOOST_TEST(contains(r.out, "'Function with spaces (x)'"));
    BOOST_TEST(contains(r.out, "index 2 0x2000 -> [0x3000, 0x3010) size 16"), r.out);
    BOOST_TEST(contains(r.out, "@445       id 77"), r.out);
    BOOST_TEST(contains(r.out, "unknown record, 21 bytes skipped"));
    BOOST_TEST(contains(r.out, "@466       CODE_CLOSE           ts 9000\n"));
    BOOST_TEST(contains(r.out, "unwinding_size 16, eh_frame_hdr_size 8, mapped_size 16, 16 data"));
}

BOOST_AUTO_TEST_CASE(text_listing_shows_problems_and_fails) {
    const std::string f = fixture("truncated-record.dump");
    const Result r = run({"dump", f});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.out, "'fib'"));
    BOOST_TEST(contains(r.out, f + ":381: error: truncated CODE_MOVE record"), r.out);
}

BOOST_AUTO_TEST_CASE(text_listing_of_a_perf_map) {
    const Result r = run({"dump", fixture("perf-4242.map")});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(contains(r.out,
                        "L2        [0x7f0000002000, 0x7f0000002010) size 16 "
                        "'Function (anonymous) [native]'\n"),
               r.out);
}

BOOST_AUTO_TEST_CASE(json_listing_of_a_jitdump) {
    const Result r = run({"dump", "--json", fixture("jit-4242.dump")});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.out.rfind("{\"file\":", 0) == 0u, r.out);
    BOOST_TEST(contains(r.out, "\"format\":\"jitdump\",\"records\":["));
    BOOST_TEST(contains(r.out,
                        "{\"offset\":136,\"kind\":\"CODE_LOAD\",\"id\":0,\"total_size\":92,"
                        "\"timestamp\":2000,\"pid\":4242,\"tid\":4243,\"vma\":\"0x1000\","
                        "\"code_addr\":\"0x1000\",\"code_size\":32,\"code_index\":1,"
                        "\"name\":\"fib\",\"code_bytes\":32}"),
               r.out);
    BOOST_TEST(contains(r.out,
                        "{\"code_addr\":\"0x1008\",\"file\":\"app.js\",\"line\":11,"
                        "\"discrim\":2,\"same_as_previous\":true,\"garbled\":false}"));
    BOOST_TEST(contains(r.out, "\"kind\":\"UNKNOWN\",\"id\":77"));
    BOOST_TEST(contains(r.out,
                        "\"header\":{\"version\":1,\"header_size\":40,\"elf_mach\":62,"
                        "\"machine\":\"x86-64\",\"pid\":4242,\"timestamp\":1000,"
                        "\"flags\":1}"));
    BOOST_TEST(contains(r.out, "\"problems\":[]}\n"));
}

BOOST_AUTO_TEST_CASE(json_escapes_names_and_lists_problems) {
    vgjit::test::TempDir d("vgjit-unit-tool");
    const std::string f = d.file("perf-77.map");
    write_file(f, std::string("10 4 say \"hi\"\\there\ttab \xff\xfe caf\xc3\xa9\n"
                              "zz 1 x\n"));
    const Result r = run({"dump", "--json", f});
    BOOST_TEST(r.status == 1);
    // Bytes that are not UTF-8 (0xff 0xfe) read as U+00FF U+00FE.
    BOOST_TEST(
        contains(r.out, "\"name\":\"say \\\"hi\\\"\\\\there\\ttab \xc3\xbf\xc3\xbe caf\xc3\xa9\""),
        r.out);
    const auto doc = nlohmann::json::parse(r.out);
    BOOST_TEST(doc.at("entries").at(0).at("name").get<std::string>() ==
               "say \"hi\"\\there\ttab \u00ff\u00fe caf\u00e9");
    BOOST_TEST(contains(r.out,
                        "\"problems\":[{\"severity\":\"error\",\"line\":2,\"message\":"
                        "\"START is not a hexadecimal number"),
               r.out);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(helpers)

// Names reach nlohmann::json as valid UTF-8: valid sequences unchanged,
// every other byte as the character U+0080..U+00FF of the same value.
BOOST_AUTO_TEST_CASE(utf8_for_json_rules) {
    using vgjit::utf8_for_json;
    BOOST_TEST(utf8_for_json("plain \"q\" \\ \n") == "plain \"q\" \\ \n");
    BOOST_TEST(utf8_for_json(std::string("nul\0x", 5)) == std::string("nul\0x", 5));
    BOOST_TEST(utf8_for_json("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") ==
               "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    BOOST_TEST(utf8_for_json("\xc3") == "\xc3\x83");                          // truncated sequence
    BOOST_TEST(utf8_for_json("\xc0\xaf") == "\xc3\x80\xc2\xaf");              // overlong '/'
    BOOST_TEST(utf8_for_json("\xed\xa0\x80") == "\xc3\xad\xc2\xa0\xc2\x80");  // surrogate
    BOOST_TEST(utf8_for_json("\xff\xfe") == "\xc3\xbf\xc3\xbe");
    // Whatever the bytes, nlohmann::json writes the result.
    std::string all;
    for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
    BOOST_CHECK_NO_THROW(nlohmann::json(utf8_for_json(all)).dump());
}

BOOST_AUTO_TEST_CASE(pid_in_file_names) {
    BOOST_TEST(vgjit::pid_from_file_name("/tmp/perf-1234.map") == 1234);
    BOOST_TEST(vgjit::pid_from_file_name("jit-77.dump") == 77);
    BOOST_TEST(vgjit::pid_from_file_name("./dir/jit-5.dump") == 5);
    BOOST_TEST(vgjit::pid_from_file_name("jit-.dump") == -1);
    BOOST_TEST(vgjit::pid_from_file_name("jit-12a.dump") == -1);
    BOOST_TEST(vgjit::pid_from_file_name("perf-12.map.old") == -1);
    BOOST_TEST(vgjit::pid_from_file_name("good.dump") == -1);
}

// A process's name: the program's file name and its first argument, or
// its "--type=" argument (Chromium's process types), a path cut to its
// file name, an argument cut to 40 characters.
BOOST_AUTO_TEST_CASE(process_names_from_commands) {
    using vgjit::exporting::process_name;
    BOOST_TEST(process_name("/usr/lib/chromium/chromium --type=renderer --foo --bar=1") ==
               "chromium --type=renderer");
    BOOST_TEST(process_name("/usr/lib/chromium/chromium --no-sandbox --type=gpu-process --x") ==
               "chromium --type=gpu-process");
    BOOST_TEST(process_name(" /work/main/examples/minijit /work/main/examples/calls.mj") ==
               "minijit calls.mj");  // Callgrind's "cmd:" starts with a blank
    BOOST_TEST(process_name("/usr/bin/node --perf-basic-prof app.js") == "node --perf-basic-prof");
    BOOST_TEST(process_name("/usr/bin/python3") == "python3");
    BOOST_TEST(process_name("./a.out x") == "a.out x");
    BOOST_TEST(process_name("prog /srv/data/") == "prog /srv/data/");  // no file name: as is
    BOOST_TEST(process_name("prog " + std::string(50, 'a')) ==
               "prog " + std::string(37, 'a') + "...");
    BOOST_TEST(process_name("") == "");
    BOOST_TEST(process_name("   ") == "");
}

// The JIT category: objects that are not ELF files; address-named code
// and "???" are Unnamed, whatever their object.
BOOST_AUTO_TEST_CASE(jit_category_rule) {
    using vgjit::exporting::classify;
    using vgjit::exporting::Kind;
    BOOST_TEST((classify("[jit]", "jit_sum") == Kind::Jit));
    BOOST_TEST((classify("minijit:calls.mj", "fib") == Kind::Jit));
    BOOST_TEST((classify("/tmp/perf-12.map", "JS:~f") == Kind::Jit));
    BOOST_TEST((classify("/tmp/jit-12.dump", "f") == Kind::Jit));
    BOOST_TEST((classify("???", "f") == Kind::Unnamed));
    BOOST_TEST((classify("[jit]", "0x0000000004855100") == Kind::Unnamed));
    BOOST_TEST((classify("", "main") == Kind::Native));  // Cachegrind names no objects
    BOOST_TEST((classify("/bin/sh", "main") == Kind::Native));
}

BOOST_AUTO_TEST_CASE(format_detection) {
    using vgjit::Format;
    const std::vector<unsigned char> le{0x44, 0x54, 0x69, 0x4A}, be{0x4A, 0x69, 0x54, 0x44},
        text{'7', 'f', '0', '0'};
    BOOST_TEST((vgjit::detect_format("x", le) == Format::Jitdump));
    BOOST_TEST((vgjit::detect_format("x", be) == Format::Jitdump));
    BOOST_TEST((vgjit::detect_format("x.map", text) == Format::Perfmap));
    BOOST_TEST((vgjit::detect_format("x.dump", text) == Format::Jitdump));
    BOOST_TEST((vgjit::detect_format("x", {}) == Format::Perfmap));
}

BOOST_AUTO_TEST_SUITE_END()
