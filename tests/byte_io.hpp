// byte_io.hpp: little-endian numbers of 1 to 8 bytes read from and written
// into byte buffers, for the tests that take apart or build binary input
// field by field (the hostile campaign's mutations, unit_parsers' checks
// of garbage jitdump streams).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace byte_io {

/// The little-endian number of `width` bytes (1 to 8) at offset `at` of
/// `b`; the caller checks that [at, at + width) lies inside `b`.
inline std::uint64_t get_le(const std::vector<std::uint8_t>& b, std::size_t at, int width) {
    std::uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
    return v;
}

/// Writes the low `width` bytes (1 to 8) of `v` at offset `at` of `b`,
/// least significant first; the bytes that would lie past the end of `b`
/// are dropped (a field cut by the end of the buffer is written in part).
inline void put_le(std::vector<std::uint8_t>& b, std::size_t at, int width, std::uint64_t v) {
    for (int i = 0; i < width && at + static_cast<std::size_t>(i) < b.size(); ++i)
        b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace byte_io
