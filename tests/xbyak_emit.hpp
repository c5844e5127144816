// Code shapes the test JITs (testjit, jitdump_producer, perfmap_jit) emit
// with xbyak into memory they own, so that each shape is written once.
// x86-64, System V calling convention: the argument in rdi, the result in
// rax.  Every function returns the offsets a line table needs (bytes from
// the function's first byte), never addresses: the callers build their
// own line tables (client-request VgJitLine, jitdump CODE_DEBUG_INFO,
// perf map entries) from them.
#pragma once

#include <xbyak/xbyak.h>

#include <cstddef>
#include <cstdint>

namespace testjit {

/// An xbyak generator writing into caller-owned memory: `where` must be
/// writable and executable for `capacity` bytes while the code is used.
class Emitter : public Xbyak::CodeGenerator {
public:
    Emitter(std::uint8_t* where, std::size_t capacity) : Xbyak::CodeGenerator(capacity, where) {}
};

/// Where an emitted function's three source lines start, in bytes from its
/// first byte (line L is offset 0), and its size in bytes.
struct EmittedShape {
    std::size_t size = 0;  ///< bytes of code
    std::size_t loop = 0;  ///< start of line L+1 (the loop or recursion)
    std::size_t tail = 0;  ///< start of line L+2 (what follows)
};

/// How a sum loop's accumulator (eax/rax) starts.
enum class SumStart {
    kZero,      ///< `xor eax, eax`
    kConstant,  ///< `mov eax, k`
    kKeepRax,   ///< what rax holds on entry (a tail-jump target adds to it)
};

/// Emits f(n) = start + n + (n-1) + ... + 1 for n >= 1 (a counted loop of 3
/// instructions an iteration) at `where` (at most `capacity` bytes); with
/// `add_second_arg`, it then adds the int its second argument (rsi) points
/// to.  Line L: entry, L+1: the loop, L+2: the rest.
inline EmittedShape emit_sum_loop(std::uint8_t* where, std::size_t capacity, SumStart start,
                                  int k = 0, bool add_second_arg = false) {
    Emitter e(where, capacity);
    if (start == SumStart::kZero) e.xor_(e.eax, e.eax);
    if (start == SumStart::kConstant) e.mov(e.eax, k);
    e.mov(e.rcx, e.rdi);
    EmittedShape s;
    s.loop = e.getSize();
    Xbyak::Label top;
    e.L(top);
    e.add(e.rax, e.rcx);
    e.dec(e.rcx);
    e.jnz(top);
    s.tail = e.getSize();
    if (add_second_arg) e.add(e.eax, e.dword[e.rsi]);
    e.ret();
    e.ready();
    s.size = e.getSize();
    return s;
}

/// Emits a prologue that saves rbx, r12 and r13 and keeps the argument in
/// r12, then a loop that calls callee(argument) `times` times (an absolute
/// `call` through rax) and sums the results in r13.  Returns the offset of
/// the loop.  The caller goes on emitting (r12: the argument, r13: the
/// sum) and ends with emit_call_loop_epilogue() before its `ret`.
inline std::size_t emit_call_loop(Emitter& e, const void* callee, int times) {
    e.push(e.rbx);
    e.push(e.r12);
    e.push(e.r13);
    e.mov(e.r12, e.rdi);
    e.xor_(e.r13, e.r13);
    e.mov(e.ebx, times);
    const std::size_t loop = e.getSize();
    Xbyak::Label top;
    e.L(top);
    e.mov(e.rdi, e.r12);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(callee));
    e.call(e.rax);
    e.add(e.r13, e.rax);
    e.dec(e.rbx);
    e.jnz(top);
    return loop;
}

/// Restores what emit_call_loop() saved (rbx, r12, r13).
inline void emit_call_loop_epilogue(Emitter& e) {
    e.pop(e.r13);
    e.pop(e.r12);
    e.pop(e.rbx);
}

/// Emits f(n) = callee(n) * `times` summed, then + then_call(then_arg)
/// when `then_call` is not null (then_arg < 0: the argument n itself),
/// at `where` (at most `capacity` bytes).  Line L: the prologue, L+1: the
/// calling loop, L+2: the rest.
inline EmittedShape emit_repeat_caller(std::uint8_t* where, std::size_t capacity,
                                       const void* callee, int times,
                                       const void* then_call = nullptr, long then_arg = -1) {
    Emitter e(where, capacity);
    EmittedShape s;
    s.loop = emit_call_loop(e, callee, times);
    s.tail = e.getSize();
    if (then_call) {
        if (then_arg < 0)
            e.mov(e.rdi, e.r12);
        else
            e.mov(e.edi, static_cast<std::uint32_t>(then_arg));
        e.mov(e.rax, reinterpret_cast<std::uintptr_t>(then_call));
        e.call(e.rax);
        e.add(e.r13, e.rax);
    }
    e.mov(e.rax, e.r13);
    emit_call_loop_epilogue(e);
    e.ret();
    e.ready();
    s.size = e.getSize();
    return s;
}

/// Emits the naive recursive fib(n) = n < 2 ? n : fib(n-1) + fib(n-2) at
/// `where` (at most `capacity` bytes; about 50 are used).  Line L: the
/// test, L+1: the recursion, L+2: the base case.
inline EmittedShape emit_fib(std::uint8_t* where, std::size_t capacity) {
    Emitter e(where, capacity);
    EmittedShape s;
    Xbyak::Label entry, small;
    e.L(entry);
    e.cmp(e.rdi, 2);
    e.jl(small);
    s.loop = e.getSize();
    e.push(e.rbx);
    e.push(e.r12);
    e.push(e.r12);  // keeps the stack 16-byte aligned
    e.mov(e.rbx, e.rdi);
    e.lea(e.rdi, e.ptr[e.rbx - 1]);
    e.call(entry);
    e.mov(e.r12, e.rax);
    e.lea(e.rdi, e.ptr[e.rbx - 2]);
    e.call(entry);
    e.add(e.rax, e.r12);
    e.pop(e.r12);
    e.pop(e.r12);
    e.pop(e.rbx);
    e.ret();
    s.tail = e.getSize();
    e.L(small);
    e.mov(e.rax, e.rdi);
    e.ret();
    e.ready();
    s.size = e.getSize();
    return s;
}

/// What a frameless function does after its prologue.
enum class FramelessBody {
    kCall,         ///< calls `callee(rdi)` (absolute call through rax)
    kMallocLeak,   ///< calls `callee(40)` (malloc) and drops the result
    kInvalidRead,  ///< reads the int at rdi + 40 (past a 40-byte block)
};

/// Where a frameless function's frame changes, in bytes from its first
/// byte: the CFA (the stack pointer before the call that entered it) is
/// rsp+8 before `push_end`, rsp+16 before `frame_end` (rbp saved at
/// CFA-16 from `push_end` on), rsp+32 up to `unframe`, rsp+16 up to
/// `pop_end`, then rsp+8 again.
struct FramelessShape {
    std::size_t size = 0;
    std::size_t push_end = 0;   ///< after `push rbp`
    std::size_t frame_end = 0;  ///< after `sub rsp, 16`: the prologue
    std::size_t unframe = 0;    ///< after `add rsp, 16`
    std::size_t pop_end = 0;    ///< after `pop rbp`
};

/// Emits a function that keeps no frame pointer, as optimised JIT code
/// does: it saves rbp, reserves 16 bytes of frame, and uses rbp as a
/// scratch register (0) while its frame slots hold 0, so that neither the
/// frame-pointer chain nor the "return address at the stack pointer"
/// guess leads anywhere from inside it: only its CFI does.  Then `body`.
inline FramelessShape emit_frameless(std::uint8_t* where, std::size_t capacity, FramelessBody body,
                                     const void* callee) {
    Emitter e(where, capacity);
    FramelessShape s;
    e.push(e.rbp);
    s.push_end = e.getSize();
    e.sub(e.rsp, 16);
    s.frame_end = e.getSize();
    e.xor_(e.ebp, e.ebp);
    e.mov(e.qword[e.rsp], 0);
    e.mov(e.qword[e.rsp + 8], 0);
    switch (body) {
    case FramelessBody::kCall:
        e.mov(e.rax, reinterpret_cast<std::uintptr_t>(callee));
        e.call(e.rax);
        break;
    case FramelessBody::kMallocLeak:
        e.mov(e.edi, 40);
        e.mov(e.rax, reinterpret_cast<std::uintptr_t>(callee));
        e.call(e.rax);
        e.xor_(e.eax, e.eax);
        break;
    case FramelessBody::kInvalidRead: e.mov(e.eax, e.dword[e.rdi + 40]); break;
    }
    e.add(e.rsp, 16);
    s.unframe = e.getSize();
    e.pop(e.rbp);
    s.pop_end = e.getSize();
    e.ret();
    e.ready();
    s.size = e.getSize();
    return s;
}

/// Emits a frameless leaf as JITs emit a field read,
/// `mov rax, [rdi + 40]; ret` (5 bytes): it touches memory in its first
/// instruction and never moves rsp (CFA rsp+8 throughout).  Returns its
/// size in bytes.
inline std::size_t emit_field_read_leaf(std::uint8_t* where, std::size_t capacity) {
    Emitter e(where, capacity);
    e.mov(e.rax, e.qword[e.rdi + 40]);
    e.ret();
    e.ready();
    return e.getSize();
}

/// Where a frameless caller of emit_frameless_caller moves rsp, in bytes
/// from its first byte: CFA rsp+8 before `sub_end`, rsp+16 up to
/// `add_end`, then rsp+8.
struct FramelessCallerShape {
    std::size_t size = 0;
    std::size_t sub_end = 0;  ///< after `sub rsp, 8`
    std::size_t add_end = 0;  ///< after `add rsp, 8`
};

/// Emits `sub rsp, 8; call callee; add rsp, 8; ret` (a direct rel32
/// call: `callee` must lie within 2 GiB of `where`), passing rdi on.
inline FramelessCallerShape emit_frameless_caller(std::uint8_t* where, std::size_t capacity,
                                                  const void* callee) {
    Emitter e(where, capacity);
    FramelessCallerShape s;
    e.sub(e.rsp, 8);
    s.sub_end = e.getSize();
    e.call(callee);
    e.add(e.rsp, 8);
    s.add_end = e.getSize();
    e.ret();
    e.ready();
    s.size = e.getSize();
    return s;
}

}  // namespace testjit
