// unit_parsers.cpp: Boost.Test unit tests for the jitdump and perf map
// readers in coregrind-patch/files/coregrind/m_debuginfo/ (the same C
// sources that are compiled into Valgrind's core), and for the reader of
// Erlang/OTP's JIT entries.  One program of several files, one test suite
// each: jitdump streams that are well formed (here), malformed jitdump
// streams (unit_parsers_jitdump_malformed.cpp), perf maps
// (unit_parsers_perfmap.cpp) and Erlang/OTP's entries
// (unit_parsers_beamjit.cpp); what they share is in unit_parsers.hpp.
//
// Every stream is parsed whole and ALSO fed split at every byte boundary,
// byte by byte, and with exactly the advertised `need`; all runs must give
// the same events (see parser_driver.hpp).
#define BOOST_TEST_MODULE unit_parsers
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "jitdump_builder.hpp"
#include "parser_driver.hpp"
#include "unit_parsers.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace jitdump_test;

BOOST_AUTO_TEST_SUITE(jitdump_good)

BOOST_AUTO_TEST_CASE(version1_every_record_kind) {
    const auto b = good_stream(1);
    BOOST_REQUIRE_EQUAL(b.bytes.size(), 482u);
    const Lines got = parse_all_ways(b.bytes);
    const Lines want = kGoodEvents(1);
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(version2_every_record_kind) {
    const Lines got = parse_all_ways(good_stream(2).bytes);
    const Lines want = kGoodEvents(2);
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(code_pointers_and_bytes_when_record_is_buffered) {
    JitdumpBuilder b;
    b.header();
    b.code_load(0x4000, 4, "f", 9, 2000, 1, 2, std::vector<unsigned char>{0xC3, 1, 2, 3});
    b.unwinding(8, 4, 0, 8);
    JitdumpReader r;
    JitdumpEvent ev;
    ML_(jitdump_init)(&r, 0);
    BOOST_REQUIRE_EQUAL(ML_(jitdump_next)(&r, b.bytes.data(), b.bytes.size(), &ev),
                        JITDUMP_EV_HEADER);
    const unsigned char* p = b.bytes.data() + r.offset;
    unsigned long left = b.bytes.size() - r.offset;
    BOOST_REQUIRE_EQUAL(ML_(jitdump_next)(&r, p, left, &ev), JITDUMP_EV_RECORD);
    BOOST_REQUIRE(ev.rec.u.load.code != nullptr);
    BOOST_TEST(ev.rec.u.load.code[0] == 0xC3);
    BOOST_TEST(ev.rec.u.load.code_bytes == 4u);
    BOOST_TEST(ev.rec.u.load.code - b.bytes.data() == 40 + 56 + 2);
    // Only the fixed part and name buffered: decoded, but no code pointer.
    JitdumpReader r2;
    ML_(jitdump_init)(&r2, 0);
    ML_(jitdump_next)(&r2, b.bytes.data(), b.bytes.size(), &ev);
    BOOST_REQUIRE_EQUAL(ML_(jitdump_next)(&r2, b.bytes.data() + 40, 56 + 2, &ev),
                        JITDUMP_EV_RECORD);
    BOOST_TEST(ev.rec.u.load.code == nullptr);
    BOOST_TEST(ev.advance == 56u + 2 + 4);
    // Unwinding data pointer.
    p = b.bytes.data() + r.offset;
    left = b.bytes.size() - r.offset;
    BOOST_REQUIRE_EQUAL(ML_(jitdump_next)(&r, p, left, &ev), JITDUMP_EV_RECORD);
    BOOST_TEST(ev.rec.id == JITDUMP_CODE_UNWINDING_INFO);
    BOOST_REQUIRE(ev.rec.u.unwind.data != nullptr);
    BOOST_TEST(ev.rec.u.unwind.data[0] == 0);     // the .eh_frame (4 bytes)
    BOOST_TEST(ev.rec.u.unwind.data[4] == 0xAB);  // the .eh_frame_hdr
    BOOST_TEST(r.n_records == 2u);
}

// The name is scanned a word at a time where the buffer is aligned: a byte
// outside printable ASCII (or the NUL) at every position of names of
// every length, at every alignment of the buffer, must be seen.
BOOST_AUTO_TEST_CASE(name_is_ascii_at_every_length_position_and_alignment) {
    const std::string bad_bytes("\x01\x1f\x7f\x80\xff\t", 6);
    for (std::size_t len = 1; len <= 40; ++len)
        for (std::size_t at = 0; at <= len; ++at)  // at == len: all printable
            for (const char bad : bad_bytes) {
                std::string name(len, 'a');
                for (std::size_t k = 0; k < len; ++k)
                    name[k] = static_cast<char>(0x20 + (k * 7) % 95);
                if (at < len) name[at] = bad;
                JitdumpBuilder b;
                b.header();
                b.code_load(0x4000, 4, name, 9, 2000, 1, 2, std::vector<unsigned char>{0xC3});
                for (std::size_t shift = 0; shift < 8; ++shift) {
                    std::vector<unsigned char> buf(shift + b.bytes.size());
                    std::copy(b.bytes.begin(), b.bytes.end(),
                              buf.begin() + static_cast<long>(shift));
                    JitdumpReader r;
                    JitdumpEvent ev;
                    ML_(jitdump_init)(&r, 0);
                    const unsigned char* p = buf.data() + shift;
                    BOOST_REQUIRE_EQUAL(ML_(jitdump_next)(&r, p, b.bytes.size(), &ev),
                                        JITDUMP_EV_HEADER);
                    BOOST_REQUIRE_EQUAL(
                        ML_(jitdump_next)(&r, p + r.offset, b.bytes.size() - r.offset, &ev),
                        JITDUMP_EV_RECORD);
                    BOOST_TEST_REQUIRE(ev.rec.u.load.name_len == len);
                    BOOST_TEST_REQUIRE(
                        ev.rec.u.load.name_is_ascii == (at == len ? 1 : 0),
                        "len " << len << " bad byte at " << at << " shift " << shift);
                }
            }
}

BOOST_AUTO_TEST_CASE(header_with_extra_fields_is_skipped_to_its_total_size) {
    JitdumpBuilder b;
    b.header(1, 7, 1000, 0, 24);  // header total_size 64
    b.code_close();
    const Lines got = parse_all_ways(b.bytes);
    const Lines want = {"HEADER @0 v1 size=64 mach=62 pid=7 ts=1000 flags=0 adv=64",
                        "CLOSE @64 ts=9000", "END @80 need=16"};
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(header_larger_than_buffer_is_skipped_not_read) {
    JitdumpBuilder b;
    b.header(2, 7, 1000, 0, 5000);
    JitdumpReader r;
    JitdumpEvent ev;
    ML_(jitdump_init)(&r, 0);
    BOOST_REQUIRE_EQUAL(ML_(jitdump_next)(&r, b.bytes.data(), 40, &ev), JITDUMP_EV_HEADER);
    BOOST_TEST(ev.advance == 5040u);
    BOOST_TEST(r.offset == 5040u);
}

BOOST_AUTO_TEST_CASE(unknown_record_ids_are_skipped_by_total_size) {
    JitdumpBuilder b;
    b.header();
    b.record(5, 10, std::vector<unsigned char>(100, 0));
    b.record(0xFFFFFFFFu, 11, {});
    b.code_load(0x5000, 1, "after", 3);
    const Lines got = parse_all_ways(b.bytes);
    const Lines want = {
        "HEADER @0 v1 size=40 mach=62 pid=4242 ts=1000 flags=0 adv=40",
        "UNKNOWN @40 id=5 size=116 ts=10", "UNKNOWN @156 id=4294967295 size=16 ts=11",
        "LOAD @172 ts=2000 pid=4242 tid=4243 vma=0x5000 addr=0x5000 size=0x1 index=3"
        " name='after' code_bytes=1 code_at=234",
        "END @235 need=16"};
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(zero_size_code_and_missing_code_bytes_are_accepted) {
    JitdumpBuilder b;
    b.header();
    b.code_load(0x6000, 0, "empty", 1);
    b.code_load(0x7000, 0x100, "no_bytes", 2, 2000, 4242, 4243, std::vector<unsigned char>{});
    const Lines got = parse_all_ways(b.bytes);
    BOOST_REQUIRE_EQUAL(got.size(), 4u);
    BOOST_TEST(got[1] ==
               "LOAD @40 ts=2000 pid=4242 tid=4243 vma=0x6000 addr=0x6000 size=0x0 index=1"
               " name='empty' code_bytes=0 code_at=102");
    BOOST_TEST(got[2] ==
               "LOAD @102 ts=2000 pid=4242 tid=4243 vma=0x7000 addr=0x7000 size=0x100 index=2"
               " name='no_bytes' code_bytes=0 code_at=167");
}

BOOST_AUTO_TEST_CASE(empty_file_and_header_only_need_more) {
    const Lines empty = parse_all_ways({});
    BOOST_TEST(empty == Lines{"END @0 need=4"}, boost::test_tools::per_element());
    JitdumpBuilder b;
    b.header();
    std::vector<unsigned char> partial(b.bytes.begin(), b.bytes.begin() + 10);
    BOOST_TEST(parse_all_ways(partial) == Lines{"END @0 need=40"},
               boost::test_tools::per_element());
    const Lines hdr = parse_all_ways(b.bytes);
    BOOST_REQUIRE_EQUAL(hdr.size(), 2u);
    BOOST_TEST(hdr[1] == "END @40 need=16");
}

BOOST_AUTO_TEST_CASE(debug_info_entries_absolute_addresses_and_iterator_end) {
    JitdumpBuilder b;
    b.header();
    b.debug_info(0x10000, {{0x10004, 1, 0, "\xff"}, {0x10008, 7, 3, "/src/a.js"}}, std::nullopt,
                 1500, std::nullopt, 6);  // 6 bytes of trailing padding
    b.code_load(0x10000, 0x10, "g", 1);
    const Lines got = parse_all_ways(b.bytes);
    BOOST_REQUIRE_EQUAL(got.size(), 4u);
    // A leading "\xff" has no previous name: empty file name, flagged.
    BOOST_TEST(got[1] ==
               "DEBUG @40 ts=1500 addr=0x10000 n=2 [0x10004 :1:0 same] [0x10008 /src/a.js:7:3]");
}

BOOST_AUTO_TEST_CASE(debug_info_name_fields_of_one_size_holding_junk_are_read_by_their_size) {
    // Node 20's --perf-prof: each name field has the script name's size
    // (here 15 bytes) but holds "SY", a NUL and stale bytes, then a NUL.
    // Read up to each first NUL, the second entry would start inside the
    // first one's junk.
    const std::string junk("SY\0\0\0\0\0\0r\xee^\xe5\xbfO", 14);
    JitdumpBuilder b;
    b.header();
    b.debug_info(0x10000, {{0x10040, 1, 13, junk}, {0x10067, 3, 21, junk}, {0x1007d, 6, 12, junk}},
                 std::nullopt, 1500, std::nullopt, 3);  // 3 bytes of padding
    b.code_load(0x10000, 0x100, "JS:*hot /srv/app.js:1:13", 1);
    const Lines got = parse_all_ways(b.bytes);
    BOOST_REQUIRE_EQUAL(got.size(), 4u);
    BOOST_TEST(got[1] ==
               "DEBUG @40 ts=1500 addr=0x10000 n=3 [0x10040 :1:13 garbled] "
               "[0x10067 :3:21 garbled] [0x1007d :6:12 garbled]");
    // Names padded with zeros to one size are read as names, at that size.
    const std::string padded("/srv/a.js\0\0\0\0", 13);
    JitdumpBuilder c;
    c.header();
    c.debug_info(0x10000, {{0x10040, 1, 0, padded}, {0x10050, 2, 0, padded}}, std::nullopt, 1500,
                 std::nullopt, 4);
    const Lines good = parse_all_ways(c.bytes);
    BOOST_REQUIRE_EQUAL(good.size(), 3u);
    BOOST_TEST(good[1] ==
               "DEBUG @40 ts=1500 addr=0x10000 n=2 [0x10040 /srv/a.js:1:0] "
               "[0x10050 /srv/a.js:2:0]");
}

BOOST_AUTO_TEST_CASE(debug_iterator_rejects_entries_beyond_a_forged_length) {
    JitdumpBuilder b;
    b.header();
    b.debug_info(0x1, {{0x1, 1, 0, "abc"}, {0x2, 2, 0, "def"}});
    JitdumpReader r;
    JitdumpEvent ev;
    ML_(jitdump_init)(&r, 0);
    ML_(jitdump_next)(&r, b.bytes.data(), b.bytes.size(), &ev);
    BOOST_REQUIRE_EQUAL(ML_(jitdump_next)(&r, b.bytes.data() + 40, b.bytes.size() - 40, &ev),
                        JITDUMP_EV_RECORD);
    JitdumpDebugInfo di = ev.rec.u.debug;
    di.entries_len = 20 + 10;  // first entry (20 bytes) plus a cut second one
    JitdumpDebugIter it;
    JitdumpDebugEntry e;
    ML_(jitdump_debug_iter_init)(&it, &r, &di);
    BOOST_TEST(ML_(jitdump_debug_entry_next)(&it, &e) == 1);
    BOOST_TEST(std::string(e.filename, e.filename_len) == "abc");
    BOOST_TEST(ML_(jitdump_debug_entry_next)(&it, &e) == -1);
    di.entries_len = 40;
    di.nr_entry = 2;
    ML_(jitdump_debug_iter_init)(&it, &r, &di);
    BOOST_TEST(ML_(jitdump_debug_entry_next)(&it, &e) == 1);
    BOOST_TEST(ML_(jitdump_debug_entry_next)(&it, &e) == 1);
    BOOST_TEST(e.line == 2u);
    BOOST_TEST(ML_(jitdump_debug_entry_next)(&it, &e) == 0);
}

/// The shared reader's text (ML_(jitdump_describe)) of the first error
/// event in `bytes`, read whole; "" if there is none.
std::string first_error_text(const std::vector<unsigned char>& bytes) {
    JitdumpReader r;
    ML_(jitdump_init)(&r, 0);
    JitdumpEvent ev;
    for (;;) {
        const std::uint64_t at = r.offset;
        if (at > bytes.size()) return "";
        const int k = ML_(jitdump_next)(&r, bytes.data() + at, bytes.size() - at, &ev);
        if (k == JITDUMP_EV_ERROR || k == JITDUMP_EV_BAD_RECORD) {
            char buf[300];
            return ML_(jitdump_describe)(&r, &ev, buf, sizeof buf);
        }
        if (k == JITDUMP_EV_NEED_MORE) return "";
    }
}

BOOST_AUTO_TEST_CASE(describe_words_errors_with_their_numbers_and_limits) {
    JitdumpBuilder big;
    big.header(1, 4242, 1000, 0, 0, JITDUMP_HEADER_MAX + 1);
    BOOST_TEST(first_error_text(big.bytes) ==
               "file header total_size is implausibly large: 1048577, over 1 MiB");
    JitdumpBuilder short_header;
    short_header.header(1, 4242, 1000, 0, 0, 39);
    BOOST_TEST(first_error_text(short_header.bytes) ==
               "file header total_size is smaller than the header fields: 39, the fields "
               "take 40 bytes");
    JitdumpBuilder huge;
    huge.header();
    huge.record(0, 1, std::vector<unsigned char>(60, 0), (1u << 30) + 1);
    BOOST_TEST(first_error_text(huge.bytes) ==
               "record total_size is implausibly large; the file is corrupt: CODE_LOAD record "
               "of total_size 1073741825, over 1 GiB");
    JitdumpBuilder move;
    move.header();
    move.code_move(0x1000, ~std::uint64_t{0} - 4, 0x10, 7);
    BOOST_TEST(first_error_text(move.bytes) ==
               "code address + code size wraps around the address space: CODE_MOVE "
               "old_code_addr 0x1000, new_code_addr 0xfffffffffffffffb, code_size 0x10");
    JitdumpBuilder version;
    version.header(3);
    BOOST_TEST(first_error_text(version.bytes) ==
               "unsupported jitdump version 3 (versions 1 and 2 are known)");
}

BOOST_AUTO_TEST_CASE(describe_fills_every_template) {
    // Every code's text starts with its static text and leaves no field of
    // its template unfilled; a small buffer cuts it, NUL-terminated.
    JitdumpReader r;
    ML_(jitdump_init)(&r, 0);
    for (int c = JITDUMP_ERR_BAD_MAGIC; c <= JITDUMP_ERR_MAX; ++c) {
        for (unsigned id : {JITDUMP_CODE_LOAD, JITDUMP_CODE_MOVE}) {
            JitdumpEvent ev{};
            ev.kind = JITDUMP_EV_BAD_RECORD;
            ev.error = c;
            ev.rec.id = id;
            char buf[300];
            const std::string t = ML_(jitdump_describe)(&r, &ev, buf, sizeof buf);
            BOOST_TEST(t.rfind(ML_(jitdump_strerror)(c), 0) == 0u, t);
            BOOST_TEST(t.find('{') == std::string::npos, t);
            BOOST_TEST(t.size() > std::string(ML_(jitdump_strerror)(c)).size(), t);
            char small[12];
            ML_(jitdump_describe)(&r, &ev, small, sizeof small);
            BOOST_TEST(std::string(small) == t.substr(0, sizeof small - 1));
        }
    }
}

BOOST_AUTO_TEST_CASE(strerror_covers_every_code) {
    for (int c = 0; c <= JITDUMP_ERR_MAX; ++c) {
        std::string s = ML_(jitdump_strerror)(c);
        BOOST_TEST(!s.empty());
        BOOST_TEST(s != "unknown error");
    }
    BOOST_TEST(std::string(ML_(jitdump_strerror)(999)) == "unknown error");
    BOOST_TEST(std::string(ML_(jitdump_strerror)(-1)) == "unknown error");
    for (int c = 0; c <= PERFMAP_ERR_MAX; ++c)
        BOOST_TEST(std::string(ML_(perfmap_strerror)(c)) != "unknown error");
    BOOST_TEST(ML_(jitdump_error_is_hard)(JITDUMP_ERR_BAD_MAGIC));
    BOOST_TEST(ML_(jitdump_error_is_hard)(JITDUMP_ERR_RECORD_TOO_LARGE));
    BOOST_TEST(!ML_(jitdump_error_is_hard)(JITDUMP_ERR_NAME_UNTERMINATED));
    BOOST_TEST(!ML_(jitdump_error_is_hard)(JITDUMP_OK));
}

BOOST_AUTO_TEST_SUITE_END()
