// unit_parsers_jitdump_malformed.cpp: unit_parsers' jitdump streams that
// break the format (unit_parsers.cpp says what the program holds): bad
// headers, records whose sizes, names, code ranges, line tables or
// unwinding sizes are wrong, cut streams, and pseudo-random garbage after
// a good header, each event checked against the bytes.
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "byte_io.hpp"
#include "jitdump_builder.hpp"
#include "parser_driver.hpp"
#include "unit_parsers.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace jitdump_test;

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
