// hostile_mutator.cpp: the hostile campaign's mutation primitives (the
// program is described in hostile_campaign.cpp): interesting values, bits
// flipped, random bytes and truncations, each described as it is applied
// (Mutator), and LEB128 numbers.
#include <algorithm>
#include <cstdint>
#include <string>

#include "hostile_campaign.hpp"

namespace hostile {

namespace {

/// An interesting value for a field of `width` bytes whose buffer holds
/// `size` bytes and whose region holds `region` bytes.
std::uint64_t interesting(Rng& r, int width, std::uint64_t size, std::uint64_t region) {
    const std::uint64_t mask = width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;
    const std::uint64_t vals[] = {0,
                                  1,
                                  0x7f,
                                  0x80,
                                  0xff,
                                  0x7fff,
                                  0x8000,
                                  0xffff,
                                  0x7fffffff,
                                  0x80000000,
                                  0xffffffff,
                                  0x7fffffffffffffffull,
                                  0x8000000000000000ull,
                                  ~0ull,
                                  size,
                                  size + 1,
                                  size - 1,
                                  region,
                                  region + 1,
                                  region - 1,
                                  2 * region,
                                  16,
                                  64};
    const std::size_t n = sizeof vals / sizeof vals[0];
    std::uint64_t v = r.chance(15) ? r.next() : vals[r.below(n)];
    return v & mask;
}

}  // namespace

bool uleb(const Bytes& b, std::size_t& at, std::size_t end, std::uint64_t* v) {
    std::uint64_t r = 0;
    int shift = 0;
    while (at < end) {
        const std::uint8_t c = b[at++];
        if (shift < 64) r |= std::uint64_t(c & 0x7f) << shift;
        shift += 7;
        if (!(c & 0x80)) {
            if (v) *v = r;
            return true;
        }
    }
    return false;
}

void put_uleb(Bytes& out, std::uint64_t v) {
    do {
        std::uint8_t c = v & 0x7f;
        v >>= 7;
        if (v) c |= 0x80;
        out.push_back(c);
    } while (v);
}

void put_sleb(Bytes& out, std::int64_t v) {
    bool more = true;
    while (more) {
        std::uint8_t c = v & 0x7f;
        v >>= 7;
        if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)))
            more = false;
        else
            c |= 0x80;
        out.push_back(c);
    }
}

void Mutator::note(const std::string& s) {
    if (!desc.empty()) desc += "; ";
    desc += s;
}

void Mutator::field(std::size_t at, int width, std::uint64_t region, const std::string& what) {
    if (at >= b.size()) return;
    const std::uint64_t v = interesting(r, width, b.size(), region);
    put_le(b, at, width, v);
    note(what + "=" + hex(v));
}

void Mutator::flip(std::size_t lo, std::size_t hi, const std::string& where) {
    if (lo >= hi || lo >= b.size()) return;
    hi = std::min(hi, b.size());
    const int n = 1 + static_cast<int>(r.below(4));
    for (int i = 0; i < n; ++i) {
        const std::size_t at = lo + r.below(hi - lo);
        const int bit = static_cast<int>(r.below(8));
        b[at] ^= static_cast<std::uint8_t>(1u << bit);
        note("flip " + where + "+" + hex(at - lo) + " bit " + std::to_string(bit));
    }
}

void Mutator::random_bytes(std::size_t lo, std::size_t hi, const std::string& where) {
    if (lo >= hi || lo >= b.size()) return;
    hi = std::min(hi, b.size());
    const std::size_t at = lo + r.below(hi - lo);
    const std::size_t n = std::min<std::size_t>(1 + r.below(16), b.size() - at);
    for (std::size_t i = 0; i < n; ++i) b[at + i] = static_cast<std::uint8_t>(r.next());
    note("random " + where + "+" + hex(at - lo) + " x" + std::to_string(n));
}

void Mutator::interesting_at(std::size_t lo, std::size_t hi, const std::string& where) {
    if (lo >= hi || lo >= b.size()) return;
    hi = std::min(hi, b.size());
    const int widths[] = {1, 2, 4, 8};
    const int w = widths[r.below(4)];
    const std::size_t at = lo + r.below(hi - lo);
    field(at, w, hi - lo, where + "+" + hex(at - lo) + "/" + std::to_string(w));
}

void Mutator::truncate(std::size_t at) {
    if (at >= b.size()) return;
    note("truncated to " + hex(at) + " of " + hex(b.size()));
    b.resize(at);
}

}  // namespace hostile
