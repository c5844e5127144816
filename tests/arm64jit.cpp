// arm64jit.cpp - an arm64 (AArch64) JIT for the tests of `make check-arm64`:
// it writes A64 machine code into anonymous executable memory and names it
// through each channel the patched core reads, then runs it.  Cross-built
// with aarch64-linux-gnu-g++ and run under QEMU user mode by
// tests/integration_arm64.cpp.
//
// Two functions are emitted (A64 words, little-endian):
//
//   loop (x0 = n >= 1; returns n):     frame (x0 = a pointer; returns *x0):
//     0  movz x1, #0                     0  stp  x29, x30, [sp, #-16]!
//     4  add  x1, x1, #1   <-+           4  mov  x29, sp
//     8  subs x0, x0, #1     |           8  ldr  x0, [x0]
//    12  b.ne 4 ------------+           12  ldp  x29, x30, [sp], #16
//    16  mov  x0, x1                    16  ret
//    20  ret
//
// so a call of loop(n) executes 3n + 3 instructions, and frame keeps its
// caller's return address on the stack (a trace through it needs its CFI:
// CFA = sp + 16 after the stp, x29 at CFA-16, x30 at CFA-8).
//
// Usage: arm64jit MODE N CALLS
//   api       register loop through VALGRIND_JIT_REGISTER_CODE with a line
//             table (arm64_api.jit lines 10..15, one per instruction) and
//             an inline table (offsets 4..12: arm64_inlined_step, called
//             at line 11), call it CALLS times with n = N; then register
//             frame with its .eh_frame and an inline table (offset 8:
//             arm64_inlined_load, called at line 22) and call it on a freed
//             block (Memcheck reports the read)
//   api-nocfi the same, frame registered without CFI
//   api-shape the same, frame registered with the frame shape
//             VG_JIT_UNWIND_FRAME_POINTER (prologue_size 8)
//   api-fixed the same, with VG_JIT_UNWIND_FIXED_FRAME (prologue_size 4,
//             ra_offset 8, fp_offset 0)
//   perfmap   name loop and frame in /tmp/perf-<pid>.map, then call them
//   late      call them first, then write /tmp/perf-<pid>.map (as HotSpot's
//             -XX:+DumpPerfMapAtExit does)
//   jitdump   name them in ./jit-<pid>.dump (CODE_DEBUG_INFO for loop with
//             the lines of api; CODE_UNWINDING_INFO for frame), then call
//   jitdump-late  call them first, then write the jitdump records
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

[[noreturn]] void die(const char* what) {
    std::perror(what);
    std::exit(2);
}

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

struct Code {
    std::uint8_t* loop = nullptr;
    std::uint8_t* frame = nullptr;
};

/// Writes both functions into fresh memory (loop at its start, frame 64
/// bytes on) and makes it executable, flushing the instruction cache.
Code emit() {
    void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) die("mmap code");
    Code c;
    c.loop = static_cast<std::uint8_t*>(p);
    c.frame = c.loop + 64;
    std::memcpy(c.loop, kLoop, sizeof kLoop);
    std::memcpy(c.frame, kFrame, sizeof kFrame);
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) die("mprotect");
    __builtin___clear_cache(reinterpret_cast<char*>(p), reinterpret_cast<char*>(p) + 4096);
    return c;
}

void put32(std::vector<std::uint8_t>& v, std::uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}

/// The .eh_frame of `frame` (one CIE "zR" with pcrel|sdata4 pointers, one
/// FDE, a zero terminator) as it is read at address `at`: return address
/// register x30, CFA = sp at entry, sp + 16 after the stp (x29 at CFA-16,
/// x30 at CFA-8), sp again after the ldp.
std::vector<std::uint8_t> frame_eh_frame(const std::uint8_t* frame, std::uintptr_t at) {
    std::vector<std::uint8_t> v;
    const std::vector<std::uint8_t> cie = {
        0,    0,    0, 0,  // CIE id
        1,                 // version
        'z',  'R',  0,     // augmentation
        4,                 // code alignment
        0x78,              // data alignment -8
        30,                // return address register: x30
        1,    0x1B,        // augmentation data: pcrel|sdata4
        0x0C, 31,   0,     // DW_CFA_def_cfa sp, 0
        0,    0,    0, 0   // DW_CFA_nop: 4 + 20 bytes
    };
    put32(v, static_cast<std::uint32_t>(cie.size()));
    v.insert(v.end(), cie.begin(), cie.end());
    const std::vector<std::uint8_t> insns = {
        0x41,                    // DW_CFA_advance_loc 1 (after the stp)
        0x0E,      16,           // DW_CFA_def_cfa_offset 16
        0x9D,      2,            // DW_CFA_offset x29, CFA-16
        0x9E,      1,            // DW_CFA_offset x30, CFA-8
        0x43,                    // DW_CFA_advance_loc 3 (after the ldp)
        0x0E,      0,            // DW_CFA_def_cfa_offset 0
        0xC0 | 29, 0xC0 | 30,    // DW_CFA_restore x29, x30
        0,         0,         0  // DW_CFA_nop: 4 + 28 bytes
    };
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

using LoopFn = std::uint64_t (*)(std::uint64_t);
using FrameFn = std::uint64_t (*)(const std::uint64_t*);

/// Calls loop CALLS times with n, then frame once on a freed block.
void run(const Code& c, std::uint64_t n, long calls) {
    std::uint64_t r = 0;
    for (long i = 0; i < calls; ++i) r = reinterpret_cast<LoopFn>(c.loop)(n);
    std::printf("loop(%llu) = %llu\n", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(r));
    auto* block = static_cast<std::uint64_t*>(std::malloc(64));
    if (!block) die("malloc");
    block[0] = 7;
    // The address goes through a volatile: the read of the freed block is
    // what Memcheck reports (its value is not used).
    std::uint64_t* volatile freed = block;
    std::free(block);
    volatile std::uint64_t v = reinterpret_cast<FrameFn>(c.frame)(freed);
    (void)v;
}

void print_addresses(const Code& c) {
    std::printf("loop at %p\nframe at %p\n", static_cast<void*>(c.loop),
                static_cast<void*>(c.frame));
    std::fflush(stdout);
}

const VgJitLine kLoopLines[] = {{0, 10, nullptr},  {4, 11, nullptr},  {8, 12, nullptr},
                                {12, 13, nullptr}, {16, 14, nullptr}, {20, 15, nullptr}};
const VgJitLine kFrameLines[] = {{0, 20, nullptr}, {8, 31, nullptr}, {12, 23, nullptr}};

/// How frame's unwinding is described to VALGRIND_JIT_REGISTER_CODE.
enum class Unwind { none, eh_frame, frame_pointer, fixed_frame };

void register_api(const Code& c, Unwind unwind) {
    static const VgJitInline loop_inl[] = {
        {4, 8, "arm64_inlined_step", nullptr, 11, VG_JIT_INLINE_TOP}};
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = c.loop;
    d.size = sizeof kLoop;
    d.name = "arm64_api_loop";
    d.file = "arm64_api.jit";
    d.lines = kLoopLines;
    d.n_lines = sizeof kLoopLines / sizeof kLoopLines[0];
    d.inlines = loop_inl;
    d.n_inlines = 1;
    if (VALGRIND_JIT_REGISTER_CODE(&d) == 0)
        std::printf("register loop: status %d\n", static_cast<int>(VALGRIND_JIT_LAST_ERROR()));

    static const VgJitInline frame_inl[] = {
        {8, 4, "arm64_inlined_load", nullptr, 22, VG_JIT_INLINE_TOP}};
    VgJitCode f = VG_JIT_CODE_INITIALIZER;
    f.start = c.frame;
    f.size = sizeof kFrame;
    f.name = "arm64_api_frame";
    f.file = "arm64_api.jit";
    f.lines = kFrameLines;
    f.n_lines = sizeof kFrameLines / sizeof kFrameLines[0];
    f.inlines = frame_inl;
    f.n_inlines = 1;
    std::vector<std::uint8_t> eh;
    if (unwind == Unwind::fixed_frame) {
        // After the stp (4 bytes): the return address at sp + 8, the
        // caller's x29 at sp.
        f.unwind_kind = VG_JIT_UNWIND_FIXED_FRAME;
        f.prologue_size = 4;
        f.ra_offset = 8;
        f.fp_offset = 0;
    } else if (unwind == Unwind::frame_pointer) {
        // stp x29, x30, [sp, #-16]!; mov x29, sp: 8 bytes of prologue.
        f.unwind_kind = VG_JIT_UNWIND_FRAME_POINTER;
        f.prologue_size = 8;
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

/// Writes /tmp/perf-<pid>.map naming both functions.
void write_perfmap(const Code& c) {
    const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) die("fopen perf map");
    std::fprintf(f, "%lx %zx arm64_perfmap_loop\n%lx %zx arm64_perfmap_frame\n",
                 static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(c.loop)), sizeof kLoop,
                 static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(c.frame)),
                 sizeof kFrame);
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
        b.header(1, static_cast<std::uint32_t>(getpid()), now_ns(), 0, 0, std::nullopt, 0x4A695444u,
                 183 /* EM_AARCH64 */);
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

void write_jitdump(Jitdump& jd, const Code& c) {
    const auto pid = static_cast<std::uint32_t>(getpid());
    const auto loop = reinterpret_cast<std::uintptr_t>(c.loop);
    const auto frame = reinterpret_cast<std::uintptr_t>(c.frame);
    jitdump_test::JitdumpBuilder b;
    std::vector<jitdump_test::DebugEntrySpec> lines;
    for (const VgJitLine& l : kLoopLines)
        lines.push_back(
            {loop + l.offset, static_cast<std::uint32_t>(l.line), 0, "arm64_jitdump.jit"});
    b.debug_info(loop, lines, std::nullopt, now_ns());
    b.code_load(loop, sizeof kLoop, "arm64_jitdump_loop", 1, now_ns(), pid, pid,
                std::vector<unsigned char>(c.loop, c.loop + sizeof kLoop));
    // perf's genelf puts the .eh_frame after the code, at the next multiple
    // of 8 bytes: its PC-relative pointers count from there.
    b.unwinding_eh_frame(frame_eh_frame(c.frame, frame + ((sizeof kFrame + 7) & ~7ul)), 8,
                         now_ns());
    b.code_load(frame, sizeof kFrame, "arm64_jitdump_frame", 2, now_ns(), pid, pid,
                std::vector<unsigned char>(c.frame, c.frame + sizeof kFrame));
    jd.put(b);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(
            stderr,
            "usage: arm64jit api|api-nocfi|api-shape|api-fixed|perfmap|late|jitdump|jitdump-late N "
            "CALLS\n");
        return 2;
    }
    const std::string mode = argv[1];
    const std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
    const long calls = std::strtol(argv[3], nullptr, 10);
    if (n == 0 || calls < 1) {
        std::fprintf(stderr, "arm64jit: N and CALLS must be at least 1\n");
        return 2;
    }
    const Code c = emit();
    print_addresses(c);
    if (mode == "api" || mode == "api-nocfi" || mode == "api-shape" || mode == "api-fixed") {
        register_api(c, mode == "api"         ? Unwind::eh_frame
                        : mode == "api-shape" ? Unwind::frame_pointer
                        : mode == "api-fixed" ? Unwind::fixed_frame
                                              : Unwind::none);
        run(c, n, calls);
    } else if (mode == "perfmap") {
        write_perfmap(c);
        run(c, n, calls);
    } else if (mode == "late") {
        run(c, n, calls);
        write_perfmap(c);
    } else if (mode == "jitdump") {
        Jitdump jd;
        write_jitdump(jd, c);
        run(c, n, calls);
    } else if (mode == "jitdump-late") {
        Jitdump jd;
        run(c, n, calls);
        write_jitdump(jd, c);
    } else {
        std::fprintf(stderr, "arm64jit: unknown mode %s\n", mode.c_str());
        return 2;
    }
    return 0;
}
