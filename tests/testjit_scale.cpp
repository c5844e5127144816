// testjit_scale.cpp: testjit's many functions, names and requests:
// thousands of small functions registered (many) or not (retranslate,
// which exercises the translation table's lookups), the name pool
// compacted (compact), and random churn checked against a model (churn).

#include "testjit.hpp"

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace testjit {

namespace {

// Emits "return i" (mov eax, i; ret) into each of the n slots of
// slot_size bytes from base.
void emit_slots(std::uint8_t* base, std::size_t slot_size, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        Emitter e(base + i * slot_size, slot_size);
        e.mov(e.eax, static_cast<std::uint32_t>(i));
        e.ret();
        e.ready();
    }
}

// Emits `count` functions of 16 bytes, `mov eax, i & 0xff; ret`, one
// after another at the start of `mem` (at least small_functions_bytes).
constexpr std::size_t kSmallFn = 16;
std::size_t small_functions_bytes(long count) { return (count * kSmallFn + 4095) / 4096 * 4096; }
void emit_small_functions(CodeMemory& mem, long count) {
    for (long i = 0; i < count; ++i) {
        Emitter e(mem.base() + i * kSmallFn, kSmallFn);
        e.mov(e.eax, static_cast<std::uint32_t>(i & 0xff));
        e.ret();
        e.ready();
    }
}

// Runs the first `count` functions of emit_small_functions once each.
long call_small_functions(const CodeMemory& mem, long count) {
    long sum = 0;
    for (long i = 0; i < count; ++i)
        sum += reinterpret_cast<long (*)()>(mem.base() + i * kSmallFn)() & 0xff;
    return sum;
}

// The random requests of mode_churn over kSlots slots of kSlot bytes
// (ascending, descending and random addresses; some names shared), each
// one's return value and status checked against a model of what must be
// registered.
class Churn {
public:
    static constexpr std::size_t kSlot = 16, kSlots = 20000;

    Churn(std::uint8_t* base, unsigned seed) : base_(base), rng_(seed) {}

    // Request number `op`: a registration, an unregistration or a range
    // unregistration (or, now and then, nothing).
    void step(long op) {
        const int phase = static_cast<int>(op / 5000 % 3);  // random, up, down
        const std::size_t r = below(100);
        if (r < 65)
            register_random(op, phase);
        else if (r < 85)
            unregister_random(op);
        else if (r < 95 || below(20) == 0)
            unregister_random_range(op, r < 95);
        max_live_ = std::max(max_live_, model_.size());
    }

    // Writes the summary line, runs every function still registered once
    // ("churn live NAME" each) and the result line.
    void finish() const {
        std::fprintf(stderr, "churn mismatches %ld, at most %zu live\n", mismatches_, max_live_);
        long sum = 0;
        for (const auto& [first, fn] : model_) {
            std::fprintf(stderr, "churn live %s\n", fn.name.c_str());
            sum += reinterpret_cast<long (*)()>(base_ + first * kSlot)();
        }
        std::printf("churn %zu live, sum %ld\n", model_.size(), sum);
    }

private:
    // A registered function of the model.
    struct Fn {
        std::size_t slots;
        std::string name;
    };

    std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

    // The functions intersecting slots [lo, lo+n).
    std::vector<std::size_t> intersecting(std::size_t lo, std::size_t n) const {
        std::vector<std::size_t> out;
        auto it = model_.lower_bound(lo);
        if (it != model_.begin()) {
            auto prev = std::prev(it);
            if (prev->first + prev->second.slots > lo) out.push_back(prev->first);
        }
        for (; it != model_.end() && it->first < lo + n; ++it) out.push_back(it->first);
        return out;
    }

    // Counts and reports a request whose answer is not the model's.
    void check(long op, const char* what, unsigned long expected, unsigned long got,
               int expected_status) {
        const int status = static_cast<int>(VALGRIND_JIT_LAST_ERROR());
        if (got == expected && status == expected_status) return;
        ++mismatches_;
        std::fprintf(
            stderr,
            "churn MISMATCH op %ld %s: returned %lu (expected %lu), status %d (expected %d)\n", op,
            what, got, expected, status, expected_status);
    }

    // Registers 1 to 3 slots at a random, rising or falling place.
    void register_random(long op, int phase) {
        std::size_t first;
        if (phase == 0)
            first = below(kSlots);
        else if (phase == 1)
            first = cursor_ = (cursor_ + 1 + below(3)) % kSlots;
        else
            first = cursor_ = (cursor_ + kSlots - 1 - below(3)) % kSlots;
        const std::size_t n = std::min<std::size_t>(1 + below(3), kSlots - first);
        const std::string name = below(8) == 0 ? "churn_shared_" + std::to_string(below(5))
                                               : "churn_" + std::to_string(op) + "_" + padding_;
        const auto hit = intersecting(first, n);
        const unsigned long ret =
            VALGRIND_JIT_REGISTER(base_ + first * kSlot, n * kSlot, name.c_str());
        check(op, "register", 1, ret, hit.empty() ? VG_JIT_OK : VG_JIT_WARN_REPLACED);
        for (std::size_t s : hit) model_.erase(s);
        model_[first] = Fn{n, name};
    }

    // Unregisters a function of the model, or mostly so.
    void unregister_random(long op) {
        std::size_t first = below(kSlots);
        if (!model_.empty() && below(4) != 0) {
            auto it = model_.lower_bound(first);
            if (it == model_.end()) it = model_.begin();
            first = it->first;
        }
        const bool registered = model_.count(first) != 0;
        const unsigned long ret = VALGRIND_JIT_UNREGISTER(base_ + first * kSlot);
        check(op, "unregister", registered ? 1 : 0, ret,
              registered ? VG_JIT_OK : VG_JIT_ERR_NOT_REGISTERED);
        model_.erase(first);
    }

    // Unregisters a small range, or a large one.
    void unregister_random_range(long op, bool small) {
        const std::size_t first = below(kSlots);
        const std::size_t n =
            std::min<std::size_t>(small ? 1 + below(8) : 200 + below(1500), kSlots - first);
        const auto hit = intersecting(first, n);
        // From the middle of the first slot: a function covering that
        // slot intersects the range, one ending where it starts does not.
        const unsigned long ret =
            VALGRIND_JIT_UNREGISTER_RANGE(base_ + first * kSlot + 8, n * kSlot - 8);
        check(op, "unregister-range", hit.size(), ret,
              hit.empty() ? VG_JIT_ERR_NOT_REGISTERED : VG_JIT_OK);
        for (std::size_t s : hit) model_.erase(s);
    }

    std::uint8_t* base_;
    std::mt19937 rng_;
    std::map<std::size_t, Fn> model_;                   // first slot -> function
    const std::string padding_ = std::string(40, 'p');  // long names: the name pool fills
    std::size_t cursor_ = 0, max_live_ = 0;
    long mismatches_ = 0;
};

}  // namespace

// compact: three functions kept registered across three rounds of 20000
// long names registered and unregistered (the name pool compacted at the
// next time slice), then unregistered.
int mode_compact() {
    constexpr std::size_t kSlot = 16, kSlots = 20003;
    CodeMemory mem(kSlots * kSlot);
    std::uint8_t* base = mem.base();
    emit_slots(base, kSlot, kSlots);
    const std::string shared = "kept_shared_" + std::string(40, 's');
    const std::string alone = "kept_alone_" + std::string(40, 'a');
    report("kept-1", VALGRIND_JIT_REGISTER(base, kSlot, shared.c_str()));
    report("kept-2", VALGRIND_JIT_REGISTER(base + kSlot, kSlot, shared.c_str()));
    report("kept-3", VALGRIND_JIT_REGISTER(base + 2 * kSlot, kSlot, alone.c_str()));
    for (int round = 0; round < 3; ++round) {
        for (std::size_t i = 3; i < kSlots; ++i) {
            const std::string name = "dying_" + std::to_string(round) + "_" + std::to_string(i) +
                                     "_" + std::string(60, 'd');
            VALGRIND_JIT_REGISTER(base + i * kSlot, kSlot, name.c_str());
        }
        // Not executable while they are unregistered: their names die at
        // once (names of code that stays executable would be kept).
        mprotect(base, mem.size(), PROT_READ | PROT_WRITE);
        for (std::size_t i = 3; i < kSlots; ++i) VALGRIND_JIT_UNREGISTER(base + i * kSlot);
        mprotect(base, mem.size(), PROT_READ | PROT_WRITE | PROT_EXEC);
        for (int y = 0; y < 3; ++y) sched_yield();
    }
    mprotect(base, mem.size(), PROT_READ | PROT_WRITE);
    report("unkept-1", VALGRIND_JIT_UNREGISTER(base));
    report("unkept-2", VALGRIND_JIT_UNREGISTER(base + kSlot));
    report("unkept-3", VALGRIND_JIT_UNREGISTER(base + 2 * kSlot));
    std::printf("compact done\n");
    return 0;
}

// many N: N functions of 16 bytes registered, each run once.
int mode_many(long count) {
    CodeMemory mem(small_functions_bytes(count));
    emit_small_functions(mem, count);
    std::uint8_t* p = mem.base();
    std::vector<std::string> names;
    names.reserve(count);
    for (long i = 0; i < count; ++i) {
        names.push_back("many_" + std::to_string(i));
        VALGRIND_JIT_REGISTER(p + i * kSmallFn, kSmallFn, names.back().c_str());
    }
    std::fprintf(stderr, "many range %p %p\n", static_cast<void*>(p),
                 static_cast<void*>(p + count * kSmallFn));
    std::printf("many sum %ld\n", call_small_functions(mem, count));
    return 0;
}

// Unregistered code translated, partly discarded and translated again:
// runs `count` functions once each, discards the translations of the
// first half with one VALGRIND_DISCARD_TRANSLATIONS request, and runs
// all of them again.  That makes count + count/2 translations of the
// functions; every lookup of the second half in the second pass must
// find the first pass's translation.
int mode_retranslate(long count) {
    CodeMemory mem(small_functions_bytes(count));
    emit_small_functions(mem, count);
    long sum = call_small_functions(mem, count);
    VALGRIND_DISCARD_TRANSLATIONS(mem.base(), (count / 2) * kSmallFn);
    sum += call_small_functions(mem, count);
    std::printf("retranslate sum %ld\n", sum);
    return 0;
}

// churn SEED OPS: the registry's behaviour under random churn, checked
// request by request against a model.
int mode_churn(unsigned seed, long ops) {
    CodeMemory mem(Churn::kSlots * Churn::kSlot);
    emit_slots(mem.base(), Churn::kSlot, Churn::kSlots);
    Churn churn(mem.base(), seed);
    for (long op = 0; op < ops; ++op) churn.step(op);
    churn.finish();
    return 0;
}

}  // namespace testjit
