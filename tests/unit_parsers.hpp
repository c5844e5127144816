// unit_parsers.hpp: what the files of unit_parsers share: a jitdump
// stream parsed with every feeding strategy of parser_driver.hpp, and the
// well-formed stream that holds every kind of record with the events it
// gives.
#pragma once

#include <boost/test/unit_test.hpp>

#include "jitdump_builder.hpp"
#include "parser_driver.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace jitdump_test {

/// The events of one run, one line each (parser_driver.hpp's text).
using Lines = std::vector<std::string>;

/// Parses `bytes` with every feeding strategy; requires identical events;
/// returns them.  `exhaustive`: split at every byte boundary (else at a
/// sample of boundaries, for big streams).
inline Lines parse_all_ways(const std::vector<unsigned char>& bytes, unsigned long max_hold = 0,
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

/// The main well-formed stream used by several tests (offsets in comments).
inline JitdumpBuilder good_stream(std::uint32_t version, bool le = host_little_endian()) {
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

/// The events of good_stream(version), one line each.
inline const Lines kGoodEvents(std::uint32_t version) {
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

}  // namespace jitdump_test
