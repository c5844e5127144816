// testjit_calls.cpp: testjit's call graphs through jitted code: the
// calls mode (jitted functions calling each other and ELF code) and the
// prologue mode (a JIT function whose first call builds its frame and
// returns below it, beside the same code as an ELF function).

#include "testjit.hpp"

#include <cstdint>
#include <cstdio>

namespace testjit {

extern "C" __attribute__((noinline)) long elf_helper(long x) {
    long acc = 0;
    for (long i = 0; i < x; ++i) acc += i ^ x;
    __asm__ volatile("" : "+r"(acc));
    return acc;
}

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

namespace {

// A jitted function of one argument.
using Fn1 = long (*)(long);

}  // namespace

// calls: jit_top -> jit_middle -> jit_leaf, and jit_middle -> elf_helper.
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
    const EmittedShape mid =
        emit_repeat_caller(mid_at, 256, leaf_fn, 10, reinterpret_cast<const void*>(&elf_helper));
    // jit_top(n): 100 x jit_middle(n).  Lines 30, 31.
    std::uint8_t* top_at = p + 512;
    const EmittedShape top = emit_repeat_caller(top_at, 256, mid_at, 100);

    register_fn(leaf_fn, leaf_size, "jit_leaf",
                {{0, 10, nullptr}, {leaf_loop, 11, nullptr}, {leaf_ret, 12, nullptr}});
    register_fn(mid_at, mid.size, "jit_middle",
                {{0, 20, nullptr}, {mid.loop, 21, nullptr}, {mid.tail, 22, nullptr}});
    register_fn(top_at, top.size, "jit_top", {{0, 30, nullptr}, {top.loop, 31, nullptr}});

    long r = reinterpret_cast<Fn1>(top_at)(1000);
    std::printf("calls result %ld\n", r);
    return 0;
}

namespace {

// The number of calls fib(n) makes of itself, its first call included.
long fib_calls(long n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }

}  // namespace

// prologue N K: fib(N) K times as jit_prologue_fib, K times as
// elf_prologue_fib, each call starting with a call of frame_prologue.
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

}  // namespace testjit
