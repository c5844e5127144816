// testjit_changes.cpp: testjit's code that changes under its name:
// replaced at its address after an unregistration (replace), patched in
// place and registered again over the same range (patch), unregistered
// while not executable (forget), and unregistered while it stays mapped
// and runs on (withdrawn).

#include "testjit.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace testjit {

namespace {

// Emits at p: "ecx = iterations; loop: dec ecx; jnz loop", then
// `finish` (the part that differs between versions), then ret.  Line
// table: `line` at the entry, line + 1 on the loop, line + 2 from the
// finish on.  Returns the size in bytes.
template <typename Finish>
std::size_t emit_spinner(std::uint8_t* p, std::uint32_t iterations, const char* name,
                         unsigned long line, Finish finish) {
    Emitter e(p, 128);
    e.mov(e.ecx, iterations);
    const std::size_t loop_at = e.getSize();
    Xbyak::Label top;
    e.L(top);
    e.dec(e.ecx);
    e.jnz(top);
    const std::size_t finish_at = e.getSize();
    finish(e);
    e.ret();
    e.ready();
    register_fn(p, e.getSize(), name,
                {{0, line, nullptr}, {loop_at, line + 1, nullptr}, {finish_at, line + 2, nullptr}});
    return e.getSize();
}

// Emits w_leaf at p: "xor eax, eax; <nops> mov eax, [rdi + disp]; ret"
// (reads 4 bytes at rdi+disp), with lines 140 (entry), 141 (the read),
// 142 (ret) when registered.  Returns the size in bytes.
struct LeafShape {
    std::size_t size, read_at, ret_at;
};
LeafShape emit_withdrawn_leaf(std::uint8_t* p, int nops, int disp) {
    Emitter e(p, 64);
    e.xor_(e.eax, e.eax);
    for (int i = 0; i < nops; ++i) e.nop();
    const std::size_t read_at = e.getSize();
    e.mov(e.eax, e.dword[e.rdi + disp]);
    const std::size_t ret_at = e.getSize();
    e.ret();
    e.ready();
    return {e.getSize(), read_at, ret_at};
}

// Calls the w_caller at caller_at `times` times on `block`.  Never
// inlined: the calls of one phase then return to one call site, so that
// Memcheck reports each phase's invalid read once.
__attribute__((noinline)) void call_caller(std::uint8_t* caller_at, int* block, int times) {
    using CallerFn = long (*)(int*);
    for (int i = 0; i < times; ++i) {
        volatile long v = reinterpret_cast<CallerFn>(caller_at)(block);
        (void)v;
    }
}

}  // namespace

// replace: first_version run at an address and unregistered, then
// second_version emitted there, registered and run.
int mode_replace() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    std::size_t n1 = emit_counter(p, 1, 100000);
    register_fn(p, n1, "first_version", {{0, 40, nullptr}});
    long a = reinterpret_cast<long (*)()>(p)();
    report("unregister", VALGRIND_JIT_UNREGISTER(p));
    std::size_t n2 = emit_counter(p, 2, 300000);
    register_fn(p, n2, "second_version", {{0, 50, nullptr}});
    long b = reinterpret_cast<long (*)()>(p)();
    std::printf("replace results %ld %ld\n", a, b);
    return 0;
}

// A JIT that patches code in place: the second version is written over
// the first, which has already run (and been translated), and registered
// over the same range without unregistering first.  The registration must
// make every tool forget the first version's translations.
int mode_patch() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    constexpr std::uint32_t kSpin = 1000;
    emit_spinner(p, kSpin, "patch_first", 110,
                 [](Emitter& e) { e.mov(e.eax, 1); });  // 2K + 3 instructions
    long a = 0;
    for (int i = 0; i < 3; ++i) a += reinterpret_cast<long (*)(int*)>(p)(nullptr);
    auto* block = static_cast<int*>(std::malloc(16));
    std::memset(block, 0, 16);
    emit_spinner(p, kSpin, "patch_second", 120, [](Emitter& e) {
        e.mov(e.eax, e.dword[e.rdi + 16]);  // reads past the block
        e.add(e.eax, 2);
    });  // 2K + 4 instructions
    long b = 0;
    for (int i = 0; i < 5; ++i) b += reinterpret_cast<long (*)(int*)>(p)(block) & 0;
    std::free(block);
    std::printf("patch results %ld %ld\n", a, b);
    return 0;
}

// forget: code unregistered while its memory is not executable (a W^X JIT
// about to write there), then made executable again and run: it must
// lose its name (code that stays executable keeps it: mode_withdrawn).
// "forgotten" (2 x 1000 + 3 instructions a call) runs once registered,
// then twice unregistered.
int mode_forget() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    const std::size_t n = emit_counter(p, 4, 1000);
    register_fn(p, n, "forgotten", {{0, 130, nullptr}});
    const auto fn = reinterpret_cast<long (*)()>(p);
    const long a = fn();
    mprotect(p, mem.size(), PROT_READ | PROT_WRITE);
    report("unregister", VALGRIND_JIT_UNREGISTER(p));
    mprotect(p, mem.size(), PROT_READ | PROT_WRITE | PROT_EXEC);
    const long b = fn() + fn();
    std::printf("forget results %ld %ld\n", a, b);
    return 0;
}

// Code registered with line tables, unregistered by the client requests
// while it stays mapped, and called on (Mesa-style JITs keep code whose
// registration they withdrew).  w_caller(block) calls w_leaf(block) 10
// times; w_leaf reads block[4].  Phase 1: registered, one w_caller call
// on a 32-byte block (no error).  Phase 2: both unregistered
// (VALGRIND_JIT_UNREGISTER, or one VALGRIND_JIT_UNREGISTER_RANGE with
// end "range"), three w_caller calls on a 16-byte block (an invalid read
// in w_leaf).  Phase 3, by `end`:
//   stay, range  nothing more;
//   write        w_leaf's bytes are overwritten in place with other code
//                (4 nops more, reads block[5]), and w_caller calls it
//                twice (a second invalid read, at another address);
//   munmap       the page is unmapped, mapped again at the same address
//                with the same bytes, and w_caller called twice;
//   reregister   w_leaf's range is registered as w_again (lines 160..162)
//                and w_caller called twice;
//   unexec       the page is made writable and not executable, then
//                executable again with the same bytes, and w_caller
//                called twice.
int mode_withdrawn(const std::string& end) {
    constexpr std::size_t kSize = 4096;
    void* m = mmap(nullptr, kSize, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (m == MAP_FAILED) {
        std::perror("mmap");
        return 2;
    }
    auto* p = static_cast<std::uint8_t*>(m);
    std::uint8_t* caller_at = p + 256;
    auto emit = [&]() {
        const LeafShape leaf = emit_withdrawn_leaf(p, 0, 16);
        const EmittedShape caller = emit_repeat_caller(caller_at, 256, p, 10);
        return std::make_pair(leaf, caller);
    };
    const auto [leaf, caller] = emit();
    register_fn(p, leaf.size, "w_leaf",
                {{0, 140, nullptr}, {leaf.read_at, 141, nullptr}, {leaf.ret_at, 142, nullptr}});
    register_fn(caller_at, caller.size, "w_caller",
                {{0, 150, nullptr}, {caller.loop, 151, nullptr}, {caller.tail, 152, nullptr}});
    auto* big = static_cast<int*>(std::calloc(8, sizeof(int)));
    auto* small = static_cast<int*>(std::calloc(4, sizeof(int)));
    const auto call = [caller_at](int* block, int times) { call_caller(caller_at, block, times); };
    call(big, 1);
    if (end == "range") {
        report("unregister-range", VALGRIND_JIT_UNREGISTER_RANGE(p, kSize));
    } else {
        report("unregister-leaf", VALGRIND_JIT_UNREGISTER(p));
        report("unregister-caller", VALGRIND_JIT_UNREGISTER(caller_at));
    }
    report("unregister-again", VALGRIND_JIT_UNREGISTER(p));
    call(small, 3);
    if (end == "write") {
        emit_withdrawn_leaf(p, 4, 20);
        call(small, 2);
    } else if (end == "munmap") {
        munmap(p, kSize);
        if (mmap(p, kSize, PROT_READ | PROT_WRITE | PROT_EXEC,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p) {
            std::perror("mmap again");
            return 2;
        }
        emit();
        call(big, 2);
    } else if (end == "reregister") {
        register_fn(p, leaf.size, "w_again",
                    {{0, 160, nullptr}, {leaf.read_at, 161, nullptr}, {leaf.ret_at, 162, nullptr}});
        call(big, 2);
    } else if (end == "unexec") {
        mprotect(p, kSize, PROT_READ | PROT_WRITE);
        mprotect(p, kSize, PROT_READ | PROT_WRITE | PROT_EXEC);
        call(big, 2);
    } else if (end != "stay" && end != "range") {
        std::fprintf(stderr, "withdrawn: unknown end %s\n", end.c_str());
        return 2;
    }
    std::free(big);
    std::free(small);
    munmap(p, kSize);
    std::printf("withdrawn %s done\n", end.c_str());
    return 0;
}

}  // namespace testjit
