// crossjit.cpp - the test JIT of the cross-architecture tests: it writes
// machine code for the machine it is compiled for into anonymous
// executable memory, names it through each channel the patched core reads,
// then runs it.  Built twice:
//   x86/x86jit      g++ -m32 (IA-32), run natively under the patched
//                   Valgrind built for x86-linux by tests/integration_x86.cpp
//                   (`make check-x86`)
//   arm64/arm64jit  aarch64-linux-gnu-g++ (A64), run under QEMU user mode by
//                   tests/integration_arm64.cpp (`make check-arm64`)
// Only the machine code, its CFI, its frame shapes and its line and inline
// tables differ: they are in the `#if defined(__i386__)` and
// `#elif defined(__aarch64__)` sections below; the rest is shared.
//
// Two functions are emitted: loop (n >= 1; returns n) and frame (a
// pointer; returns the word it points to).  On both machines a call of
// loop(n) executes 3n + 3 instructions: three lines of its line table (one
// line per instruction, lines 10..15) run n times per call, the other
// three once.  A call of frame executes 6 instructions on x86, 5 on arm64;
// frame keeps its caller's return address where only its CFI or its frame
// shape finds it (the sections below say how).
//
// Usage: x86jit|arm64jit MODE N CALLS (ARCH below is x86 or arm64)
//   api       register loop through VALGRIND_JIT_REGISTER_CODE with a line
//             table (ARCH_api.jit lines 10..15) and an inline table
//             (ARCH_inlined_step, called at line 11), call it CALLS times
//             with n = N; then register frame with its .eh_frame and an
//             inline table (the load: ARCH_inlined_load at line 31, called
//             at line 22) and call it on a freed block (Memcheck reports
//             the read)
//   api-nocfi the same, frame registered without CFI
//   api-shape the same, frame registered with the frame shape
//             VG_JIT_UNWIND_FRAME_POINTER
//   api-fixed the same, with VG_JIT_UNWIND_FIXED_FRAME
//   perfmap   name loop and frame (ARCH_perfmap_loop, ARCH_perfmap_frame) in
//             /tmp/perf-<pid>.map, then call them
//   late      call them first, then write /tmp/perf-<pid>.map (as HotSpot's
//             -XX:+DumpPerfMapAtExit does)
//   jitdump   name them (ARCH_jitdump_loop, ARCH_jitdump_frame) in
//             ./jit-<pid>.dump (CODE_DEBUG_INFO for loop with the lines of
//             api in ARCH_jitdump.jit; CODE_UNWINDING_INFO for frame), then
//             call them
//   jitdump-late  call them first, then write the jitdump records
// On a 32-bit machine (x86) the perf maps and jitdumps then name loop once
// more, as x86_high_loop, 4 GiB above it (a 64-bit address, as the files
// can hold; in the jitdump with lines 110..115 of x86_high.jit): a reader
// that truncated it to 32 bits would rename loop.
// Prints "loop at 0xADDR", "frame at 0xADDR" and "loop(N) = N" on stdout.

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <valgrind/jit.h>

#include "jitdump_builder.hpp"

namespace {

/// Where frame's caller is while the code between the prologue and the
/// epilogue runs (VgJitCode's prologue_size, ra_offset, fp_offset).
struct FrameShape {
    unsigned long prologue_size, ra_offset, fp_offset;
};

/// A range of code inlined at a call site (VgJitInline's offset and size).
struct InlinedRange {
    unsigned long offset, size;
};

#if defined(__i386__)
// IA-32, cdecl: the argument at 4(%esp), the result in %eax.
//
//   loop:                                frame:
//     0  mov  0x4(%esp),%ecx               0  push %ebp
//     4  xor  %eax,%eax                    1  mov  0x8(%esp),%eax
//     6  inc  %eax        <-+              5  mov  (%eax),%eax
//     7  dec  %ecx          |              7  mov  %esp,%ebp
//     8  jne  6 ------------+              9  pop  %ebp
//    10  ret                              10  ret
//
// loop's lines 12..14 (inc, dec, jne) run n times per call.  frame reads
// through its argument before it sets its frame pointer: %ebp still holds
// the caller's value (no frame pointer at -O1), so following %ebp misses
// the caller, and a trace from the read needs frame's CFI or its shape
// (CFA = %esp + 8 after the push, %ebp at CFA-8, the return address at
// CFA-4).
#define CROSSJIT_ARCH "x86"
constexpr std::uint16_t kElfMachine = 3;  // EM_386

const std::uint8_t kLoop[] = {
    0x8B, 0x4C, 0x24, 0x04,  // mov  0x4(%esp),%ecx
    0x31, 0xC0,              // xor  %eax,%eax
    0x40,                    // inc  %eax
    0x49,                    // dec  %ecx
    0x75, 0xFC,              // jne  .-4
    0xC3,                    // ret
};

const std::uint8_t kFrame[] = {
    0x55,                    // push %ebp
    0x8B, 0x44, 0x24, 0x08,  // mov  0x8(%esp),%eax
    0x8B, 0x00,              // mov  (%eax),%eax
    0x89, 0xE5,              // mov  %esp,%ebp
    0x5D,                    // pop  %ebp
    0xC3,                    // ret
};

const VgJitLine kLoopLines[] = {{0, 10, nullptr}, {4, 11, nullptr}, {6, 12, nullptr},
                                {7, 13, nullptr}, {8, 14, nullptr}, {10, 15, nullptr}};
const VgJitLine kFrameLines[] = {{0, 20, nullptr}, {5, 31, nullptr}, {7, 23, nullptr}};
const InlinedRange kLoopInlined = {6, 4};   // inc, dec, jne
const InlinedRange kFrameInlined = {5, 2};  // the load

// frame's CFI: code alignment 1, data alignment -4, return address
// register 8 (%eip) at CFA-4, CFA = %esp + 4 at entry, %esp + 8 after the
// push (%ebp at CFA-8), %esp + 4 after the pop.
const std::vector<std::uint8_t> kCie = {
    1,              // code alignment
    0x7C,           // data alignment -4
    8,              // return address register: %eip
    1,    0x1B,     // augmentation data: pcrel|sdata4
    0x0C, 4,    4,  // DW_CFA_def_cfa %esp, 4
    0x88, 1,        // DW_CFA_offset %eip, CFA-4
};
const std::vector<std::uint8_t> kFde = {
    0x41,         // DW_CFA_advance_loc 1 (after the push)
    0x0E,     8,  // DW_CFA_def_cfa_offset 8
    0x85,     2,  // DW_CFA_offset %ebp, CFA-8
    0x49,         // DW_CFA_advance_loc 9 (after the pop)
    0x0E,     4,  // DW_CFA_def_cfa_offset 4
    0xC0 | 5,     // DW_CFA_restore %ebp
};

// push %ebp, then the load, then mov %esp,%ebp: 9 bytes of prologue.
constexpr FrameShape kFramePointerShape = {9, 0, 0};
// After the push (1 byte): the return address at %esp + 4, the caller's
// %ebp at %esp.
constexpr FrameShape kFixedFrameShape = {1, 4, 0};

#elif defined(__aarch64__)
// A64 (x0 in, x0 out; words, little-endian):
//
//   loop:                              frame:
//     0  movz x1, #0                     0  stp  x29, x30, [sp, #-16]!
//     4  add  x1, x1, #1   <-+           4  mov  x29, sp
//     8  subs x0, x0, #1     |           8  ldr  x0, [x0]
//    12  b.ne 4 ------------+           12  ldp  x29, x30, [sp], #16
//    16  mov  x0, x1                    16  ret
//    20  ret
//
// loop's lines 11..13 (add, subs, b.ne) run n times per call.  frame keeps
// its caller's return address on the stack (a trace through it needs its
// CFI or its shape: CFA = sp + 16 after the stp, x29 at CFA-16, x30 at
// CFA-8).
#define CROSSJIT_ARCH "arm64"
constexpr std::uint16_t kElfMachine = 183;  // EM_AARCH64

const std::uint32_t kLoop[] = {
    0xD2800001u,  // movz x1, #0
    0x91000421u,  // add  x1, x1, #1
    0xF1000400u,  // subs x0, x0, #1
    0x54FFFFC1u,  // b.ne .-8
    0xAA0103E0u,  // mov  x0, x1
    0xD65F03C0u,  // ret
};

const std::uint32_t kFrame[] = {
    0xA9BF7BFDu,  // stp x29, x30, [sp, #-16]!
    0x910003FDu,  // mov x29, sp
    0xF9400000u,  // ldr x0, [x0]
    0xA8C17BFDu,  // ldp x29, x30, [sp], #16
    0xD65F03C0u,  // ret
};

const VgJitLine kLoopLines[] = {{0, 10, nullptr},  {4, 11, nullptr},  {8, 12, nullptr},
                                {12, 13, nullptr}, {16, 14, nullptr}, {20, 15, nullptr}};
const VgJitLine kFrameLines[] = {{0, 20, nullptr}, {8, 31, nullptr}, {12, 23, nullptr}};
const InlinedRange kLoopInlined = {4, 8};   // add, subs
const InlinedRange kFrameInlined = {8, 4};  // the load

// frame's CFI: code alignment 4, data alignment -8, return address
// register x30, CFA = sp at entry, sp + 16 after the stp (x29 at CFA-16,
// x30 at CFA-8), sp again after the ldp.
const std::vector<std::uint8_t> kCie = {
    4,              // code alignment
    0x78,           // data alignment -8
    30,             // return address register: x30
    1,    0x1B,     // augmentation data: pcrel|sdata4
    0x0C, 31,   0,  // DW_CFA_def_cfa sp, 0
};
const std::vector<std::uint8_t> kFde = {
    0x41,                 // DW_CFA_advance_loc 1 (after the stp)
    0x0E,      16,        // DW_CFA_def_cfa_offset 16
    0x9D,      2,         // DW_CFA_offset x29, CFA-16
    0x9E,      1,         // DW_CFA_offset x30, CFA-8
    0x43,                 // DW_CFA_advance_loc 3 (after the ldp)
    0x0E,      0,         // DW_CFA_def_cfa_offset 0
    0xC0 | 29, 0xC0 | 30  // DW_CFA_restore x29, x30
};

// stp x29, x30, [sp, #-16]!; mov x29, sp: 8 bytes of prologue.
constexpr FrameShape kFramePointerShape = {8, 0, 0};
// After the stp (4 bytes): the return address at sp + 8, the caller's x29
// at sp.
constexpr FrameShape kFixedFrameShape = {4, 8, 0};

#else
#error "crossjit.cpp emits IA-32 (__i386__) or A64 (__aarch64__) code only"
#endif

/// A machine word: loop's argument and result, and what frame reads (so
/// Memcheck reports "Invalid read of size 4" on x86, of size 8 on arm64).
using Word = std::uintptr_t;

/// Whether the files also name loop 4 GiB up (x86_high_loop): on a 32-bit
/// machine that address is beyond the address space.
constexpr bool kNameHighLoop = sizeof(void*) == 4;
constexpr std::uint64_t kHigh = std::uint64_t{1} << 32;

[[noreturn]] void die(const char* what) {
    std::perror(what);
    std::exit(2);
}

struct Code {
    std::uint8_t* loop = nullptr;
    std::uint8_t* frame = nullptr;
};

/// Writes both functions into fresh memory (loop at its start, frame 64
/// bytes on) and makes it executable, flushing the instruction cache
/// (a no-op on x86).
Code emit() {
    void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) die("mmap code");
    Code c;
    c.loop = static_cast<std::uint8_t*>(p);
    c.frame = c.loop + 64;
    std::memcpy(c.loop, kLoop, sizeof kLoop);
    std::memcpy(c.frame, kFrame, sizeof kFrame);
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) die("mprotect");
    __builtin___clear_cache(static_cast<char*>(p), static_cast<char*>(p) + 4096);
    return c;
}

void put32(std::vector<std::uint8_t>& v, std::uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}

/// Pads `insns` with DW_CFA_nop so that a record of `fixed` bytes plus
/// them is a multiple of the address size long (4 bytes on x86, 8 on
/// arm64).
void pad(std::vector<std::uint8_t>& insns, std::size_t fixed) {
    while ((fixed + insns.size()) % sizeof(void*) != 0) insns.push_back(0);
}

/// The .eh_frame of `frame` as it is read at address `at`: one CIE "zR"
/// with pcrel|sdata4 pointers (kCie: its fields from the code alignment
/// on), one FDE (kFde: its instructions), a zero terminator.
std::vector<std::uint8_t> frame_eh_frame(const std::uint8_t* frame, std::uintptr_t at) {
    std::vector<std::uint8_t> v;
    std::vector<std::uint8_t> cie = {
        0,   0,   0, 0,  // CIE id
        1,               // version
        'z', 'R', 0,     // augmentation
    };
    cie.insert(cie.end(), kCie.begin(), kCie.end());
    pad(cie, 4);
    put32(v, static_cast<std::uint32_t>(cie.size()));
    v.insert(v.end(), cie.begin(), cie.end());
    std::vector<std::uint8_t> insns = kFde;
    pad(insns, 4 + 4 + 4 + 4 + 1);
    const std::size_t fde_at = v.size();
    put32(v, static_cast<std::uint32_t>(4 + 4 + 4 + 1 + insns.size()));
    put32(v, static_cast<std::uint32_t>(fde_at + 4));  // back to the CIE
    const std::uintptr_t field = at + v.size();
    put32(v, static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(frame) - field));
    put32(v, sizeof kFrame);
    v.push_back(0);  // augmentation data length
    v.insert(v.end(), insns.begin(), insns.end());
    put32(v, 0);  // terminator
    return v;
}

using LoopFn = Word (*)(Word);
using FrameFn = Word (*)(const Word*);

/// Calls loop CALLS times with n, then frame once on a freed block.
void run(const Code& c, Word n, long calls) {
    Word r = 0;
    for (long i = 0; i < calls; ++i) r = reinterpret_cast<LoopFn>(c.loop)(n);
    std::printf("loop(%llu) = %llu\n", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(r));
    auto* block = static_cast<Word*>(std::malloc(64));
    if (!block) die("malloc");
    block[0] = 7;
    // The address goes through a volatile: the read of the freed block is
    // what Memcheck reports (its value is not used).
    Word* volatile freed = block;
    std::free(block);
    volatile Word v = reinterpret_cast<FrameFn>(c.frame)(freed);
    (void)v;
}

void print_addresses(const Code& c) {
    std::printf("loop at %p\nframe at %p\n", static_cast<void*>(c.loop),
                static_cast<void*>(c.frame));
    std::fflush(stdout);
}

/// How frame's unwinding is described to VALGRIND_JIT_REGISTER_CODE.
enum class Unwind { none, eh_frame, frame_pointer, fixed_frame };

/// A descriptor of the `size` bytes at `start` named `name` in ARCH_api.jit,
/// with its line table and one inlined call (`inl`).
template <std::size_t N>
VgJitCode describe(const std::uint8_t* start, std::size_t size, const char* name,
                   const VgJitLine (&lines)[N], const VgJitInline& inl) {
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = start;
    d.size = size;
    d.name = name;
    d.file = CROSSJIT_ARCH "_api.jit";
    d.lines = lines;
    d.n_lines = N;
    d.inlines = &inl;
    d.n_inlines = 1;
    return d;
}

/// Registers loop, then frame with unwinding described as `unwind`; a
/// refusal is printed with its status.
void register_api(const Code& c, Unwind unwind) {
    static const VgJitInline loop_inl = {
        kLoopInlined.offset, kLoopInlined.size, CROSSJIT_ARCH "_inlined_step", nullptr, 11,
        VG_JIT_INLINE_TOP};
    VgJitCode d = describe(c.loop, sizeof kLoop, CROSSJIT_ARCH "_api_loop", kLoopLines, loop_inl);
    if (VALGRIND_JIT_REGISTER_CODE(&d) == 0)
        std::printf("register loop: status %d\n", static_cast<int>(VALGRIND_JIT_LAST_ERROR()));

    static const VgJitInline frame_inl = {
        kFrameInlined.offset, kFrameInlined.size, CROSSJIT_ARCH "_inlined_load", nullptr, 22,
        VG_JIT_INLINE_TOP};
    VgJitCode f =
        describe(c.frame, sizeof kFrame, CROSSJIT_ARCH "_api_frame", kFrameLines, frame_inl);
    std::vector<std::uint8_t> eh;
    if (unwind == Unwind::fixed_frame) {
        f.unwind_kind = VG_JIT_UNWIND_FIXED_FRAME;
        f.prologue_size = kFixedFrameShape.prologue_size;
        f.ra_offset = kFixedFrameShape.ra_offset;
        f.fp_offset = kFixedFrameShape.fp_offset;
    } else if (unwind == Unwind::frame_pointer) {
        f.unwind_kind = VG_JIT_UNWIND_FRAME_POINTER;
        f.prologue_size = kFramePointerShape.prologue_size;
    } else if (unwind == Unwind::eh_frame) {
        // PC-relative pointers count from the bytes' own address.
        eh.resize(frame_eh_frame(c.frame, 0).size());
        const auto bytes = frame_eh_frame(c.frame, reinterpret_cast<std::uintptr_t>(eh.data()));
        std::memcpy(eh.data(), bytes.data(), bytes.size());
        f.unwind_kind = VG_JIT_UNWIND_EH_FRAME;
        f.eh_frame = eh.data();
        f.eh_frame_size = eh.size();
    }
    if (VALGRIND_JIT_REGISTER_CODE(&f) == 0)
        std::printf("register frame: status %d\n", static_cast<int>(VALGRIND_JIT_LAST_ERROR()));
}

/// Writes /tmp/perf-<pid>.map naming both functions (and, on a 32-bit
/// machine, loop 4 GiB up).
void write_perfmap(const Code& c) {
    const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) die("fopen perf map");
    const auto loop = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(c.loop));
    const auto frame = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(c.frame));
    std::fprintf(
        f, "%llx %zx " CROSSJIT_ARCH "_perfmap_loop\n%llx %zx " CROSSJIT_ARCH "_perfmap_frame\n",
        loop, sizeof kLoop, frame, sizeof kFrame);
    if (kNameHighLoop)
        std::fprintf(f, "%llx %zx " CROSSJIT_ARCH "_high_loop\n", loop + kHigh, sizeof kLoop);
    if (std::fclose(f) != 0) die("fclose perf map");
}

std::uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + ts.tv_nsec;
}

/// ./jit-<pid>.dump, mapped PROT_READ|PROT_EXEC while open as perf's
/// producers do (which tells the core to follow it).
class Jitdump {
public:
    Jitdump() {
        path_ = "jit-" + std::to_string(getpid()) + ".dump";
        fd_ = open(path_.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0666);
        if (fd_ < 0) die("open jitdump");
        jitdump_test::JitdumpBuilder b;
        b.header(1, static_cast<std::uint32_t>(getpid()), now_ns(), 0, 0, std::nullopt,
                 JITDUMP_MAGIC, kElfMachine);
        put(b);
        marker_ = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd_, 0);
        if (marker_ == MAP_FAILED) die("mmap jitdump");
    }
    ~Jitdump() {
        munmap(marker_, 4096);
        close(fd_);
    }
    void put(const jitdump_test::JitdumpBuilder& b) {
        if (write(fd_, b.bytes.data(), b.bytes.size()) != static_cast<ssize_t>(b.bytes.size()))
            die("write jitdump");
    }

private:
    std::string path_;
    int fd_ = -1;
    void* marker_ = nullptr;
};

/// loop's lines at `base` in `file`, `delta` added to each line number.
std::vector<jitdump_test::DebugEntrySpec> loop_debug_entries(std::uint64_t base, const char* file,
                                                             std::uint32_t delta) {
    std::vector<jitdump_test::DebugEntrySpec> lines;
    for (const VgJitLine& l : kLoopLines)
        lines.push_back({base + l.offset, static_cast<std::uint32_t>(l.line) + delta, 0, file});
    return lines;
}

void write_jitdump(Jitdump& jd, const Code& c) {
    const auto pid = static_cast<std::uint32_t>(getpid());
    const std::uint64_t loop = reinterpret_cast<std::uintptr_t>(c.loop);
    const std::uint64_t frame = reinterpret_cast<std::uintptr_t>(c.frame);
    const std::vector<unsigned char> loop_bytes(c.loop, c.loop + sizeof kLoop);
    jitdump_test::JitdumpBuilder b;
    b.debug_info(loop, loop_debug_entries(loop, CROSSJIT_ARCH "_jitdump.jit", 0), std::nullopt,
                 now_ns());
    b.code_load(loop, sizeof kLoop, CROSSJIT_ARCH "_jitdump_loop", 1, now_ns(), pid, pid,
                loop_bytes);
    // perf's genelf puts the .eh_frame after the code, at the next multiple
    // of 8 bytes: its PC-relative pointers count from there.
    const std::size_t eh_at = (sizeof kFrame + 7) & ~std::size_t{7};
    b.unwinding_eh_frame(frame_eh_frame(c.frame, frame + eh_at), 8, now_ns());
    b.code_load(frame, sizeof kFrame, CROSSJIT_ARCH "_jitdump_frame", 2, now_ns(), pid, pid,
                std::vector<unsigned char>(c.frame, c.frame + sizeof kFrame));
    if (kNameHighLoop) {
        // Beyond 4 GiB: lines there and a CODE_LOAD.
        b.debug_info(loop + kHigh, loop_debug_entries(loop + kHigh, CROSSJIT_ARCH "_high.jit", 100),
                     std::nullopt, now_ns());
        b.code_load(loop + kHigh, sizeof kLoop, CROSSJIT_ARCH "_high_loop", 3, now_ns(), pid, pid,
                    loop_bytes);
    }
    jd.put(b);
}

}  // namespace

int main(int argc, char** argv) {
    const char* self = CROSSJIT_ARCH "jit";
    if (argc != 4) {
        std::fprintf(
            stderr,
            "usage: %s api|api-nocfi|api-shape|api-fixed|perfmap|late|jitdump|jitdump-late "
            "N CALLS\n",
            self);
        return 2;
    }
    const std::string mode = argv[1];
    const unsigned long long n = std::strtoull(argv[2], nullptr, 10);
    const long calls = std::strtol(argv[3], nullptr, 10);
    if (n == 0 || calls < 1) {
        std::fprintf(stderr, "%s: N and CALLS must be at least 1\n", self);
        return 2;
    }
    const Code c = emit();
    print_addresses(c);
    const auto word = static_cast<Word>(n);
    if (mode == "api" || mode == "api-nocfi" || mode == "api-shape" || mode == "api-fixed") {
        register_api(c, mode == "api"         ? Unwind::eh_frame
                        : mode == "api-shape" ? Unwind::frame_pointer
                        : mode == "api-fixed" ? Unwind::fixed_frame
                                              : Unwind::none);
        run(c, word, calls);
    } else if (mode == "perfmap") {
        write_perfmap(c);
        run(c, word, calls);
    } else if (mode == "late") {
        run(c, word, calls);
        write_perfmap(c);
    } else if (mode == "jitdump") {
        Jitdump jd;
        write_jitdump(jd, c);
        run(c, word, calls);
    } else if (mode == "jitdump-late") {
        Jitdump jd;
        run(c, word, calls);
        write_jitdump(jd, c);
    } else {
        std::fprintf(stderr, "%s: unknown mode %s\n", self, mode.c_str());
        return 2;
    }
    return 0;
}
