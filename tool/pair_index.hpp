// pair_index.hpp: a hash index over a table whose entries are keyed by
// pairs of 64-bit numbers, for the tables of `vg-jit export` (the calls of
// a part, the stack and frame tables, the paths of folded stacks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace vgjit {
namespace exporting {

/// A hash index over a table of entries keyed by pairs of 64-bit
/// numbers, which the caller keeps: each call gets `key`, where key(i) is
/// entry i's key.  Open addressing (linear probing) in one array of entry
/// numbers: the tables of stacks, frames and calls have millions of
/// entries for large profiles, and a node per entry made them most of
/// the conversion's time.
class PairIndex {
public:
    static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
    using Key = std::pair<std::uint64_t, std::uint64_t>;
    /// The entry keyed k, or kAbsent.
    template <class KeyOf>
    std::size_t find(const Key& k, KeyOf key) const {
        if (slots_.empty()) return kAbsent;
        for (std::size_t i = hash(k) & mask();; i = (i + 1) & mask()) {
            const std::size_t e = slots_[i];
            if (e == kAbsent || key(e) == k) return e;
        }
    }
    /// The entry keyed k; if there is none, `next`, the number of the
    /// entry the caller then adds to its table.
    template <class KeyOf>
    std::size_t insert(const Key& k, std::size_t next, KeyOf key) {
        if (2 * (used_ + 1) > slots_.size()) grow(key);
        std::size_t i = hash(k) & mask();
        for (;; i = (i + 1) & mask()) {
            const std::size_t e = slots_[i];
            if (e == kAbsent) break;
            if (key(e) == k) return e;
        }
        slots_[i] = next;
        ++used_;
        return next;
    }

private:
    static std::size_t hash(const Key& k) {
        std::uint64_t x = k.first * 0x9e3779b97f4a7c15ULL + k.second;  // splitmix64's finaliser
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return static_cast<std::size_t>(x ^ (x >> 31));
    }
    std::size_t mask() const { return slots_.size() - 1; }
    template <class KeyOf>
    void grow(KeyOf key) {
        std::vector<std::size_t> old(slots_.empty() ? 16 : 2 * slots_.size(), kAbsent);
        old.swap(slots_);
        for (const std::size_t e : old) {
            if (e == kAbsent) continue;
            std::size_t i = hash(key(e)) & mask();
            while (slots_[i] != kAbsent) i = (i + 1) & mask();
            slots_[i] = e;
        }
    }
    std::vector<std::size_t> slots_;
    std::size_t used_ = 0;
};

}  // namespace exporting
}  // namespace vgjit
