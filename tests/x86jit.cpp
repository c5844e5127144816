// x86jit.cpp - an x86 (32-bit) JIT for the tests of `make check-x86`: it
// writes IA-32 machine code into anonymous executable memory and names it
// through each channel the patched core reads, then runs it.  Built with
// g++ -m32 and run under the patched Valgrind built for x86-linux by
// tests/integration_x86.cpp.
//
// Two functions are emitted (cdecl: the argument at 4(%esp), the result
// in %eax):
//
//   loop (n >= 1; returns n):            frame (a pointer; returns *it):
//     0  mov  0x4(%esp),%ecx               0  push %ebp
//     4  xor  %eax,%eax                    1  mov  0x8(%esp),%eax
//     6  inc  %eax        <-+              5  mov  (%eax),%eax
//     7  dec  %ecx          |              7  mov  %esp,%ebp
//     8  jne  6 ------------+              9  pop  %ebp
//    10  ret                              10  ret
//
// so a call of loop(n) executes 3n + 3 instructions, and frame reads
// through its argument before it sets its frame pointer: %ebp still holds
// the caller's value (no frame pointer at -O1), so following %ebp misses
// the caller, and a trace from the read needs frame's CFI or its shape
// (CFA = %esp + 8 after the push, %ebp at CFA-8, the return address at
// CFA-4).
//
// Usage: x86jit MODE N CALLS
//   api       register loop through VALGRIND_JIT_REGISTER_CODE with a line
//             table (x86_api.jit lines 10..15, one per instruction) and
//             an inline table (offsets 6..10: x86_inlined_step, called at
//             line 11), call it CALLS times with n = N; then register
//             frame with its .eh_frame and an inline table (offset 5:
//             x86_inlined_load, called at line 22) and call it on a freed
//             block (Memcheck reports the read)
//   api-nocfi the same, frame registered without CFI
//   api-shape the same, frame registered with the frame shape
//             VG_JIT_UNWIND_FRAME_POINTER (prologue_size 9: the push, the
//             load and the mov)
//   api-fixed the same, with VG_JIT_UNWIND_FIXED_FRAME (prologue_size 1,
//             ra_offset 4, fp_offset 0)
//   perfmap   name loop and frame in /tmp/perf-<pid>.map, then call them
//   late      call them first, then write /tmp/perf-<pid>.map
//   jitdump   name them in ./jit-<pid>.dump (CODE_DEBUG_INFO for loop with
//             the lines of api; CODE_UNWINDING_INFO for frame), then call
//   jitdump-late  call them first, then write the jitdump records
// The perf maps and jitdumps then name loop once more, as x86_high_loop,
// 4 GiB above it (a 64-bit address, as the files can hold): a reader that
// truncated it to 32 bits would rename loop.
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

/// 4 GiB: the distance of x86_high_loop above loop.
const std::uint64_t kHigh = std::uint64_t{1} << 32;

struct Code {
    std::uint8_t* loop = nullptr;
    std::uint8_t* frame = nullptr;
};

/// Writes both functions into fresh memory (loop at its start, frame 64
/// bytes on) and makes it executable.
Code emit() {
    void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) die("mmap code");
    Code c;
    c.loop = static_cast<std::uint8_t*>(p);
    c.frame = c.loop + 64;
    std::memcpy(c.loop, kLoop, sizeof kLoop);
    std::memcpy(c.frame, kFrame, sizeof kFrame);
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) die("mprotect");
    return c;
}

void put32(std::vector<std::uint8_t>& v, std::uint32_t x) {
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}

/// Pads `insns` with DW_CFA_nop so that a record of `fixed` bytes plus
/// them is a multiple of 4 bytes long.
void pad(std::vector<std::uint8_t>& insns, std::size_t fixed) {
    while ((fixed + insns.size()) % 4 != 0) insns.push_back(0);
}

/// The .eh_frame of `frame` (one CIE "zR" with pcrel|sdata4 pointers, one
/// FDE, a zero terminator) as it is read at address `at`: return address
/// register 8 (%eip) at CFA-4, CFA = %esp + 4 at entry, %esp + 8 after
/// the push (%ebp at CFA-8), %esp + 4 after the pop.
std::vector<std::uint8_t> frame_eh_frame(const std::uint8_t* frame, std::uintptr_t at) {
    std::vector<std::uint8_t> v;
    std::vector<std::uint8_t> cie = {
        0,    0,    0, 0,  // CIE id
        1,                 // version
        'z',  'R',  0,     // augmentation
        1,                 // code alignment
        0x7C,              // data alignment -4
        8,                 // return address register: %eip
        1,    0x1B,        // augmentation data: pcrel|sdata4
        0x0C, 4,    4,     // DW_CFA_def_cfa %esp, 4
        0x88, 1,           // DW_CFA_offset %eip, CFA-4
    };
    pad(cie, 4);
    put32(v, static_cast<std::uint32_t>(cie.size()));
    v.insert(v.end(), cie.begin(), cie.end());
    std::vector<std::uint8_t> insns = {
        0x41,         // DW_CFA_advance_loc 1 (after the push)
        0x0E,     8,  // DW_CFA_def_cfa_offset 8
        0x85,     2,  // DW_CFA_offset %ebp, CFA-8
        0x49,         // DW_CFA_advance_loc 9 (after the pop)
        0x0E,     4,  // DW_CFA_def_cfa_offset 4
        0xC0 | 5,     // DW_CFA_restore %ebp
    };
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

using LoopFn = std::uint32_t (*)(std::uint32_t);
using FrameFn = std::uint32_t (*)(const std::uint32_t*);

/// Calls loop CALLS times with n, then frame once on a freed block.
void run(const Code& c, std::uint32_t n, long calls) {
    std::uint32_t r = 0;
    for (long i = 0; i < calls; ++i) r = reinterpret_cast<LoopFn>(c.loop)(n);
    std::printf("loop(%u) = %u\n", static_cast<unsigned>(n), static_cast<unsigned>(r));
    auto* block = static_cast<std::uint32_t*>(std::malloc(64));
    if (!block) die("malloc");
    block[0] = 7;
    // The address goes through a volatile: the read of the freed block is
    // what Memcheck reports (its value is not used).
    std::uint32_t* volatile freed = block;
    std::free(block);
    volatile std::uint32_t v = reinterpret_cast<FrameFn>(c.frame)(freed);
    (void)v;
}

void print_addresses(const Code& c) {
    std::printf("loop at %p\nframe at %p\n", static_cast<void*>(c.loop),
                static_cast<void*>(c.frame));
    std::fflush(stdout);
}

const VgJitLine kLoopLines[] = {{0, 10, nullptr}, {4, 11, nullptr}, {6, 12, nullptr},
                                {7, 13, nullptr}, {8, 14, nullptr}, {10, 15, nullptr}};
const VgJitLine kFrameLines[] = {{0, 20, nullptr}, {5, 31, nullptr}, {7, 23, nullptr}};

/// How frame's unwinding is described to VALGRIND_JIT_REGISTER_CODE.
enum class Unwind { none, eh_frame, frame_pointer, fixed_frame };

void register_api(const Code& c, Unwind unwind) {
    static const VgJitInline loop_inl[] = {
        {6, 4, "x86_inlined_step", nullptr, 11, VG_JIT_INLINE_TOP}};
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = c.loop;
    d.size = sizeof kLoop;
    d.name = "x86_api_loop";
    d.file = "x86_api.jit";
    d.lines = kLoopLines;
    d.n_lines = sizeof kLoopLines / sizeof kLoopLines[0];
    d.inlines = loop_inl;
    d.n_inlines = 1;
    if (VALGRIND_JIT_REGISTER_CODE(&d) == 0)
        std::printf("register loop: status %d\n", static_cast<int>(VALGRIND_JIT_LAST_ERROR()));

    static const VgJitInline frame_inl[] = {
        {5, 2, "x86_inlined_load", nullptr, 22, VG_JIT_INLINE_TOP}};
    VgJitCode f = VG_JIT_CODE_INITIALIZER;
    f.start = c.frame;
    f.size = sizeof kFrame;
    f.name = "x86_api_frame";
    f.file = "x86_api.jit";
    f.lines = kFrameLines;
    f.n_lines = sizeof kFrameLines / sizeof kFrameLines[0];
    f.inlines = frame_inl;
    f.n_inlines = 1;
    std::vector<std::uint8_t> eh;
    if (unwind == Unwind::fixed_frame) {
        // After the push (1 byte): the return address at %esp + 4, the
        // caller's %ebp at %esp.
        f.unwind_kind = VG_JIT_UNWIND_FIXED_FRAME;
        f.prologue_size = 1;
        f.ra_offset = 4;
        f.fp_offset = 0;
    } else if (unwind == Unwind::frame_pointer) {
        // push %ebp, then the load, then mov %esp,%ebp: 9 bytes of
        // prologue.
        f.unwind_kind = VG_JIT_UNWIND_FRAME_POINTER;
        f.prologue_size = 9;
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

/// Writes /tmp/perf-<pid>.map naming both functions, then loop 4 GiB up.
void write_perfmap(const Code& c) {
    const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) die("fopen perf map");
    const auto loop = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(c.loop));
    const auto frame = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(c.frame));
    std::fprintf(f,
                 "%llx %zx x86_perfmap_loop\n%llx %zx x86_perfmap_frame\n%llx %zx x86_high_loop\n",
                 loop, sizeof kLoop, frame, sizeof kFrame, loop + kHigh, sizeof kLoop);
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
                 3 /* EM_386 */);
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
    const std::uint64_t loop = reinterpret_cast<std::uintptr_t>(c.loop);
    const std::uint64_t frame = reinterpret_cast<std::uintptr_t>(c.frame);
    jitdump_test::JitdumpBuilder b;
    std::vector<jitdump_test::DebugEntrySpec> lines;
    for (const VgJitLine& l : kLoopLines)
        lines.push_back(
            {loop + l.offset, static_cast<std::uint32_t>(l.line), 0, "x86_jitdump.jit"});
    b.debug_info(loop, lines, std::nullopt, now_ns());
    b.code_load(loop, sizeof kLoop, "x86_jitdump_loop", 1, now_ns(), pid, pid,
                std::vector<unsigned char>(c.loop, c.loop + sizeof kLoop));
    // perf's genelf puts the .eh_frame after the code, at the next multiple
    // of 8 bytes: its PC-relative pointers count from there.
    b.unwinding_eh_frame(frame_eh_frame(c.frame, frame + ((sizeof kFrame + 7) & ~7u)), 8, now_ns());
    b.code_load(frame, sizeof kFrame, "x86_jitdump_frame", 2, now_ns(), pid, pid,
                std::vector<unsigned char>(c.frame, c.frame + sizeof kFrame));
    // Beyond 4 GiB: lines there and a CODE_LOAD.
    std::vector<jitdump_test::DebugEntrySpec> high_lines;
    for (const VgJitLine& l : kLoopLines)
        high_lines.push_back(
            {loop + kHigh + l.offset, static_cast<std::uint32_t>(l.line + 100), 0, "x86_high.jit"});
    b.debug_info(loop + kHigh, high_lines, std::nullopt, now_ns());
    b.code_load(loop + kHigh, sizeof kLoop, "x86_high_loop", 3, now_ns(), pid, pid,
                std::vector<unsigned char>(c.loop, c.loop + sizeof kLoop));
    jd.put(b);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(
            stderr,
            "usage: x86jit api|api-nocfi|api-shape|api-fixed|perfmap|late|jitdump|jitdump-late N "
            "CALLS\n");
        return 2;
    }
    const std::string mode = argv[1];
    const unsigned long n = std::strtoul(argv[2], nullptr, 10);
    const long calls = std::strtol(argv[3], nullptr, 10);
    if (n == 0 || calls < 1) {
        std::fprintf(stderr, "x86jit: N and CALLS must be at least 1\n");
        return 2;
    }
    const Code c = emit();
    print_addresses(c);
    const auto n32 = static_cast<std::uint32_t>(n);
    if (mode == "api" || mode == "api-nocfi" || mode == "api-shape" || mode == "api-fixed") {
        register_api(c, mode == "api"         ? Unwind::eh_frame
                        : mode == "api-shape" ? Unwind::frame_pointer
                        : mode == "api-fixed" ? Unwind::fixed_frame
                                              : Unwind::none);
        run(c, n32, calls);
    } else if (mode == "perfmap") {
        write_perfmap(c);
        run(c, n32, calls);
    } else if (mode == "late") {
        run(c, n32, calls);
        write_perfmap(c);
    } else if (mode == "jitdump") {
        Jitdump jd;
        write_jitdump(jd, c);
        run(c, n32, calls);
    } else if (mode == "jitdump-late") {
        Jitdump jd;
        run(c, n32, calls);
        write_jitdump(jd, c);
    } else {
        std::fprintf(stderr, "x86jit: unknown mode %s\n", mode.c_str());
        return 2;
    }
    return 0;
}
