// codegen_gen.hpp - the class Gen that emits one function (both tiers).
//
// Part of the valgrind-jit example JIT (minijit), private to the code
// generator: the engine uses codegen.hpp.  Gen's member functions are
// defined by topic:
//
//   codegen.cpp        Gen::compile() and the entry points compile_tier0/1
//   codegen_frame.cpp  line table, variable locations, prologue and
//                      epilogue (frame pointer or CFI), error stubs
//   codegen_call.cpp   push depth, calls, inlining of leaf functions
//   codegen_expr.cpp   constant folding, expressions, compare-and-branch
//   codegen_stmt.cpp   statements

#ifndef MINIJIT_CODEGEN_GEN_HPP
#define MINIJIT_CODEGEN_GEN_HPP

#include "codegen.hpp"
#include "eh_frame.hpp"

#include <xbyak/xbyak.h>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <vector>

namespace minijit::codegen {

using Xbyak::Address;
using Xbyak::Reg64;
using namespace Xbyak::util;

/// Where a variable lives: a register or a frame slot.  Tier 0 addresses
/// its slots from the frame pointer, [rbp + disp] (disp < 0); tier 1 keeps
/// no frame pointer and addresses them from the stack pointer: disp is
/// the slot's offset from rsp when nothing is pushed (push depth 0).
struct Loc {
    bool in_reg = false;
    Reg64 reg;
    int disp = 0;
};

/// An operand that needs no code to compute: a 32-bit immediate or a
/// variable's location.
struct Simple {
    enum class Kind { None, Imm, Var } kind = Kind::None;
    std::int32_t imm = 0;
    Loc loc;
};

/// A value that may be a compile-time constant.  (Unlike std::optional, the
/// value is always initialised: GCC may read an optional's payload before
/// its flag when both are tested in one condition, which Memcheck reports.)
struct Folded {
    bool known = false;
    std::int64_t value = 0;
    Folded() = default;
    Folded(std::int64_t v) : known(true), value(v) {}
    explicit operator bool() const { return known; }
    std::int64_t operator*() const { return value; }
};

/// The value of `e` if it is a compile-time constant (tier 1 folding).
Folded const_value(const Expr& e);

// The argument registers of the System V calling convention, in order.
const Reg64 kArgRegs[kMaxParams] = {rdi, rsi, rdx, rcx, r8, r9};

/// Emits one function.  Both tiers share the statement structure; the
/// expression and branch emitters differ (tier1_), and so do the frames:
///
///   tier 0: push rbp; mov rbp, rsp; sub rsp, N (16-byte multiple); the
///           slots at [rbp - 8k]; rbp is the frame pointer throughout.
///   tier 1: push each variable register used (rbx, r12..r15, rbp); sub
///           rsp, N (spilled slots and alignment); the slots at [rsp + 8j
///           + 8 * depth], depth being the 8-byte words pushed since (by
///           expressions, print statements and call alignment).  No frame
///           pointer: cfi() says where the return address and the saved
///           registers are at every instruction.
///
/// In both, rsp is 16-byte aligned at depth 0, so a call needs one word of
/// padding exactly when the depth is odd.
class Gen : public Xbyak::CodeGenerator {
public:
    Gen(std::size_t capacity, std::uint8_t* buffer, const Function& fn, const CodegenEnv& env,
        const Tier0Hooks* hooks)
        : CodeGenerator(capacity, buffer),
          fn_(fn),
          env_(env),
          hooks_(hooks),
          tier1_(hooks == nullptr) {
        setDefaultJmpNEAR(true);
    }

    void compile();

    std::vector<std::pair<std::uint32_t, int>> lines;
    std::vector<InlinedCall> inlined;

    /// Tier 1: the code's call frame information, row by row.
    const ehframe::FrameCfi& cfi() const { return cfi_; }
    /// Tier 0: bytes of "push rbp; mov rbp, rsp" at the start.
    std::size_t frame_pointer_prologue() const { return fp_prologue_; }

private:
    struct Stub {
        Xbyak::Label label;
        const void* site = nullptr;
        int line = 0;
        int depth = 0;  // push depth at the jumps to the stub
    };
    struct Loop {
        Xbyak::Label* break_target;
        Xbyak::Label* continue_target;
    };

    const Function& fn_;
    const CodegenEnv& env_;
    const Tier0Hooks* hooks_;
    const bool tier1_;
    std::vector<Loc> locs_;
    std::vector<Reg64> saved_;                           // tier 1: callee-saved registers used
    int frame_bytes_ = 0;                                // bytes below the saved registers
    int depth_ = 0;                                      // 8-byte pushes outstanding
    int frame_cfa_ = 0;                                  // tier 1: CFA - rsp at depth 0
    std::size_t fp_prologue_ = 0;                        // tier 0: see frame_pointer_prologue()
    ehframe::FrameCfi cfi_;                              // tier 1
    std::list<Stub> stubs_;                              // out-of-line error paths
    std::vector<std::unique_ptr<Expr>> inlined_bodies_;  // kept while emitting
    std::vector<Loop> loops_;
    Xbyak::Label ret_label_, body_label_, tier_up_label_;

    // codegen_frame.cpp: line table, variable locations, prologue and
    // epilogue, error stubs.
    void mark(int line);
    void assign_locations_tier0();
    void count_uses(const Expr& e, int loop_depth, std::vector<std::uint64_t>& uses);
    void count_uses(const Block& b, int loop_depth, std::vector<std::uint64_t>& uses);
    void assign_locations_tier1();
    Address mem(const Loc& l);
    void load(const Reg64& dst, const Loc& l);
    void store(const Loc& l, const Reg64& src);
    void mov_imm(const Reg64& dst, std::int64_t v);
    void mov_addr(const Reg64& dst, const void* p);
    Simple simple(const Expr& e);
    void load_simple(const Reg64& dst, const Simple& s);
    void stack_check();
    void note_stack();
    void note_saved_registers();
    void prologue();
    void epilogue();
    Xbyak::Label& error_stub(int line, RuntimeErrorKind kind, int array);
    void emit_stubs();

    // codegen_call.cpp: push depth, calls, inlining.
    void push_rax();
    void pop_reg(const Reg64& r);
    void aligned_call(const std::function<void()>& emit_call);
    void emit_call(const Expr& e);
    static bool leaf_expr(const Expr& e, int n_params);
    const Expr* inlinable_body(const Expr& call) const;
    static std::unique_ptr<Expr> substitute(const Expr& e, const Expr& call);
    void emit_inlined(const Expr& call, const Expr& body);

    // codegen_expr.cpp: expressions and branches.
    void emit_divide(Op op, int line);
    void apply_reg(Op op, int line);
    void apply_simple(Op op, const Simple& s, int line);
    void jcc(Op cond, Xbyak::Label& target);
    void compare_set(Op cond, const Reg64& a, const Reg64& b);
    void set_from_flags(Op cond);
    Op emit_compare(const Expr& e);
    void emit_branch(const Expr& e, bool when, Xbyak::Label& target);
    void emit_index_load(const Expr& e);
    void emit_expr(const Expr& e);

    // codegen_stmt.cpp: statements.
    void emit_block(const Block& b);
    bool emit_assign_fast(const Loc& dst, int slot, const Expr& e);
    void emit_index_store(const Stmt& s);
    void emit_print(const Stmt& s);
    void emit_while(const Stmt& s);
    void emit_stmt(const Stmt& s);
};

}  // namespace minijit::codegen

#endif
