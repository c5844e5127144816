// unit_parsers.cpp: Boost.Test unit tests for the jitdump and perf map
// readers in coregrind-patch/files/coregrind/m_debuginfo/ (the same C
// sources that are compiled into Valgrind's core).
//
// Every stream is parsed whole and ALSO fed split at every byte boundary,
// byte by byte, and with exactly the advertised `need`; all runs must give
// the same events (see parser_driver.hpp).
#define BOOST_TEST_MODULE unit_parsers
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "byte_io.hpp"
#include "jitdump_builder.hpp"
#include "parser_driver.hpp"

#include <array>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace jitdump_test;
using Lines = std::vector<std::string>;

namespace {

/// Parses `bytes` with every feeding strategy; requires identical events;
/// returns them.  `exhaustive`: split at every byte boundary (else at a
/// sample of boundaries, for big streams).
Lines parse_all_ways(const std::vector<unsigned char>& bytes, unsigned long max_hold = 0,
                     bool exhaustive = true) {
    const Lines whole = run_jitdump(bytes, Feed::Whole, 0, max_hold);
    const std::size_t n = bytes.size();
    const std::size_t step = exhaustive ? 1 : std::max<std::size_t>(1, n / 37);
    for (std::size_t k = 0; k <= n; k += step) {
        const Lines split = run_jitdump(bytes, Feed::Split, k, max_hold);
        BOOST_REQUIRE_MESSAGE(split == whole, "split at " << k << " differs");
    }
    if (exhaustive) {
        BOOST_REQUIRE(run_jitdump(bytes, Feed::Growing, 0, max_hold) == whole);
    }
    BOOST_REQUIRE(run_jitdump(bytes, Feed::Minimal, 0, max_hold) == whole);
    return whole;
}

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

/// The main well-formed stream used by several tests (offsets in comments).
JitdumpBuilder good_stream(std::uint32_t version, bool le = host_little_endian()) {
    JitdumpBuilder b(le);
    b.header(version, 4242, 1000, 1);                 // @0, 40 bytes
    b.debug_info(0x1000, {{0x1000, 10, 0, "app.js"},  // @40, 96 bytes
                          {0x1008, 11, 2, "\xff"},
                          {0x1010, 12, 0, "lib.js"}});
    b.code_load(0x1000, 0x20, "fib", 1);                       // @136, 92 bytes
    b.unwinding(16, 8, 16, 16);                                // @228, 56 bytes
    b.code_load(0x2000, 0x10, "Function with spaces (x)", 2);  // @284, 97 bytes
    b.code_move(0x2000, 0x3000, 0x10, 2);                      // @381, 64 bytes
    b.record(77, 5000, {1, 2, 3, 4, 5});                       // @445, 21 bytes
    b.code_close();                                            // @466, 16 bytes
    return b;                                                  // 482 bytes
}

const Lines kGoodEvents(std::uint32_t version) {
    return {
        "HEADER @0 v" + std::to_string(version) +
            " size=40 mach=62 pid=4242 ts=1000 flags=1 adv=40",
        "DEBUG @40 ts=1500 addr=0x1000 n=3 [0x1000 app.js:10:0] [0x1008 app.js:11:2 same]"
        " [0x1010 lib.js:12:0]",
        "LOAD @136 ts=2000 pid=4242 tid=4243 vma=0x1000 addr=0x1000 size=0x20 index=1"
        " name='fib' code_bytes=32 code_at=196",
        "UNWIND @228 ts=1800 unwind=16 ehhdr=8 mapped=16 data=16 data_at=268",
        "LOAD @284 ts=2000 pid=4242 tid=4243 vma=0x2000 addr=0x2000 size=0x10 index=2"
        " name='Function with spaces (x)' code_bytes=16 code_at=365",
        "MOVE @381 ts=3000 pid=4242 tid=4243 vma=0x3000 old=0x2000 new=0x3000 size=0x10"
        " index=2",
        "UNKNOWN @445 id=77 size=21 ts=5000",
        "CLOSE @466 ts=9000",
        "END @482 need=16",
    };
}

}  // namespace

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

BOOST_AUTO_TEST_SUITE(jitdump_malformed)

BOOST_AUTO_TEST_CASE(bad_magic_is_a_sticky_hard_error) {
    JitdumpBuilder b;
    b.header(1, 1, 1, 0, 0, std::nullopt, 0x12345678u);
    b.code_close();
    BOOST_TEST(
        parse_all_ways(b.bytes) == Lines{"ERROR @0 " + std::to_string(JITDUMP_ERR_BAD_MAGIC)},
        boost::test_tools::per_element());
    // Text files (perf maps) are not jitdumps either; 4 bytes suffice.
    const std::string text = "7f00 10 foo\n";
    BOOST_TEST(parse_all_ways({text.begin(), text.end()}) ==
               Lines{"ERROR @0 " + std::to_string(JITDUMP_ERR_BAD_MAGIC)});
}

BOOST_AUTO_TEST_CASE(other_byte_order_is_refused_with_its_own_error) {
    const auto foreign = good_stream(1, !host_little_endian());
    BOOST_TEST(parse_all_ways(foreign.bytes) ==
               Lines{"ERROR @0 " + std::to_string(JITDUMP_ERR_FOREIGN_BYTE_ORDER)});
    // ... while the same stream in host order parses.
    BOOST_TEST(parse_all_ways(good_stream(1).bytes).size() == 9u);
}

BOOST_AUTO_TEST_CASE(unsupported_versions) {
    for (std::uint32_t v : {0u, 3u, 0x01000000u}) {
        JitdumpBuilder b;
        b.header(v);
        BOOST_TEST(parse_all_ways(b.bytes) ==
                   Lines{"ERROR @0 " + std::to_string(JITDUMP_ERR_BAD_VERSION)});
    }
}

BOOST_AUTO_TEST_CASE(header_total_size_out_of_bounds) {
    JitdumpBuilder small;
    small.header(1, 1, 1, 0, 0, 39u);
    BOOST_TEST(parse_all_ways(small.bytes) ==
               Lines{"ERROR @0 " + std::to_string(JITDUMP_ERR_HEADER_TOO_SHORT)});
    JitdumpBuilder big;
    big.header(1, 1, 1, 0, 0, (1u << 20) + 1);
    BOOST_TEST(parse_all_ways(big.bytes) ==
               Lines{"ERROR @0 " + std::to_string(JITDUMP_ERR_HEADER_TOO_LARGE)});
}

BOOST_AUTO_TEST_CASE(record_total_size_smaller_than_fixed_part) {
    const std::string err = std::to_string(JITDUMP_ERR_RECORD_TOO_SHORT);
    struct Case {
        std::uint32_t id, size;
    };
    for (Case c : {Case{3, 15}, Case{0, 55}, Case{1, 63}, Case{2, 31}, Case{4, 39}, Case{9, 0}}) {
        JitdumpBuilder b;
        b.header();
        b.code_close();
        b.record(c.id, 1, std::vector<unsigned char>(80, 0), c.size);
        const Lines got = parse_all_ways(b.bytes);
        BOOST_REQUIRE_EQUAL(got.size(), 3u);
        BOOST_TEST(got[1] == "CLOSE @40 ts=9000");  // earlier record intact
        BOOST_TEST(got[2] == "ERROR @56 " + err, "id " << c.id << " size " << c.size);
    }
}

BOOST_AUTO_TEST_CASE(record_total_size_beyond_cap) {
    JitdumpBuilder b;
    b.header();
    b.record(0, 1, std::vector<unsigned char>(60, 0), (1u << 30) + 1);
    BOOST_TEST(parse_all_ways(b.bytes).back() ==
               "ERROR @40 " + std::to_string(JITDUMP_ERR_RECORD_TOO_LARGE));
    // Exactly 1 GiB is allowed (the code bytes are skipped, not read).
    JitdumpBuilder ok;
    ok.header();
    ok.code_load(0x1000, 0x10, "huge", 1, 2000, 1, 2, std::vector<unsigned char>{}, 1u << 30);
    const Lines got = parse_all_ways(ok.bytes);
    BOOST_TEST(got[1].find("name='huge' code_bytes=1073741763") != std::string::npos, got[1]);
    BOOST_TEST(got[2] == "END @" + std::to_string(40 + (1u << 30)) + " need=16");
}

BOOST_AUTO_TEST_CASE(name_not_terminated_within_record_is_skipped) {
    JitdumpBuilder b;
    b.header();
    // Record ends after "abc" (no NUL); a NUL follows in the next bytes
    // but outside the record.
    b.code_load(0x1000, 0x10, "abc", 1, 2000, 4242, 4243, std::vector<unsigned char>{}, 59u, false);
    b.code_load(0x2000, 0x10, "next", 2);
    const Lines got = parse_all_ways(b.bytes);
    BOOST_REQUIRE_EQUAL(got.size(), 4u);
    BOOST_TEST(got[1] ==
               "BAD @40 id=0 size=59 err=" + std::to_string(JITDUMP_ERR_NAME_UNTERMINATED));
    BOOST_TEST(got[2].rfind("LOAD @99 ", 0) == 0u, got[2]);
}

BOOST_AUTO_TEST_CASE(name_longer_than_cap_is_reported) {
    JitdumpBuilder b;
    b.header();
    b.code_load(0x1000, 0x10, std::string(JITDUMP_NAME_MAX, 'n'), 1);
    b.code_load(0x2000, 0x10, std::string(JITDUMP_NAME_MAX - 1, 'm'), 2);
    const Lines got = parse_all_ways(b.bytes, 0, false);
    BOOST_REQUIRE_EQUAL(got.size(), 4u);
    BOOST_TEST(
        got[1].rfind("BAD @40 id=0 size=65609 err=" + std::to_string(JITDUMP_ERR_NAME_UNTERMINATED),
                     0) == 0u);
    BOOST_TEST(got[2].find("code_bytes=16") != std::string::npos);  // longest allowed
}

BOOST_AUTO_TEST_CASE(code_range_wraps) {
    JitdumpBuilder b;
    b.header();
    b.code_load(0xFFFFFFFFFFFFFF00ull, 0x200, "wrap", 1, 2000, 4242, 4243,
                std::vector<unsigned char>{});
    b.code_load(0xFFFFFFFFFFFFFF00ull, 0x100, "to_the_top", 2, 2000, 4242, 4243,
                std::vector<unsigned char>{});
    b.code_move(0x1000, 0xFFFFFFFFFFFFFFF0ull, 0x20, 2);
    b.code_move(0xFFFFFFFFFFFFFFF0ull, 0x1000, 0x20, 2);
    const Lines got = parse_all_ways(b.bytes);
    const std::string err = std::to_string(JITDUMP_ERR_CODE_RANGE_WRAPS);
    BOOST_REQUIRE_EQUAL(got.size(), 6u);
    BOOST_TEST(got[1] == "BAD @40 id=0 size=61 err=" + err);
    BOOST_TEST(got[2].rfind("LOAD @101 ", 0) == 0u, got[2]);  // ends exactly at 2^64
    BOOST_TEST(got[3] == "BAD @168 id=1 size=64 err=" + err);
    BOOST_TEST(got[4] == "BAD @232 id=1 size=64 err=" + err);
}

BOOST_AUTO_TEST_CASE(debug_info_malformed) {
    const std::string nr = std::to_string(JITDUMP_ERR_DEBUG_NR_ENTRY);
    const std::string beyond = std::to_string(JITDUMP_ERR_DEBUG_BEYOND_RECORD);
    JitdumpBuilder b;
    b.header();
    b.debug_info(0x1, {{0x1, 1, 0, "a.js"}}, 1ull << 60);  // @40 absurd
    b.debug_info(0x1, {{0x1, 1, 0, "a.js"}, {0x2, 2, 0, "b.js"}}, 3, 1500, std::nullopt,
                 10);                                                           // @93 one missing
    b.debug_info(0x1, {{0x1, 1, 0, "a.js"}}, std::nullopt, 1500, 32 + 16 + 3);  // @177 cut name
    b.code_close();
    const Lines got = parse_all_ways(b.bytes);
    const Lines want = {"HEADER @0 v1 size=40 mach=62 pid=4242 ts=1000 flags=0 adv=40",
                        "BAD @40 id=2 size=53 err=" + nr, "BAD @93 id=2 size=84 err=" + beyond,
                        "BAD @177 id=2 size=51 err=" + beyond};
    // The cut record leaves "s\0" of its name before the CLOSE record,
    // which the reader then frames wrongly: check only the first lines.
    BOOST_REQUIRE_GE(got.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) BOOST_TEST(got[i] == want[i]);
}

BOOST_AUTO_TEST_CASE(debug_info_larger_than_max_hold_is_skipped) {
    JitdumpBuilder b;
    b.header();
    std::vector<DebugEntrySpec> many;
    for (int i = 0; i < 4000; ++i) many.push_back({0x1000u + i, std::uint32_t(i + 1), 0, "x.js"});
    b.debug_info(0x1000, many);  // 32 + 4000 * 21 = 84032 bytes
    b.code_load(0x1000, 0x10, "big", 1);
    const Lines small = parse_all_ways(b.bytes, JITDUMP_MIN_BUFFER, false);
    BOOST_REQUIRE_EQUAL(small.size(), 4u);
    BOOST_TEST(small[1] ==
               "BAD @40 id=2 size=84032 err=" + std::to_string(JITDUMP_ERR_DEBUG_INFO_TOO_LARGE));
    BOOST_TEST(small[2].rfind("LOAD @84072 ", 0) == 0u);
    const Lines dflt = parse_all_ways(b.bytes, 0, false);
    BOOST_TEST(dflt[1].rfind("DEBUG @40 ts=1500 addr=0x1000 n=4000 [0x1000 x.js:1:0]", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(unwinding_sizes_inconsistent) {
    JitdumpBuilder b;
    b.header();
    b.unwinding(32, 8, 0, 16);  // unwind data larger than the record
    b.unwinding(8, 16, 0, 16);  // eh_frame_hdr larger than unwind data
    b.unwinding(16, 16, 16, 16);
    const Lines got = parse_all_ways(b.bytes);
    const std::string err = std::to_string(JITDUMP_ERR_UNWIND_SIZES);
    BOOST_REQUIRE_EQUAL(got.size(), 5u);
    BOOST_TEST(got[1] == "BAD @40 id=4 size=56 err=" + err);
    BOOST_TEST(got[2] == "BAD @96 id=4 size=56 err=" + err);
    BOOST_TEST(got[3].rfind("UNWIND @152 ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(truncated_final_record_needs_more_and_keeps_earlier_records) {
    const auto b = good_stream(1);
    // Cut inside the CODE_MOVE at 381 (64 bytes): need-more, not an error.
    std::vector<unsigned char> cut(b.bytes.begin(), b.bytes.begin() + 381 + 30);
    const Lines got = parse_all_ways(cut);
    Lines want = kGoodEvents(1);
    want.resize(5);
    want.push_back("END @381 need=64");
    BOOST_TEST(got == want, boost::test_tools::per_element());
    // Cut inside a DEBUG_INFO: it must be held whole.
    std::vector<unsigned char> cut2(b.bytes.begin(), b.bytes.begin() + 40 + 50);
    BOOST_TEST(parse_all_ways(cut2).back() == "END @40 need=96");
    // Cut inside a CODE_LOAD's name: the reader asks for the name window.
    std::vector<unsigned char> cut3(b.bytes.begin(), b.bytes.begin() + 284 + 60);
    BOOST_TEST(parse_all_ways(cut3).back() == "END @284 need=97");
    // Cut inside the code bytes of a CODE_LOAD: its name is complete, so it
    // is decoded; the reader's offset then lies beyond the bytes written.
    std::vector<unsigned char> cut4(b.bytes.begin(), b.bytes.begin() + 284 + 90);
    const Lines got4 = parse_all_ways(cut4);
    BOOST_TEST(got4[4] == kGoodEvents(1)[4]);
    BOOST_TEST(got4.back() == "END @381 need=16");
}

namespace {

/// What the reader reported for one garbage stream, checked event by event
/// against the bytes (little-endian host): every record is reported at the
/// offset where the previous one ended (header, then id/total_size/
/// timestamp read back from the bytes there); a total_size below the
/// record kind's fixed part is a hard ERROR 6, above 1 GiB ERROR 7; an
/// unknown id is UNKNOWN and skipped by total_size; a known id is decoded
/// or a BAD record with a soft error its kind can have; the stream ends
/// with ERROR or with END at the resumption offset, needing more than what
/// is left there.  Returns the tally of event kinds ("UNKNOWN", "ERROR 6",
/// "BAD 8", "LOAD", "END", ...).
std::map<std::string, int> check_garbage_events(const std::vector<unsigned char>& b,
                                                const Lines& events) {
    static const std::map<std::uint32_t, std::pair<std::string, std::uint32_t>> known = {
        {JITDUMP_CODE_LOAD, {"LOAD", JITDUMP_CODE_LOAD_FIXED}},
        {JITDUMP_CODE_MOVE, {"MOVE", JITDUMP_CODE_MOVE_FIXED}},
        {JITDUMP_CODE_DEBUG_INFO, {"DEBUG", JITDUMP_DEBUG_INFO_FIXED}},
        {JITDUMP_CODE_CLOSE, {"CLOSE", JITDUMP_PREFIX_SIZE}},
        {JITDUMP_CODE_UNWINDING_INFO, {"UNWIND", JITDUMP_UNWINDING_FIXED}}};
    // The soft errors each kind can report.
    static const std::map<std::uint32_t, std::set<int>> soft = {
        {JITDUMP_CODE_LOAD, {JITDUMP_ERR_NAME_UNTERMINATED, JITDUMP_ERR_CODE_RANGE_WRAPS}},
        {JITDUMP_CODE_MOVE, {JITDUMP_ERR_CODE_RANGE_WRAPS}},
        {JITDUMP_CODE_DEBUG_INFO,
         {JITDUMP_ERR_DEBUG_INFO_TOO_LARGE, JITDUMP_ERR_DEBUG_NR_ENTRY,
          JITDUMP_ERR_DEBUG_BEYOND_RECORD}},
        {JITDUMP_CODE_CLOSE, {}},
        {JITDUMP_CODE_UNWINDING_INFO, {JITDUMP_ERR_UNWIND_SIZES}}};
    std::map<std::string, int> tally;
    BOOST_REQUIRE(!events.empty());
    BOOST_REQUIRE_EQUAL(events.front().rfind("HEADER @0 ", 0), 0u);
    BOOST_REQUIRE_EQUAL(events.front().substr(events.front().size() - 7), " adv=40");
    const std::uint64_t n = b.size();
    std::uint64_t off = 40;
    for (std::size_t i = 1; i < events.size(); ++i) {
        const std::string& ev = events[i];
        const std::string at = " @" + std::to_string(off);
        const bool last = i + 1 == events.size();
        BOOST_TEST_CONTEXT("event " << i << " '" << ev << "', resumption offset " << off) {
            const std::uint64_t left = off < n ? n - off : 0;
            if (left < JITDUMP_PREFIX_SIZE) {
                BOOST_TEST(ev == "END" + at + " need=16");
                BOOST_TEST(last);
                ++tally["END"];
                return tally;
            }
            const auto id = static_cast<std::uint32_t>(byte_io::get_le(b, off, 4));
            const std::uint64_t size = byte_io::get_le(b, off + 4, 4);
            const std::uint64_t ts = byte_io::get_le(b, off + 8, 8);
            const auto k = known.find(id);
            const std::uint32_t fixed = k == known.end() ? JITDUMP_PREFIX_SIZE : k->second.second;
            if (size < fixed || size > JITDUMP_RECORD_MAX) {
                const int err =
                    size < fixed ? JITDUMP_ERR_RECORD_TOO_SHORT : JITDUMP_ERR_RECORD_TOO_LARGE;
                BOOST_TEST(ev == "ERROR" + at + " " + std::to_string(err));
                BOOST_TEST(last);
                ++tally["ERROR " + std::to_string(err)];
                return tally;
            }
            if (k == known.end()) {
                BOOST_TEST(ev == "UNKNOWN" + at + " id=" + std::to_string(id) +
                                     " size=" + std::to_string(size) + " ts=" + std::to_string(ts));
                ++tally["UNKNOWN"];
            } else if (ev.rfind("END" + at + " need=", 0) == 0) {
                // Waiting for the rest of a known record that is cut off.
                BOOST_TEST(left < size);
                BOOST_TEST(std::stoull(ev.substr(ev.find("need=") + 5)) > left);
                BOOST_TEST(last);
                ++tally["END"];
                return tally;
            } else if (ev.rfind("BAD" + at + " ", 0) == 0) {
                const std::string head = "BAD" + at + " id=" + std::to_string(id) +
                                         " size=" + std::to_string(size) + " err=";
                BOOST_TEST_REQUIRE(ev.rfind(head, 0) == 0u);
                const int err = std::stoi(ev.substr(head.size()));
                BOOST_TEST(soft.at(id).count(err) == 1u, "error " << err);
                ++tally["BAD " + std::to_string(err)];
            } else {
                BOOST_TEST(ev.rfind(k->second.first + at + " ts=" + std::to_string(ts), 0) == 0u);
                ++tally[k->second.first];
            }
            off += size;
            BOOST_TEST(!last);
        }
    }
    BOOST_ERROR("the events end without END or ERROR");
    return tally;
}

}  // namespace

BOOST_AUTO_TEST_CASE(garbage_after_header_never_loops) {
    // Deterministic pseudo-random garbage after a good header: a quarter of
    // the streams are 64 bytes of noise, the rest records with random ids
    // (0..7: five known, three unknown), total sizes (mostly small, some
    // exactly a kind's fixed part, some above 16 MiB or 1 GiB) and noise
    // for contents, the last one usually cut off.  Each call must
    // progress, and every event must be what the bytes say.  (The
    // generator is a 32-bit LCG: the streams are the same on every run.)
    std::uint32_t s = 12345;
    auto rnd = [&s] {
        s = s * 1103515245u + 12345u;
        return s >> 8;
    };
    std::map<std::string, int> tally;
    for (int round = 0; round < 1000; ++round) {
        JitdumpBuilder b;
        b.header();
        if (round % 4 == 0) {
            for (int i = 0; i < 64; ++i) b.u8(static_cast<std::uint8_t>(rnd()));
        } else {
            while (b.bytes.size() < 40 + 160) {
                const std::uint32_t id = rnd() % 8;
                std::uint32_t size = rnd() % 100;
                const std::uint32_t pick = rnd() % 16;
                if (pick < 4) size = std::array<std::uint32_t, 5>{56, 64, 32, 16, 40}[id % 5];
                if (pick == 4) size = (16u << 20) + rnd() % 4096;
                if (pick == 5 && rnd() % 4 == 0) size = (1u << 30) + 1 + rnd() % 4096;
                b.u32(id).u32(size).u64(rnd());
                // The contents as 8-byte words, half of them small numbers
                // (sizes and counts that fit, zero bytes that end names).
                const std::size_t body = std::min<std::uint32_t>(size > 16 ? size - 16 : 0, 96);
                for (std::size_t i = 0; i < body; i += 8) {
                    const bool small = rnd() % 2 == 0;
                    const std::uint64_t word =
                        small ? rnd() % 6 : std::uint64_t(rnd()) << 32 | rnd();
                    for (std::size_t j = i; j < std::min<std::size_t>(i + 8, body); ++j)
                        b.u8(static_cast<std::uint8_t>(word >> 8 * (j - i)));
                }
            }
        }
        Lines events;
        BOOST_REQUIRE_NO_THROW(events = parse_all_ways(b.bytes));
        BOOST_TEST_CONTEXT("round " << round) {
            for (const auto& [kind, count] : check_garbage_events(b.bytes, events))
                tally[kind] += count;
        }
    }
    // The streams reached every outcome.
    for (const char* kind : {"UNKNOWN", "LOAD", "MOVE", "DEBUG", "CLOSE", "UNWIND", "END",
                             "ERROR 6", "ERROR 7", "BAD 8", "BAD 10", "BAD 11", "BAD 12", "BAD 13"})
        BOOST_TEST(tally[kind] > 0, kind);
    std::ostringstream t;
    for (const auto& [kind, count] : tally) t << " " << kind << "=" << count;
    BOOST_TEST_MESSAGE("garbage events:" << t.str());
}

BOOST_AUTO_TEST_SUITE_END()

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

// ---------------------------------------------------------------------------
// Erlang/OTP's JIT entries of the GDB JIT interface (readbeamjit.c)
// ---------------------------------------------------------------------------

namespace {

/// Writes entries in Erlang/OTP's layout (priv_jitformats.h), host order.
struct BeamEntry {
    std::vector<unsigned char> bytes;
    template <typename T>
    void put(std::size_t at, T v) {
        if (bytes.size() < at + sizeof v) bytes.resize(at + sizeof v);
        std::memcpy(bytes.data() + at, &v, sizeof v);
    }
    void str(std::size_t at, const std::string& s) {
        if (bytes.size() < at + s.size() + 1) bytes.resize(at + s.size() + 1);
        std::memcpy(bytes.data() + at, s.c_str(), s.size() + 1);
    }
    BeamEntry(std::uint64_t base, std::uint32_t ranges, std::uint32_t code,
              const std::string& mod) {
        put<std::uint32_t>(0, 1);
        put<std::uint64_t>(8, base);
        put<std::uint32_t>(16, ranges);
        put<std::uint32_t>(20, code);
        put<std::uint16_t>(24, static_cast<std::uint16_t>(mod.size() + 1));
        str(26, mod);
        bytes.resize(32 + mod.size() + 1);
    }
    void range(std::uint32_t start, std::uint32_t end, std::uint32_t lines,
               const std::string& name) {
        const std::size_t at = bytes.size();
        put<std::uint32_t>(at, start);
        put<std::uint32_t>(at + 4, end);
        put<std::uint32_t>(at + 8, lines);
        put<std::uint16_t>(at + 12, static_cast<std::uint16_t>(name.size() + 1));
        str(at + 14, name);
        bytes.resize(at + 16 + name.size() + 1);
    }
    void line(std::uint32_t start, std::uint32_t line, const std::string& file) {
        const std::size_t at = bytes.size();
        put<std::uint32_t>(at, start);
        put<std::uint32_t>(at + 4, line);
        put<std::uint16_t>(at + 8, static_cast<std::uint16_t>(file.size() + 1));
        str(at + 10, file);
        bytes.resize(at + 12 + file.size() + 1);
    }
};

BeamEntry sample_module() {
    BeamEntry e(0x7f0000001000ull, 3, 0x200, "vgfib");
    e.range(0, 0x80, 0, "vgfib::codeHeader");
    e.range(0x80, 0x100, 2, "vgfib:fib/1");
    e.line(0x7c, 8, "vgfib.erl");  // before its range: in effect at its start
    e.line(0xc0, 9, "vgfib.erl");
    e.range(0x100, 0x200, 1, "vgfib:main/0");
    e.line(0x100, 12, "vgfib.erl");
    return e;
}

/// "kind error ranges" of reading `bytes` whole, with the ranges and
/// lines read ("name@start-end" and "line@addr").
std::string read_beam(const std::vector<unsigned char>& bytes) {
    BeamJitReader r;
    std::ostringstream out;
    // An exact-size heap copy: a read past the end is caught by ASan.
    std::vector<unsigned char> copy(bytes);
    const int kind = ML_(beamjit_open)(&r, copy.empty() ? nullptr : copy.data(), copy.size());
    out << kind << " " << r.error;
    if (kind != BEAMJIT_MODULE) return out.str();
    out << " " << std::string(r.module, r.module_len);
    BeamJitRange rg;
    int k;
    while ((k = ML_(beamjit_next_range)(&r, &rg)) == 1) {
        out << " " << std::string(rg.name, rg.name_len) << "@" << std::hex << rg.start << "-"
            << rg.end << std::dec;
        BeamJitLine ln;
        while (ML_(beamjit_next_line)(&r, &ln) == 1)
            out << " " << ln.line << "@" << std::hex << ln.addr << std::dec << ":"
                << std::string(ln.file, ln.file_len);
    }
    out << " end " << k << " " << r.error;
    return out.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(beamjit)

BOOST_AUTO_TEST_CASE(module_entry_gives_its_ranges_and_lines) {
    BOOST_TEST(read_beam(sample_module().bytes) ==
               "2 0 vgfib vgfib::codeHeader@7f0000001000-7f0000001080"
               " vgfib:fib/1@7f0000001080-7f0000001100 8@7f000000107c:vgfib.erl"
               " 9@7f00000010c0:vgfib.erl vgfib:main/0@7f0000001100-7f0000001200"
               " 12@7f0000001100:vgfib.erl end 0 0");
    BeamJitReader r;
    const auto b = sample_module().bytes;
    BOOST_TEST(ML_(beamjit_open)(&r, b.data(), b.size()) == BEAMJIT_MODULE);
    BOOST_TEST(ML_(beamjit_check)(&r) == BEAMJIT_OK);
}

BOOST_AUTO_TEST_CASE(emulator_entry_and_other_objects_are_not_modules) {
    std::vector<unsigned char> emu(32, 0xAB);
    std::memset(emu.data(), 0, 4);
    BOOST_TEST(read_beam(emu) == "1 0");
    emu.push_back(0);
    BOOST_TEST(read_beam(emu) == "0 0");  // header 0 of another size
    BOOST_TEST(read_beam({}) == "0 0");
    BOOST_TEST(read_beam({'M', 'Z', 0x90, 0}) == "0 0");
    std::vector<unsigned char> two = sample_module().bytes;
    two[0] = 2;
    BOOST_TEST(read_beam(two) == "0 0");
}

BOOST_AUTO_TEST_CASE(malformed_modules_are_refused_whole) {
    const auto good = sample_module().bytes;
    // Every truncation is malformed (never a crash, never accepted).
    for (std::size_t n = 4; n < good.size(); ++n) {
        BeamJitReader r;
        std::vector<unsigned char> cut(good.begin(), good.begin() + n);
        const int kind = ML_(beamjit_open)(&r, cut.data(), cut.size());
        BOOST_TEST_CONTEXT("length " << n) {
            BOOST_TEST((kind == BEAMJIT_MALFORMED ||
                        (kind == BEAMJIT_MODULE && ML_(beamjit_check)(&r) != BEAMJIT_OK)));
        }
    }
    auto check = [](std::vector<unsigned char> b) {
        BeamJitReader r;
        const int kind = ML_(beamjit_open)(&r, b.data(), b.size());
        return kind == BEAMJIT_MODULE      ? ML_(beamjit_check)(&r)
               : kind == BEAMJIT_MALFORMED ? r.error
                                           : -1;
    };
    std::vector<unsigned char> b = good;
    b.push_back(0);
    BOOST_TEST(check(b) == BEAMJIT_ERR_TRAILING);
    BeamEntry unordered(0x7f0000001000ull, 2, 0x200, "m");
    unordered.range(0x80, 0x100, 0, "m:a/0");
    unordered.range(0x40, 0x80, 0, "m:b/0");
    BOOST_TEST(check(unordered.bytes) == BEAMJIT_ERR_BAD_RANGE);
    BeamEntry outside(0x7f0000001000ull, 1, 0x100, "m");
    outside.range(0x80, 0x180, 0, "m:a/0");
    BOOST_TEST(check(outside.bytes) == BEAMJIT_ERR_BAD_RANGE);
    BeamEntry wraps(~0ull - 0x10, 1, 0x100, "m");
    wraps.range(0, 0x10, 0, "m:a/0");
    BOOST_TEST(check(wraps.bytes) == BEAMJIT_ERR_NO_CODE);
    BeamEntry no_nul = sample_module();
    no_nul.bytes[26 + 5] = 'x';  // the module name's NUL
    BOOST_TEST(check(no_nul.bytes) == BEAMJIT_ERR_BAD_NAME);
    BeamEntry many(0x7f0000001000ull, 0xFFFFFFFFu, 0x200, "m");  // counts bounded by bytes
    many.range(0, 0x10, 0xFFFFFFFFu, "m:a/0");
    BOOST_TEST(check(many.bytes) == BEAMJIT_ERR_LINE_OUTSIDE);
}

BOOST_AUTO_TEST_SUITE_END()
