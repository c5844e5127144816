// unwindjit: a JIT whose functions keep no frame pointer, for the tests of
// unwinding through jitted code.  It emits three x86-64 functions with
// xbyak (jit_outer -> jit_middle -> jit_inner, each saving rbp and using
// it as a scratch register, with 16 bytes of frame holding zeros), calls
// jit_outer from an ordinary function (enter_jit, called by main), and
// describes the functions' frames to Valgrind one of four ways:
//
// Usage: unwindjit HOW WHAT
//   HOW   cfi      VALGRIND_JIT_REGISTER_CODE with each function's .eh_frame
//         cfi-adjacent
//                  the same, the functions packed back to back (each
//                  one starts where the one before it ends) and
//                  registered middle, inner, outer: each range touches
//                  the one registered before it at one end
//         cfi-after-code
//                  the same, its PC-relative pointers counting from after
//                  the code (VgJitCode.eh_frame_addr)
//         shape    the same with VG_JIT_UNWIND_FIXED_FRAME (prologue of 5
//                  bytes, return address at rsp+24, rbp at rsp+16)
//         none     the same without unwind information
//         unregistered  registered with .eh_frame, unregistered, then
//                  registered again without unwind information
//         replaced registered with .eh_frame, then registered again over
//                  it without unwind information (no unregistration)
//         jitdump  no client request: a jitdump file jit-<pid>.dump in the
//                  working directory with a CODE_UNWINDING_INFO record
//                  before each CODE_LOAD (its .eh_frame placed after the
//                  code, 8-byte aligned, as perf's genelf lays it out)
//         jitdump-moved  the same, each function loaded (with its
//                  unwinding information) 2 KiB above where it runs, then
//                  a CODE_MOVE to where it runs, applied before the
//                  code runs
//   WHAT  leak     jit_inner calls malloc(40) and drops the block
//         memerr   jit_inner reads 4 bytes past a 40-byte malloc'd block
//         leaf     jit_inner is a frameless leaf, `mov rax, [rdi+40];
//                  ret`, and jit_middle a frameless `sub rsp, 8; call
//                  jit_inner; add rsp, 8; ret`: jit_inner's first
//                  instruction reads 8 bytes past a 40-byte block
//         leafrace the same leaf reads a word that a second thread wrote
//                  without synchronisation (a data race for Helgrind and
//                  DRD); leaf and leafrace with HOW cfi or jitdump
// Usage: unwindjit hostile
//   registers jit_inner with malformed unwind descriptions (one
//   "case NAME RET STATUS" line each on stderr), then a thousand random
//   corruptions of its correct .eh_frame ("fuzz N accepted N refused"),
//   then the correct CFI for all three functions, and runs the memerr
//   path.
//
// Registration results go to stderr as "status NAME RET STATUS" lines.

#include <valgrind/jit.h>
#include "eh_frame_builder.hpp"
#include "jitdump_builder.hpp"
#include "xbyak_emit.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

[[noreturn]] void die(const char* what) {
    std::perror(what);
    std::exit(2);
}

struct Fn {
    const char* name;
    std::uint8_t* code;
    testjit::FramelessShape shape;  // size only, for a leaf or its caller
    ehframe::FrameCfi cfi;
};

// The three functions, innermost first.
Fn fns[3];
std::uint8_t* page = nullptr;

// Each function in a slot of 256 bytes of its own; with `packed`, each
// starting at the byte after the end of the one before it.  With
// `frameless_leaf`, jit_inner and jit_middle are the leaf and its caller
// of emit_field_read_leaf and emit_frameless_caller.
void emit(testjit::FramelessBody leaf, bool packed = false, bool frameless_leaf = false) {
    page = static_cast<std::uint8_t*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (page == MAP_FAILED) die("mmap code");
    fns[0] = {"jit_inner", page, {}, {}};
    if (frameless_leaf) {
        fns[1] = {"jit_middle", page + 256, {}, {}};
        fns[0].shape.size = testjit::emit_field_read_leaf(fns[0].code, 256);
        const testjit::FramelessCallerShape c =
            testjit::emit_frameless_caller(fns[1].code, 256, fns[0].code);
        fns[1].shape.size = c.size;
        fns[1].cfi.set_cfa_offset(c.sub_end, 16);
        fns[1].cfi.set_cfa_offset(c.add_end, 8);
    } else {
        fns[0].shape = testjit::emit_frameless(fns[0].code, 256, leaf,
                                               reinterpret_cast<const void*>(&std::malloc));
        fns[1] = {"jit_middle", packed ? fns[0].code + fns[0].shape.size : page + 256, {}, {}};
        fns[1].shape =
            testjit::emit_frameless(fns[1].code, 256, testjit::FramelessBody::kCall, fns[0].code);
        fns[0].cfi = testjit::frameless_cfi(fns[0].shape);
        fns[1].cfi = testjit::frameless_cfi(fns[1].shape);
    }
    fns[2] = {"jit_outer", packed ? fns[1].code + fns[1].shape.size : page + 512, {}, {}};
    fns[2].shape =
        testjit::emit_frameless(fns[2].code, 256, testjit::FramelessBody::kCall, fns[1].code);
    fns[2].cfi = testjit::frameless_cfi(fns[2].shape);
}

void report(const char* what, unsigned long ret) {
    std::fprintf(stderr, "status %s %lu %d\n", what, ret,
                 static_cast<int>(VALGRIND_JIT_LAST_ERROR()));
}

// The .eh_frame of f, built for the buffer it is returned in.
std::vector<unsigned char> eh_frame_in_place(const Fn& f,
                                             const testjit::EhFrameFaults& faults = {}) {
    return f.cfi.eh_frame_in_place(reinterpret_cast<std::uintptr_t>(f.code), f.shape.size, faults);
}

VgJitCode descriptor(const Fn& f) {
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = f.code;
    d.size = f.shape.size;
    d.name = f.name;
    d.object = "unwindjit";
    return d;
}

void register_all(const std::string& how) {
    // Packed: each function's range touches the one registered before it,
    // once at its end (inner below middle), once at its start (outer above
    // middle).
    const bool adjacent = how == "cfi-adjacent";
    for (const int i : adjacent ? std::vector<int>{1, 0, 2} : std::vector<int>{0, 1, 2}) {
        const Fn& f = fns[i];
        VgJitCode d = descriptor(f);
        std::vector<unsigned char> eh;
        if (how == "cfi" || adjacent) {
            eh = eh_frame_in_place(f);
            d.unwind_kind = VG_JIT_UNWIND_EH_FRAME;
            d.eh_frame = eh.data();
            d.eh_frame_size = eh.size();
        } else if (how == "cfi-after-code") {
            // Built for an address of the JIT's choosing (after the code,
            // where jitdump producers put it), named by eh_frame_addr.
            const std::uintptr_t code = reinterpret_cast<std::uintptr_t>(f.code);
            const std::uintptr_t at = code + ((f.shape.size + 7) & ~std::size_t{7});
            eh = f.cfi.eh_frame(code, f.shape.size, at);
            d.unwind_kind = VG_JIT_UNWIND_EH_FRAME;
            d.eh_frame = eh.data();
            d.eh_frame_size = eh.size();
            d.eh_frame_addr = reinterpret_cast<const void*>(at);
        } else if (how == "shape") {
            d.unwind_kind = VG_JIT_UNWIND_FIXED_FRAME;
            d.prologue_size = f.shape.frame_end;
            d.ra_offset = 24;
            d.fp_offset = 16;
        }
        report(f.name, VALGRIND_JIT_REGISTER_CODE(&d));
    }
}

// jit-<pid>.dump: per function a CODE_UNWINDING_INFO (the .eh_frame, then
// its .eh_frame_hdr) and a CODE_LOAD.  The file is complete when it is
// mapped, so Valgrind reads it whole at its first look.
// With `moved`, each function is loaded at kMovedFrom bytes above its
// code (a copy of it is put there) and then moved to its code.
constexpr std::size_t kMovedFrom = 2048;

void write_jitdump(bool moved) {
    const std::uint32_t pid = static_cast<std::uint32_t>(getpid());
    jitdump_test::JitdumpBuilder b;
    b.header(1, pid);
    std::uint64_t ts = 100;
    std::uint64_t index = 0;
    for (const Fn& f : fns) {
        const std::uintptr_t runs_at = reinterpret_cast<std::uintptr_t>(f.code);
        const std::uintptr_t code = moved ? runs_at + kMovedFrom : runs_at;
        if (moved) std::memcpy(f.code + kMovedFrom, f.code, f.shape.size);
        const std::uintptr_t eh_addr = code + ((f.shape.size + 7) & ~std::size_t{7});
        std::vector<unsigned char> data = f.cfi.eh_frame(code, f.shape.size, eh_addr);
        std::uint32_t cie_len;
        std::memcpy(&cie_len, data.data(), 4);
        const std::vector<unsigned char> hdr =
            testjit::eh_frame_hdr(eh_addr + data.size(), eh_addr, code, 4 + cie_len);
        const std::uint64_t hdr_size = hdr.size();
        data.insert(data.end(), hdr.begin(), hdr.end());
        jitdump_test::JitdumpBuilder p;
        p.u64(data.size()).u64(hdr_size).u64(0);
        p.bytes.insert(p.bytes.end(), data.begin(), data.end());
        while (p.bytes.size() % 8 != 0) p.u8(0);
        b.record(4, ts++, p.bytes);
        std::vector<unsigned char> bytes(f.code, f.code + f.shape.size);
        b.code_load(code, f.shape.size, f.name, index, ts, pid, pid, bytes);
        ++ts;
        if (moved) b.code_move(code, runs_at, f.shape.size, index, ts++, pid, pid);
        ++index;
    }
    const std::string path = "jit-" + std::to_string(pid) + ".dump";
    const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0) die("open jitdump");
    if (write(fd, b.bytes.data(), b.bytes.size()) != static_cast<ssize_t>(b.bytes.size()))
        die("write jitdump");
    // Producers map the file so that profilers notice it.
    if (mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
        die("mmap jitdump");
}

}  // namespace

// The ordinary caller of the jitted code: not inlined, not a tail call.
extern "C" __attribute__((noinline)) long enter_jit(void* arg) {
    auto f = reinterpret_cast<long (*)(void*)>(fns[2].code);
    long r = f(arg);
    asm volatile("" : "+r"(r));
    return r + 1;
}

namespace {

// The word jit_inner reads in the leafrace run (at rdi + 40), written by
// a second thread without synchronisation.
long shared_words[6];

int run(const std::string& what) {
    if (what == "leafrace") {
        std::thread writer([] { shared_words[5] = 1; });
        // Let the writer run first (Valgrind runs one thread at a time and
        // switches at a blocking system call); the race is reported
        // either way, at whichever access comes second.
        usleep(200 * 1000);
        std::printf("leafrace %ld\n", enter_jit(shared_words));
        writer.join();
    } else if (what == "leak") {
        std::printf("leak %ld\n", enter_jit(nullptr));
    } else {
        void* block = std::malloc(40);
        std::printf("memerr %d\n", enter_jit(block) != 0 ? 1 : 0);
        std::free(block);
    }
    return 0;
}

struct HostileCase {
    const char* name;
    std::vector<unsigned char> bytes;
    unsigned long kind = VG_JIT_UNWIND_EH_FRAME;
    const void* ptr = nullptr;  // instead of bytes.data()
    unsigned long size = ~0UL;  // instead of bytes.size()
    unsigned long ra_offset = 0;
};

void put32(std::vector<unsigned char>& v, std::size_t at, std::uint32_t x) {
    std::memcpy(&v[at], &x, 4);
}

// Descriptions of jit_inner whose .eh_frame bytes are malformed: `good`
// (its correct .eh_frame, built in place) with a length, pointer or
// augmentation that lies, or built with a fault.
std::vector<HostileCase> malformed_eh_frames(const Fn& f, const std::vector<unsigned char>& good) {
    std::uint32_t cie_len;
    std::memcpy(&cie_len, good.data(), 4);
    const std::size_t fde = 4 + cie_len;

    std::vector<HostileCase> cases;
    {
        HostileCase c{"truncated", good};
        c.bytes.resize(fde + 12);  // the FDE's length says more
        cases.push_back(c);
    }
    {
        HostileCase c{"cie_length_lies", good};
        put32(c.bytes, 0, 0x7ffffff0u);
        cases.push_back(c);
    }
    {
        HostileCase c{"fde_length_lies", good};
        put32(c.bytes, fde, 0x1000u);
        cases.push_back(c);
    }
    {
        HostileCase c{"dwarf64_length", good};
        put32(c.bytes, 0, 0xffffffffu);
        cases.push_back(c);
    }
    {
        testjit::EhFrameFaults faults;
        faults.fde_encoding = 0x0f;  // no such format
        cases.push_back({"unknown_pointer_encoding", eh_frame_in_place(f, faults)});
    }
    {
        testjit::EhFrameFaults faults;
        faults.fde_encoding = 0x9b;  // indirect
        cases.push_back({"indirect_pointer_encoding", eh_frame_in_place(f, faults)});
    }
    {
        testjit::EhFrameFaults faults;
        faults.pc_shift = 0x10000000;
        cases.push_back({"fde_outside_code", eh_frame_in_place(f, faults)});
    }
    {
        HostileCase c{"cie_augmentation_unterminated", good};
        for (std::size_t i = 9; i < fde; ++i) c.bytes[i] = 'z';
        cases.push_back(c);
    }
    {
        HostileCase c{"fde_cie_pointer_lies", good};
        put32(c.bytes, fde + 4, 0x40000000u);
        cases.push_back(c);
    }
    {
        // DW_CFA_def_cfa_expression with an empty expression, the rest of
        // the FDE's instructions DW_CFA_nop: the reader cannot convert the
        // CFA rule (it asserted on it in Valgrind 3.27.1).
        HostileCase c{"cfa_expression_empty", good};
        std::uint32_t fde_len;
        std::memcpy(&fde_len, &good[fde], 4);
        const std::size_t insns =
            fde + 17;  // length, CIE pointer, pc_begin, pc_range, augmentation
        for (std::size_t i = insns; i < fde + 4 + fde_len; ++i) c.bytes[i] = 0;
        c.bytes[insns] = 0x0f;
        c.bytes[insns + 1] = 0;
        cases.push_back(c);
    }
    return cases;
}

// Descriptions whose bytes cannot be read, whose size is out of bounds,
// whose kind is unknown or whose fixed frame is misaligned.
std::vector<HostileCase> malformed_descriptors(const std::vector<unsigned char>& good) {
    std::vector<HostileCase> cases;
    {
        HostileCase c{"unreadable", {}};
        c.ptr = reinterpret_cast<const void*>(0x1000);
        c.size = 64;
        cases.push_back(c);
    }
    {
        HostileCase c{"too_large", good};
        c.size = VG_JIT_MAX_EH_FRAME + 1;
        cases.push_back(c);
    }
    {
        HostileCase c{"empty", good};
        c.size = 0;
        cases.push_back(c);
    }
    {
        HostileCase c{"unknown_kind", {}};
        c.kind = 99;
        cases.push_back(c);
    }
    {
        HostileCase c{"shape_offset_misaligned", {}};
        c.kind = VG_JIT_UNWIND_FIXED_FRAME;
        c.ra_offset = 7;
        cases.push_back(c);
    }
    return cases;
}

// Registers jit_inner as each case describes it: one "case NAME RET
// STATUS" line each on stderr.
void register_cases(const Fn& f, const std::vector<HostileCase>& cases) {
    for (const HostileCase& c : cases) {
        VgJitCode d = descriptor(f);
        d.unwind_kind = c.kind;
        d.eh_frame = c.ptr ? c.ptr : c.bytes.data();
        d.eh_frame_size = c.size != ~0UL ? c.size : c.bytes.size();
        d.prologue_size = f.shape.frame_end;
        d.ra_offset = c.ra_offset;
        d.fp_offset = 16;
        const unsigned long ret = VALGRIND_JIT_REGISTER_CODE(&d);
        std::fprintf(stderr, "case %s %lu %d\n", c.name, ret,
                     static_cast<int>(VALGRIND_JIT_LAST_ERROR()));
    }
}

// A thousand random corruptions of `good`, jit_inner's correct CFI (one to
// four bytes replaced, some also cut short): "fuzz N accepted N refused" on
// stderr.
void fuzz(const Fn& f, const std::vector<unsigned char>& good) {
    std::mt19937 rng(20261124);
    unsigned accepted = 0, refused = 0;
    for (int i = 0; i < 1000; ++i) {
        std::vector<unsigned char> v = good;
        const int n = 1 + static_cast<int>(rng() % 4);
        for (int k = 0; k < n; ++k) v[rng() % v.size()] = static_cast<unsigned char>(rng());
        VgJitCode d = descriptor(f);
        d.unwind_kind = VG_JIT_UNWIND_EH_FRAME;
        d.eh_frame = v.data();
        d.eh_frame_size = v.size() - (rng() % 3 == 0 ? rng() % v.size() : 0);
        d.eh_frame_addr = good.data();  // the address the bytes were built for
        if (VALGRIND_JIT_REGISTER_CODE(&d))
            ++accepted;
        else
            ++refused;
    }
    std::fprintf(stderr, "fuzz %u accepted %u refused\n", accepted, refused);
}

// `unwindjit hostile` (see the top of this file).
int hostile() {
    emit(testjit::FramelessBody::kInvalidRead);
    const Fn& f = fns[0];
    const std::vector<unsigned char> good = eh_frame_in_place(f);
    register_cases(f, malformed_eh_frames(f, good));
    register_cases(f, malformed_descriptors(good));
    fuzz(f, good);

    register_all("cfi");
    return run("memerr");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "hostile") {
        const int rc = hostile();
        std::fflush(stdout);  // main stays on the stack (no tail call)
        return rc;
    }
    if (argc != 3) {
        std::fprintf(stderr,
                     "usage: unwindjit cfi|cfi-adjacent|cfi-after-code|shape|none|unregistered|"
                     "replaced|jitdump|jitdump-moved leak|memerr|leaf|leafrace\n"
                     "       unwindjit hostile\n");
        return 2;
    }
    const std::string how = argv[1], what = argv[2];
    emit(
        what == "leak" ? testjit::FramelessBody::kMallocLeak : testjit::FramelessBody::kInvalidRead,
        how == "cfi-adjacent", what == "leaf" || what == "leafrace");
    if (how == "jitdump" || how == "jitdump-moved") {
        write_jitdump(how == "jitdump-moved");
        // Valgrind applies a CODE_MOVE at its next time slice, not in the
        // middle of a lookup: run other code first, as a JIT would.
        if (how == "jitdump-moved")
            for (int i = 0; i < 1000000; ++i) asm volatile("" ::: "memory");
    } else if (how == "unregistered") {
        // The CFI goes with its code: unregistered, then the same code
        // registered again without unwind information.
        register_all("cfi");
        for (const Fn& f : fns) report("unregister", VALGRIND_JIT_UNREGISTER(f.code));
        register_all("none");
    } else if (how == "replaced") {
        // Registering over code with CFI replaces the CFI too.
        register_all("cfi");
        register_all("none");
    } else {
        register_all(how);
    }
    return run(what);
}
