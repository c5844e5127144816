// testjit: a small JIT used by the integration tests.  It emits x86-64
// functions with xbyak into anonymous executable memory, registers them
// through <valgrind/jit.h>, and runs them.  The computed results go to
// stdout, which must be identical natively and under Valgrind; what the
// registration requests returned goes to stderr as "status <what> <ret>
// <last-error>" lines, which the tests parse.
//
// Usage: testjit [--source=PATH] MODE
//   calls    three JIT functions (jit_top -> jit_middle -> jit_leaf, and
//            jit_middle -> elf_helper, an ordinary C++ function), object
//            "testjit-obj", file /virtual/testjit.src, with line tables
//   replace  code "first_version" at an address, run, unregister, emit
//            "second_version" at the same address, run
//   patch    code "patch_first" at an address, run 3 times; then
//            "patch_second" written over it in place and registered over
//            the same range WITHOUT unregistering (as a JIT patching code
//            in place does), run 5 times.  Both spin the same loop (the
//            same bytes up to their last block); patch_second then reads
//            4 bytes past a 16-byte malloc'd block (Memcheck's invalid
//            read inside the new code)
//   forget   "forgotten" registered and run once, unregistered (still
//            mapped) and run twice more
//   memerr   jit_reader reads 4 bytes past a malloc'd block (Memcheck's
//            invalid read inside jitted code)
//   leak     jit_allocator calls malloc and leaks the block; then the code
//            is unregistered and "other_code" registered at its address
//            (the leak's allocation stack was recorded in jit_allocator)
//   nested   big_fn (256 bytes registered; its call of malloc(88), whose
//            block it leaks, returns to offset 0x51) runs, is
//            unregistered; then small_fn is registered at big_fn+16 for 16
//            bytes and unregistered (the leak's allocation stack was
//            recorded in big_fn, past small_fn's end)
//   alloc    jit_allocator allocates 77 bytes and stays registered and
//            mapped until exit (tools that name allocation sites at exit)
//   race     two threads run jit_racer, which increments a shared int
//            without a lock (Helgrind's and DRD's data race in jitted code)
//   malloc   a JIT function named "malloc" (must not become a
//            redirection target): the program's own malloc keeps working
//   mangled  like memerr, but the function is registered under the C++
//            mangled name _ZN5jitvm6reader4readEPi (jitvm::reader::read)
//   fork     like memerr, but the jitted code runs in a forked child
//   bad      every kind of bad request; the program must go on
//   lines    line tables that lose entries, one registration per reason:
//            "no_file" (3 entries, no file anywhere), "high_line" (2 of 3
//            entries above line 1048575), "junk_file" (2 entries whose
//            file name is not UTF-8); then "flood_0" to "flood_149", each
//            with 1 of 2 entries at an offset past its code
//   names    registers functions whose names start at every offset of a
//            word, with every length from 1 to 40, some with control
//            characters or a byte that is not UTF-8 at either end or in
//            the middle, one ending on the last byte of a page before a
//            PROT_NONE page, and one running from a read/write mapping
//            into the read-only one after it; each as "status names-I RET
//            ERR" and "expect names-I ESCAPED" on stderr, ESCAPED being
//            the name with every byte outside printable ASCII as \xNN
//            (none of the names holds a valid multi-byte character)
//   compact  two functions registered under one name ("kept_shared_...")
//            and one under its own ("kept_alone_..."), then three rounds
//            of 20000 functions with long names registered and
//            unregistered (their names die, so the name pool is
//            compacted at the next time slice, which sched_yield
//            brings), then the three are unregistered (--trace-jit shows
//            the names they had at that point)
//   prologue N K
//            fib(N) K times twice, each call of fib starting with a call
//            of frame_prologue (ELF code), which builds fib's frame and
//            returns below the frame it was called with (as V8's
//            BaselineOutOfLinePrologue does for baseline code): once as
//            the JIT function "jit_prologue_fib", once as the ELF function
//            elf_prologue_fib; prints both results and the number of
//            calls of fib each made
//   many N   register N functions of 16 bytes each, run each once
//   retranslate N
//            N unregistered functions of 16 bytes each run once, the
//            translations of the first half discarded, all run again
//            (the translation table's lookups, not the registry)
//   churn SEED OPS
//            OPS random registrations (ascending, descending and random
//            addresses, 1 to 3 slots of 16 bytes, some names shared),
//            unregistrations and range unregistrations over 20000 slots,
//            each request's return value and status checked against a
//            model of what must be registered (mismatches go to stderr as
//            "churn MISMATCH ..." lines, then "churn mismatches N"); then
//            every function still registered runs once ("churn live
//            NAME" per function on stderr) and the code is unmapped.

#include <valgrind/jit.h>
#include "xbyak_emit.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// Anonymous read/write/execute memory of a fixed size, unmapped on
// destruction.
class CodeMemory {
public:
    explicit CodeMemory(std::size_t size) : size_(size) {
        void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            std::perror("mmap");
            std::exit(2);
        }
        base_ = static_cast<std::uint8_t*>(p);
    }
    ~CodeMemory() { munmap(base_, size_); }
    CodeMemory(const CodeMemory&) = delete;
    CodeMemory& operator=(const CodeMemory&) = delete;
    std::uint8_t* base() const { return base_; }
    std::size_t size() const { return size_; }

private:
    std::uint8_t* base_;
    std::size_t size_;
};

using testjit::Emitter;

void report(const char* what, unsigned long ret) {
    std::fprintf(stderr, "status %s %lu %d\n", what, ret,
                 static_cast<int>(VALGRIND_JIT_LAST_ERROR()));
}

// The source file named in the line tables: --source=PATH, else a path
// that does not exist (the tools then show the name without the text).
const char* kFile = "/virtual/testjit.src";

// Registers [start, start+size) as `name` with the given line table.
void register_fn(const void* start, std::size_t size, const char* name,
                 const std::vector<VgJitLine>& lines, const char* object = "testjit-obj") {
    VgJitCode desc = VG_JIT_CODE_INITIALIZER;
    desc.start = start;
    desc.size = size;
    desc.name = name;
    desc.object = object;
    desc.file = kFile;
    desc.lines = lines.empty() ? nullptr : lines.data();
    desc.n_lines = lines.size();
    report(name, VALGRIND_JIT_REGISTER_CODE(&desc));
}

extern "C" __attribute__((noinline)) long elf_helper(long x) {
    // Ordinary compiled code called from jitted code.
    long acc = 0;
    for (long i = 0; i < x; ++i) acc += i ^ x;
    __asm__ volatile("" : "+r"(acc));
    return acc;
}

using Fn1 = long (*)(long);

// frame_prologue: called first thing by the prologue fibs; builds the
// caller's frame (rbp chain and two slots, [rbp-8] and [rbp-16]) and
// returns 16 bytes below the stack pointer the call left.
// elf_prologue_fib(n): fib(n) in such a frame.
extern "C" long elf_prologue_fib(long n);
__asm__(R"(
        .text
        .globl frame_prologue
        .type frame_prologue, @function
frame_prologue:
        pop %r11
        push %rbp
        mov %rsp, %rbp
        push %rdi
        push %rdi
        push %r11
        ret
        .size frame_prologue, .-frame_prologue
        .globl elf_prologue_fib
        .type elf_prologue_fib, @function
elf_prologue_fib:
        call frame_prologue
        cmp $2, %rdi
        jl 1f
        mov %rdi, -8(%rbp)
        lea -1(%rdi), %rdi
        call elf_prologue_fib
        mov %rax, -16(%rbp)
        mov -8(%rbp), %rdi
        lea -2(%rdi), %rdi
        call elf_prologue_fib
        add -16(%rbp), %rax
        jmp 2f
1:      mov %rdi, %rax
2:      mov %rbp, %rsp
        pop %rbp
        ret
        .size elf_prologue_fib, .-elf_prologue_fib
)");
extern "C" void frame_prologue();

// Emits and registers jit_allocator at p: returns malloc(77).  Lines 70
// (entry), 71 (the call), 72 (return).
void emit_allocator(std::uint8_t* p) {
    Emitter e(p, 128);
    e.sub(e.rsp, 8);
    const std::size_t call_at = e.getSize();
    e.mov(e.edi, 77);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&std::malloc));
    e.call(e.rax);
    const std::size_t ret_at = e.getSize();
    e.add(e.rsp, 8);
    e.ret();
    e.ready();
    register_fn(p, e.getSize(), "jit_allocator",
                {{0, 70, nullptr}, {call_at, 71, nullptr}, {ret_at, 72, nullptr}});
}

int mode_calls() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();

    // jit_leaf(n): sum of 0..n-1, a counted loop.  Lines 10 (entry),
    // 11 (loop), 12 (return).
    Emitter leaf(p, 256);
    leaf.xor_(leaf.rax, leaf.rax);
    leaf.xor_(leaf.rcx, leaf.rcx);
    const std::size_t leaf_loop = leaf.getSize();
    Xbyak::Label leaf_top, leaf_done;
    leaf.L(leaf_top);
    leaf.cmp(leaf.rcx, leaf.rdi);
    leaf.jge(leaf_done);
    leaf.add(leaf.rax, leaf.rcx);
    leaf.inc(leaf.rcx);
    leaf.jmp(leaf_top);
    leaf.L(leaf_done);
    const std::size_t leaf_ret = leaf.getSize();
    leaf.ret();
    leaf.ready();
    const std::size_t leaf_size = leaf.getSize();
    auto* leaf_fn = reinterpret_cast<std::uint8_t*>(p);

    // jit_middle(n): 10 x jit_leaf(n) + elf_helper(n).  Lines 20, 21, 22.
    std::uint8_t* mid_at = p + 256;
    const testjit::EmittedShape mid = testjit::emit_repeat_caller(
        mid_at, 256, leaf_fn, 10, reinterpret_cast<const void*>(&elf_helper));
    // jit_top(n): 100 x jit_middle(n).  Lines 30, 31.
    std::uint8_t* top_at = p + 512;
    const testjit::EmittedShape top = testjit::emit_repeat_caller(top_at, 256, mid_at, 100);

    register_fn(leaf_fn, leaf_size, "jit_leaf",
                {{0, 10, nullptr}, {leaf_loop, 11, nullptr}, {leaf_ret, 12, nullptr}});
    register_fn(mid_at, mid.size, "jit_middle",
                {{0, 20, nullptr}, {mid.loop, 21, nullptr}, {mid.tail, 22, nullptr}});
    register_fn(top_at, top.size, "jit_top", {{0, 30, nullptr}, {top.loop, 31, nullptr}});

    long r = reinterpret_cast<Fn1>(top_at)(1000);
    std::printf("calls result %ld\n", r);
    return 0;
}

// Emits "rax = k; loop n times; ret" at p: a function that burns
// `iterations` loop iterations and returns k.
std::size_t emit_counter(std::uint8_t* p, long k, long iterations) {
    Emitter e(p, 128);
    e.mov(e.rcx, iterations);
    Xbyak::Label top;
    e.L(top);
    e.dec(e.rcx);
    e.jnz(top);
    e.mov(e.rax, k);
    e.ret();
    e.ready();
    return e.getSize();
}

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

// Emits jit_reader (reads 4 bytes at p+16) under `name` and runs it on a
// 16-byte block: Memcheck's invalid read inside jitted code.  With
// in_child, the code runs in a forked child.
int run_reader(const char* name, bool in_child) {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    Emitter e(p, 128);
    e.xor_(e.eax, e.eax);  // line 60
    const std::size_t read_at = e.getSize();
    e.mov(e.eax, e.dword[e.rdi + 16]);  // line 61: reads past the block
    const std::size_t ret_at = e.getSize();
    e.ret();  // line 62
    e.ready();
    register_fn(p, e.getSize(), name,
                {{0, 60, nullptr}, {read_at, 61, nullptr}, {ret_at, 62, nullptr}});
    auto* block = static_cast<int*>(std::malloc(16));
    std::memset(block, 0, 16);
    std::fflush(nullptr);
    pid_t child = in_child ? fork() : 0;
    if (child == 0) {
        volatile int v = reinterpret_cast<int (*)(int*)>(p)(block);
        (void)v;
    }
    if (in_child && child > 0) {
        int status = 0;
        waitpid(child, &status, 0);
    }
    std::free(block);
    if (!in_child || child > 0) std::printf("memerr done\n");
    if (in_child && child == 0) _exit(0);
    return 0;
}

int mode_memerr() { return run_reader("jit_reader", false); }

// Code unregistered while its memory is not executable (a W^X JIT
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
        const testjit::EmittedShape caller = testjit::emit_repeat_caller(caller_at, 256, p, 10);
        return std::make_pair(leaf, caller);
    };
    const auto [leaf, caller] = emit();
    register_fn(p, leaf.size, "w_leaf",
                {{0, 140, nullptr}, {leaf.read_at, 141, nullptr}, {leaf.ret_at, 142, nullptr}});
    register_fn(caller_at, caller.size, "w_caller",
                {{0, 150, nullptr}, {caller.loop, 151, nullptr}, {caller.tail, 152, nullptr}});
    using CallerFn = long (*)(int*);
    auto* big = static_cast<int*>(std::calloc(8, sizeof(int)));
    auto* small = static_cast<int*>(std::calloc(4, sizeof(int)));
    const auto call = [&](int* block, int times) {
        for (int i = 0; i < times; ++i) {
            volatile long v = reinterpret_cast<CallerFn>(caller_at)(block);
            (void)v;
        }
    };
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

int mode_leak() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    emit_allocator(p);
    void* leaked = reinterpret_cast<void* (*)()>(p)();
    std::printf("leak allocated %s\n", leaked ? "yes" : "no");
    leaked = nullptr;
    report("unregister", VALGRIND_JIT_UNREGISTER(p));
    std::size_t n = emit_counter(p, 3, 10);
    register_fn(p, n, "other_code", {{0, 80, nullptr}});
    std::printf("other_code %ld\n", reinterpret_cast<long (*)()>(p)());
    return 0;
}

int mode_nested() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    Emitter e(p, 256);
    e.sub(e.rsp, 8);
    while (e.getSize() < 0x40) e.nop();
    e.mov(e.edi, 88);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&std::malloc));
    e.call(e.rax);  // returns to 0x40 + 5 + 10 + 2 = 0x51, past small_fn
    e.add(e.rsp, 8);
    e.ret();
    e.ready();
    register_fn(p, 256, "big_fn", {});
    void* leaked = reinterpret_cast<void* (*)()>(p)();
    std::printf("nested allocated %s\n", leaked ? "yes" : "no");
    leaked = nullptr;
    report("unregister", VALGRIND_JIT_UNREGISTER(p));
    register_fn(p + 16, 16, "small_fn", {});
    report("unregister", VALGRIND_JIT_UNREGISTER(p + 16));
    return 0;
}

int mode_alloc() {
    // Deliberately never unmapped: the code must still be there at exit.
    static CodeMemory* mem = new CodeMemory(4096);
    std::uint8_t* p = mem->base();
    emit_allocator(p);
    static void* kept = reinterpret_cast<void* (*)()>(p)();
    std::printf("alloc allocated %s\n", kept ? "yes" : "no");
    return 0;
}

int mode_race() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    Emitter e(p, 64);
    e.add(e.dword[e.rdi], 1);  // line 95: the unsynchronised write
    const std::size_t ret_at = e.getSize();
    e.ret();  // line 96
    e.ready();
    register_fn(p, e.getSize(), "jit_racer", {{0, 95, nullptr}, {ret_at, 96, nullptr}});
    static int counter = 0;
    auto body = [p] {
        for (int i = 0; i < 10; ++i) reinterpret_cast<void (*)(int*)>(p)(&counter);
    };
    std::thread a(body), b(body);
    a.join();
    b.join();
    std::printf("race done\n");
    return 0;
}

int mode_malloc() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    std::size_t n = emit_counter(p, 5, 1000);
    register_fn(p, n, "malloc", {{0, 90, nullptr}});
    long r = reinterpret_cast<long (*)()>(p)();
    void* q = std::malloc(100);
    std::memset(q, 1, 100);
    std::free(q);
    std::printf("jitted malloc returned %ld\n", r);
    return 0;
}

// The name as the core shows a name that holds no valid multi-byte
// UTF-8 character: bytes outside printable ASCII as \xNN.
std::string escaped_name(const std::string& name) {
    std::string out;
    for (const unsigned char c : name) {
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

int mode_names() {
    CodeMemory mem(16 * 4096);
    std::uint8_t* p = mem.base();
    const std::size_t slots = mem.size() / 64 - 2;
    std::size_t k = 0;
    // Five pages read/write, then one PROT_NONE; the fifth page becomes
    // read-only, a mapping of its own.
    auto* buf = static_cast<char*>(
        mmap(nullptr, 6 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (buf == MAP_FAILED) {
        std::perror("mmap");
        return 2;
    }
    std::vector<std::pair<const char*, std::string>> names;  // at, text
    std::size_t at = 0;
    auto place = [&](std::size_t offset, const std::string& text) {
        std::memcpy(buf + offset, text.c_str(), text.size() + 1);
        names.emplace_back(buf + offset, text);
    };
    for (std::size_t len = 1; len <= 40; ++len)
        for (std::size_t off = 0; off < 8; ++off) {
            at = (at + 8) & ~std::size_t(7);
            std::string text;
            for (std::size_t i = 0; i < len; ++i)
                text += static_cast<char>('a' + (len * 7 + off + i) % 26);
            // Every fifth name gets a junk byte at its start, its end or
            // in its middle.
            if ((len + off) % 5 == 0)
                text[(len + off) % 3 == 0   ? 0
                     : (len + off) % 3 == 1 ? len - 1
                                            : len / 2] =
                    static_cast<char>((len + off) % 2 ? 0x01 : 0xff);
            place(at + off, text);
            at += off + len + 1;
        }
    if (at > 4 * 4096 - 64) {
        std::fprintf(stderr, "names: buffer too small\n");
        return 2;
    }
    // Ends on the last byte of the fifth page, which is followed by the
    // PROT_NONE page.
    place(5 * 4096 - 12, "at_the_end\x7f");
    // Runs from the fourth page into the fifth (read-only) one.
    place(4 * 4096 - 13, "across_two_mappings");
    mprotect(buf + 4 * 4096, 4096, PROT_READ);
    mprotect(buf + 5 * 4096, 4096, PROT_NONE);
    for (std::size_t i = 0; i < names.size() && k < slots; ++i, ++k) {
        const std::string what = "names-" + std::to_string(i);
        const std::size_t n = emit_counter(p + 64 * k, 1, 1);
        report(what.c_str(), VALGRIND_JIT_REGISTER(p + 64 * k, n, names[i].first));
        std::fprintf(stderr, "expect %s %s\n", what.c_str(), escaped_name(names[i].second).c_str());
    }
    std::printf("names registered: %zu\n", k);
    munmap(buf, 6 * 4096);
    return 0;
}

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

int mode_bad() {
    CodeMemory mem(8192);
    std::uint8_t* p = mem.base();
    std::size_t n = emit_counter(p, 7, 1000);
    static const char kUnterminated[4] = {'a', 'b', 'c', 'd'};
    // A name that runs into an unmapped page: the last bytes of a page
    // followed by a PROT_NONE page.
    auto* guard = static_cast<char*>(
        mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(guard + 4096, 4096, PROT_NONE);
    std::memset(guard, 'x', 4096);
    char* runs_off = guard + 4096 - 8;

    auto* data = static_cast<std::uint8_t*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

    report("null-name", VALGRIND_JIT_REGISTER(p, n, nullptr));
    report("wild-name", VALGRIND_JIT_REGISTER(p, n, reinterpret_cast<const char*>(16)));
    report("unterminated-name", VALGRIND_JIT_REGISTER(p, n, runs_off));
    (void)kUnterminated;
    report("empty-name", VALGRIND_JIT_REGISTER(p, n, ""));
    const std::string long_name(5000, 'n');  // above VG_JIT_MAX_STRING
    report("long-name", VALGRIND_JIT_REGISTER(p, n, long_name.c_str()));
    report("size-zero", VALGRIND_JIT_REGISTER(p, 0, "f"));
    report("wraps", VALGRIND_JIT_REGISTER(reinterpret_cast<void*>(~0UL - 8), 64, "f"));
    report("huge", VALGRIND_JIT_REGISTER(p, 1UL << 40, "f"));
    report("unmapped", VALGRIND_JIT_REGISTER(reinterpret_cast<void*>(0x10000), 64, "f"));
    report("not-executable", VALGRIND_JIT_REGISTER(data, 64, "f"));
    report("elf-text", VALGRIND_JIT_REGISTER(reinterpret_cast<void*>(&elf_helper), 16, "f"));
    report("null-desc", VALGRIND_JIT_REGISTER_CODE(nullptr));
    VgJitCode small = VG_JIT_CODE_INITIALIZER;
    small.struct_size = 8;
    report("small-desc", VALGRIND_JIT_REGISTER_CODE(&small));
    VgJitCode big = VG_JIT_CODE_INITIALIZER;
    big.struct_size = 1UL << 20;
    report("huge-desc", VALGRIND_JIT_REGISTER_CODE(&big));
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = p;
    d.size = n;
    d.name = "badlines";
    d.file = kFile;
    d.lines = reinterpret_cast<const VgJitLine*>(16);
    d.n_lines = 4;
    report("wild-lines", VALGRIND_JIT_REGISTER_CODE(&d));
    d.lines = reinterpret_cast<const VgJitLine*>(data);
    d.n_lines = 1UL << 40;
    report("absurd-n-lines", VALGRIND_JIT_REGISTER_CODE(&d));
    d.object = runs_off;
    d.n_lines = 0;
    d.lines = nullptr;
    report("bad-object", VALGRIND_JIT_REGISTER_CODE(&d));
    d.object = "testjit-obj";
    // Unsorted, out-of-range, line 0, bad file pointer: kept what is valid.
    const VgJitLine messy[] = {{4, 101, nullptr},
                               {0, 100, nullptr},
                               {n + 100, 102, nullptr},
                               {2, 0, nullptr},
                               {3, 103, reinterpret_cast<const char*>(16)}};
    d.lines = messy;
    d.n_lines = 5;
    report("messy-lines", VALGRIND_JIT_REGISTER_CODE(&d));
    report("overlap-replaces", VALGRIND_JIT_REGISTER(p + 2, 4, "overlapper"));
    report("unregister-nothing", VALGRIND_JIT_UNREGISTER(p + 1000));
    report("unregister-range", VALGRIND_JIT_UNREGISTER_RANGE(p, 4096));
    report("query", VALGRIND_JIT_QUERY());

    // Mappings that change between two requests: each answer follows the
    // system call that changed them, not the request before it.
    report("before-mprotect", VALGRIND_JIT_REGISTER(p + 64, 16, "before_mprotect"));
    mprotect(p, 8192, PROT_READ | PROT_WRITE);
    report("after-mprotect", VALGRIND_JIT_REGISTER(p + 128, 16, "after_mprotect"));
    mprotect(p, 8192, PROT_READ | PROT_EXEC);
    report("executable-again", VALGRIND_JIT_REGISTER(p + 128, 16, "executable_again"));
    auto* names = static_cast<char*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::strcpy(names, "name_in_a_mapping");
    std::strcpy(names + 64, "name_unmapped_since");
    report("name-mapped", VALGRIND_JIT_REGISTER(p + 192, 16, names));
    munmap(names, 4096);
    report("name-unmapped", VALGRIND_JIT_REGISTER(p + 256, 16, names + 64));

    long r = reinterpret_cast<long (*)()>(p)();
    std::printf("bad inputs survived, code returned %ld\n", r);
    munmap(guard, 8192);
    munmap(data, 4096);
    return 0;
}

int mode_lines() {
    CodeMemory mem(8192);
    std::uint8_t* p = mem.base();
    const std::size_t n = emit_counter(p, 7, 1000);
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = p;
    d.size = n;
    d.name = "no_file";
    const VgJitLine no_file[] = {{0, 10, nullptr}, {2, 11, nullptr}, {4, 12, nullptr}};
    d.lines = no_file;
    d.n_lines = 3;
    report("no-file", VALGRIND_JIT_REGISTER_CODE(&d));
    d.name = "high_line";
    d.file = kFile;
    const VgJitLine high_line[] = {
        {0, 10, nullptr}, {2, 1048576, nullptr}, {4, 0x7fffffff, nullptr}};
    d.lines = high_line;
    report("high-line", VALGRIND_JIT_REGISTER_CODE(&d));
    d.name = "junk_file";
    static const char kJunk[] = "/src/\xff\xfe.js";
    const VgJitLine junk_file[] = {{0, 10, kJunk}, {2, 11, kJunk}};
    d.lines = junk_file;
    d.n_lines = 2;
    report("junk-file", VALGRIND_JIT_REGISTER_CODE(&d));
    const VgJitLine flood[] = {{0, 10, nullptr}, {n, 11, nullptr}};
    d.lines = flood;
    for (int i = 0; i < 150; ++i) {
        const std::string name = "flood_" + std::to_string(i);
        d.name = name.c_str();
        const unsigned long ret = VALGRIND_JIT_REGISTER_CODE(&d);
        if (i == 0) report("flood-0", ret);
    }
    long r = reinterpret_cast<long (*)()>(p)();
    std::printf("lines done, code returned %ld\n", r);
    return 0;
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

// The registry's behaviour under random churn, checked request by
// request against a model.
int mode_churn(unsigned seed, long ops) {
    constexpr std::size_t kSlot = 16, kSlots = 20000;
    CodeMemory mem(kSlots * kSlot);
    std::uint8_t* base = mem.base();
    emit_slots(base, kSlot, kSlots);
    struct Fn {
        std::size_t slots;
        std::string name;
    };
    std::map<std::size_t, Fn> model;  // first slot -> function
    // The functions intersecting slots [lo, lo+n).
    auto intersecting = [&](std::size_t lo, std::size_t n) {
        std::vector<std::size_t> out;
        auto it = model.lower_bound(lo);
        if (it != model.begin()) {
            auto prev = std::prev(it);
            if (prev->first + prev->second.slots > lo) out.push_back(prev->first);
        }
        for (; it != model.end() && it->first < lo + n; ++it) out.push_back(it->first);
        return out;
    };
    std::mt19937 rng(seed);
    auto below = [&rng](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    long mismatches = 0;
    auto check = [&](long op, const char* what, unsigned long expected, unsigned long got,
                     int expected_status) {
        const int status = static_cast<int>(VALGRIND_JIT_LAST_ERROR());
        if (got == expected && status == expected_status) return;
        ++mismatches;
        std::fprintf(
            stderr,
            "churn MISMATCH op %ld %s: returned %lu (expected %lu), status %d (expected %d)\n", op,
            what, got, expected, status, expected_status);
    };
    const std::string padding(40, 'p');  // long names: the name pool fills
    std::size_t cursor = 0, max_live = 0;
    for (long op = 0; op < ops; ++op) {
        const int phase = static_cast<int>(op / 5000 % 3);  // random, up, down
        const std::size_t r = below(100);
        if (r < 65) {
            std::size_t first;
            if (phase == 0)
                first = below(kSlots);
            else if (phase == 1)
                first = cursor = (cursor + 1 + below(3)) % kSlots;
            else
                first = cursor = (cursor + kSlots - 1 - below(3)) % kSlots;
            const std::size_t n = std::min<std::size_t>(1 + below(3), kSlots - first);
            const std::string name = below(8) == 0 ? "churn_shared_" + std::to_string(below(5))
                                                   : "churn_" + std::to_string(op) + "_" + padding;
            const auto hit = intersecting(first, n);
            const unsigned long ret =
                VALGRIND_JIT_REGISTER(base + first * kSlot, n * kSlot, name.c_str());
            check(op, "register", 1, ret, hit.empty() ? VG_JIT_OK : VG_JIT_WARN_REPLACED);
            for (std::size_t s : hit) model.erase(s);
            model[first] = Fn{n, name};
        } else if (r < 85) {
            std::size_t first = below(kSlots);
            if (!model.empty() && below(4) != 0) {
                auto it = model.lower_bound(first);
                if (it == model.end()) it = model.begin();
                first = it->first;
            }
            const bool registered = model.count(first) != 0;
            const unsigned long ret = VALGRIND_JIT_UNREGISTER(base + first * kSlot);
            check(op, "unregister", registered ? 1 : 0, ret,
                  registered ? VG_JIT_OK : VG_JIT_ERR_NOT_REGISTERED);
            model.erase(first);
        } else if (r < 95 || below(20) == 0) {
            // Small ranges, and now and then a large one.
            const std::size_t first = below(kSlots);
            const std::size_t n =
                std::min<std::size_t>(r < 95 ? 1 + below(8) : 200 + below(1500), kSlots - first);
            const auto hit = intersecting(first, n);
            // From the middle of the first slot: a function covering that
            // slot intersects the range, one ending where it starts does not.
            const unsigned long ret =
                VALGRIND_JIT_UNREGISTER_RANGE(base + first * kSlot + 8, n * kSlot - 8);
            check(op, "unregister-range", hit.size(), ret,
                  hit.empty() ? VG_JIT_ERR_NOT_REGISTERED : VG_JIT_OK);
            for (std::size_t s : hit) model.erase(s);
        }
        max_live = std::max(max_live, model.size());
    }
    std::fprintf(stderr, "churn mismatches %ld, at most %zu live\n", mismatches, max_live);
    long sum = 0;
    for (const auto& [first, fn] : model) {
        std::fprintf(stderr, "churn live %s\n", fn.name.c_str());
        sum += reinterpret_cast<long (*)()>(base + first * kSlot)();
    }
    std::printf("churn %zu live, sum %ld\n", model.size(), sum);
    return 0;
}

// The number of calls fib(n) makes of itself, its first call included.
long fib_calls(long n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }

int mode_prologue(long n, long times) {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    // The bytes of elf_prologue_fib, calling itself and frame_prologue.
    Emitter e(p, 256);
    Xbyak::Label entry, small, done;
    e.L(entry);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&frame_prologue));
    e.call(e.rax);
    e.cmp(e.rdi, 2);
    e.jl(small);
    e.mov(e.ptr[e.rbp - 8], e.rdi);
    e.lea(e.rdi, e.ptr[e.rdi - 1]);
    e.call(entry);
    e.mov(e.ptr[e.rbp - 16], e.rax);
    e.mov(e.rdi, e.ptr[e.rbp - 8]);
    e.lea(e.rdi, e.ptr[e.rdi - 2]);
    e.call(entry);
    e.add(e.rax, e.ptr[e.rbp - 16]);
    e.jmp(done);
    e.L(small);
    e.mov(e.rax, e.rdi);
    e.L(done);
    e.mov(e.rsp, e.rbp);
    e.pop(e.rbp);
    e.ret();
    e.ready();
    register_fn(p, e.getSize(), "jit_prologue_fib", {{0, 50, nullptr}});
    const Fn1 jit_fib = reinterpret_cast<Fn1>(p);
    long jit_sum = 0, elf_sum = 0;
    for (long i = 0; i < times; ++i) jit_sum += jit_fib(n);
    for (long i = 0; i < times; ++i) elf_sum += elf_prologue_fib(n);
    std::printf("prologue jit %ld elf %ld calls %ld\n", jit_sum, elf_sum, times * fib_calls(n));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strncmp(argv[1], "--source=", 9) == 0) {
        kFile = argv[1] + 9;
        ++argv;
        --argc;
    }
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: testjit [--source=PATH] "
                     "calls|replace|patch|forget|memerr|mangled|fork|leak|alloc|race|malloc|bad|"
                     "names|compact|prologue N K|many N|retranslate N|churn SEED OPS\n");
        return 2;
    }
    const std::string mode = argv[1];
    if (mode == "calls") return mode_calls();
    if (mode == "replace") return mode_replace();
    if (mode == "patch") return mode_patch();
    if (mode == "forget") return mode_forget();
    if (mode == "memerr") return mode_memerr();
    if (mode == "mangled") return run_reader("_ZN5jitvm6reader4readEPi", false);
    if (mode == "fork") return run_reader("jit_reader", true);
    if (mode == "withdrawn" && argc > 2) return mode_withdrawn(argv[2]);
    if (mode == "leak") return mode_leak();
    if (mode == "malloc") return mode_malloc();
    if (mode == "alloc") return mode_alloc();
    if (mode == "nested") return mode_nested();
    if (mode == "race") return mode_race();
    if (mode == "bad") return mode_bad();
    if (mode == "lines") return mode_lines();
    if (mode == "names") return mode_names();
    if (mode == "compact") return mode_compact();
    if (mode == "prologue" && argc > 3)
        return mode_prologue(std::atol(argv[2]), std::atol(argv[3]));
    if (mode == "many" && argc > 2) return mode_many(std::atol(argv[2]));
    if (mode == "retranslate" && argc > 2) return mode_retranslate(std::atol(argv[2]));
    if (mode == "churn" && argc > 3)
        return mode_churn(static_cast<unsigned>(std::atol(argv[2])), std::atol(argv[3]));
    std::fprintf(stderr, "testjit: unknown mode %s\n", mode.c_str());
    return 2;
}
