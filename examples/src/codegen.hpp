// codegen.hpp - x86-64 code generation (tier 0 and tier 1) for MiniJit.
//
// Part of the valgrind-jit example JIT (minijit).  The generators emit one
// function at a time with xbyak directly into a fresh CodeBuffer and return
// the code together with its line table.  They know nothing about Valgrind
// or about the engine's data structures: everything the generated code
// refers to (call slots, arrays, runtime helpers, counters) is passed in as
// plain addresses through CodegenEnv / Tier0Hooks.
//
// Calling convention of generated functions: System V AMD64 - up to six
// int64 arguments in rdi, rsi, rdx, rcx, r8, r9; the int64 result in rax;
// rbx, rbp, r12-r15 preserved; rsp 16-byte aligned at every call.  So the
// engine can call a compiled function through an ordinary C function pointer.
// Calls between generated functions are indirect through the callee's call
// slot (`call qword [slot]`), so re-pointing the slot (tier-up) redirects
// every caller, old code included.
//
// Frames: tier-0 code keeps rbp as frame pointer (it starts with
// `push rbp; mov rbp, rsp`); tier-1 code keeps none (rbp is one of its
// variable registers) and comes with call frame information
// (CompiledCode::eh_frame) that says, at every instruction, where the
// return address and the caller's registers are.

#ifndef MINIJIT_CODEGEN_HPP
#define MINIJIT_CODEGEN_HPP

#include "ast.hpp"
#include "code_buffer.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace minijit {

/// Kinds of runtime error the generated code can detect.
enum class RuntimeErrorKind {
    DivisionByZero,    ///< `/` or `%` with a zero divisor
    IndexOutOfBounds,  ///< array index < 0 or >= size (value = the index)
    StackOverflow      ///< the native stack went below the engine's limit
};

/// Everything the generated code refers to, supplied by the engine.
struct CodegenEnv {
    const Program* program = nullptr;
    /// Per function index: address of its call slot (a `void*` holding the
    /// entry address of the function's current code).
    std::vector<void* const*> call_slots;
    /// Per array index: first element (array sizes come from `program`).
    std::vector<std::int64_t*> array_bases;
    /// Generated code reports StackOverflow when rsp drops below this.
    std::uintptr_t stack_limit = 0;
    /// false: array indexes are not checked (an index out of bounds reads
    /// or writes outside the array: undefined behaviour, which Memcheck
    /// reports as an invalid read or write).
    bool bounds_checks = true;
    /// true: tier 1 inlines calls of leaf functions whose body is one
    /// `return EXPR;` made of constants, parameters, array reads and
    /// operators, when every argument is a constant or a variable
    /// (CompiledCode::inlined lists where).
    bool inline_leaves = false;
    /// Returns an opaque, stable pointer describing an error site; it is
    /// passed to `error_helper` in rdi (with a value in rsi).
    std::function<const void*(int line, RuntimeErrorKind kind, int array)> make_error_site;
    /// Returns an opaque, stable pointer describing a `print` statement; it
    /// is passed to `print_helper` in rdi, with rsi pointing at the values of
    /// the statement's expression items (last item at the lowest address).
    std::function<const void*(const Stmt& print)> make_print_site;
    /// `[[noreturn]] void(const void* site, int64_t value)`.
    const void* error_helper = nullptr;
    /// `void(const void* site, const int64_t* values)`.
    const void* print_helper = nullptr;
};

/// Extra addresses tier-0 code uses for tiering and safe code retirement.
struct Tier0Hooks {
    /// Incremented on every entry; when it becomes equal to `threshold`,
    /// the code calls `tier_up_helper(tier_up_arg)` once (threshold 0: never).
    std::uint64_t* call_counter = nullptr;
    std::uint64_t threshold = 0;
    const void* tier_up_helper = nullptr;  ///< `void(void* arg)`
    void* tier_up_arg = nullptr;
    /// Two words: [0] = number of activations of this code currently on
    /// the stack (incremented on entry, decremented on return); [1] =
    /// nonzero once the code is retired.  When a return brings [0] to zero
    /// while [1] is set, the code leaves its frame and tail-jumps to
    /// `retire_stub` with rdi = `retire_arg` (so that the stub can free it).
    std::uint64_t* activation = nullptr;
    const void* retire_stub = nullptr;
    void* retire_arg = nullptr;
};

/// A call that tier 1 inlined: the code bytes [offset, offset + size)
/// compute the body of function `func`, called at source line `call_line`.
struct InlinedCall {
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
    int func = -1;
    int call_line = 0;
};

/// One compiled function: its mapping (already read+execute), code size,
/// line table (pairs of code offset and 1-based source line, offsets
/// strictly increasing, each < size) and how to unwind through it.
struct CompiledCode {
    CodeBuffer buffer;
    std::size_t size = 0;
    std::vector<std::pair<std::uint32_t, int>> lines;
    /// Tier 0: the code starts with `push rbp; mov rbp, rsp`, this many
    /// bytes, and keeps rbp as frame pointer.  Tier 1: 0.
    std::size_t frame_pointer_prologue = 0;
    /// Tier 1: the code's call frame information, an .eh_frame section (one
    /// CIE, one FDE) built for the address eh_frame_addr (its PC-relative
    /// pointers count from there).  Tier 0: empty.
    std::vector<unsigned char> eh_frame;
    /// Where eh_frame is taken to lie: right after the code, where an ELF
    /// object puts .eh_frame after .text (so that the FDE's 4-byte
    /// PC-relative address reaches the code).
    std::uintptr_t eh_frame_addr = 0;
    /// Tier 1: the calls it inlined, in code order (none nest).
    std::vector<InlinedCall> inlined;
};

/// Tier 0: a straightforward one-pass compiler.  Every variable lives in
/// the stack frame, every binary operator goes through push/pop, and the
/// code counts calls (tier-up trigger) and live activations (retirement).
CompiledCode compile_tier0(const Function& fn, const CodegenEnv& env, const Tier0Hooks& hooks);

/// Tier 1: constant folding, the six most used (loop-weighted) variables
/// in callee-saved registers (rbx, r12-r15, rbp), register/immediate
/// operand forms instead of push/pop, fused compare-and-branch, rotated
/// loops, no frame pointer (CompiledCode::eh_frame describes the frames).
/// No counters.
CompiledCode compile_tier1(const Function& fn, const CodegenEnv& env);

}  // namespace minijit

#endif
