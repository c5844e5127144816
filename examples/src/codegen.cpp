// codegen.cpp - x86-64 code generation (tier 0 and tier 1) for MiniJit.

#include "codegen.hpp"
#include "eh_frame.hpp"

#include <xbyak/xbyak.h>

#include <algorithm>
#include <list>

namespace minijit {

namespace {

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

bool is_comparison(Op op) {
    return op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Le || op == Op::Gt ||
           op == Op::Ge;
}

Op negate_cond(Op op) {
    switch (op) {
    case Op::Eq: return Op::Ne;
    case Op::Ne: return Op::Eq;
    case Op::Lt: return Op::Ge;
    case Op::Le: return Op::Gt;
    case Op::Gt: return Op::Le;
    case Op::Ge: return Op::Lt;
    default: return op;
    }
}

// The condition that holds for (b OP' a) when (a OP b) holds.
Op swap_cond(Op op) {
    switch (op) {
    case Op::Lt: return Op::Gt;
    case Op::Le: return Op::Ge;
    case Op::Gt: return Op::Lt;
    case Op::Ge: return Op::Le;
    default: return op;
    }
}

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

// Wrapping 64-bit arithmetic with the language's semantics (x / -1 == -x
// with wrap-around, x % -1 == 0).  Division by zero is not folded.
Folded fold_binary(Op op, std::int64_t a, std::int64_t b) {
    auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    switch (op) {
    case Op::Add: return static_cast<std::int64_t>(ua + ub);
    case Op::Sub: return static_cast<std::int64_t>(ua - ub);
    case Op::Mul: return static_cast<std::int64_t>(ua * ub);
    case Op::Div:
        if (b == 0) return Folded();
        if (b == -1) return static_cast<std::int64_t>(0 - ua);
        return a / b;
    case Op::Mod:
        if (b == 0) return Folded();
        if (b == -1) return 0;
        return a % b;
    case Op::Eq: return a == b;
    case Op::Ne: return a != b;
    case Op::Lt: return a < b;
    case Op::Le: return a <= b;
    case Op::Gt: return a > b;
    case Op::Ge: return a >= b;
    case Op::And: return (a != 0) && (b != 0);
    case Op::Or: return (a != 0) || (b != 0);
    default: return Folded();
    }
}

/// The value of `e` if it is a compile-time constant (tier 1 folding).
Folded const_value(const Expr& e) {
    switch (e.kind) {
    case Expr::Kind::Int: return e.value;
    case Expr::Kind::Unary: {
        auto v = const_value(*e.args[0]);
        if (!v) return Folded();
        if (e.op == Op::Neg) return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(*v));
        return *v == 0;
    }
    case Expr::Kind::Binary: {
        auto a = const_value(*e.args[0]);
        if (e.op == Op::And && a && *a == 0) return 0;  // rhs never runs
        if (e.op == Op::Or && a && *a != 0) return 1;
        auto b = const_value(*e.args[1]);
        if (!a || !b) return Folded();
        return fold_binary(e.op, *a, *b);
    }
    default: return Folded();
    }
}

bool fits_int32(std::int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

const Reg64 kArgRegs[kMaxParams] = {rdi, rsi, rdx, rcx, r8, r9};
// Tier 1's variable registers, callee-saved: rbp is an ordinary one there.
const Reg64 kSavedRegs[] = {rbx, r12, r13, r14, r15, rbp};

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

    void compile() {
        if (tier1_)
            assign_locations_tier1();
        else
            assign_locations_tier0();
        prologue();
        emit_block(fn_.body);
        mark(fn_.end_line);
        xor_(eax, eax);  // falling off the end returns 0
        epilogue();
        emit_stubs();
        ready();
    }

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

    // ------------------------------------------------------ line table --

    void mark(int line) {
        auto off = static_cast<std::uint32_t>(getSize());
        if (!lines.empty()) {
            if (lines.back().second == line) return;
            if (lines.back().first == off) {
                lines.back().second = line;
                if (lines.size() >= 2 && lines[lines.size() - 2].second == line) lines.pop_back();
                return;
            }
        }
        lines.emplace_back(off, line);
    }

    // ------------------------------------------------------ locations --

    void assign_locations_tier0() {
        locs_.resize(fn_.num_slots);
        for (int i = 0; i < fn_.num_slots; ++i) locs_[i].disp = -8 * (i + 1);
        frame_bytes_ = (fn_.num_slots * 8 + 15) / 16 * 16;
    }

    void count_uses(const Expr& e, int loop_depth, std::vector<std::uint64_t>& uses) {
        if (e.kind == Expr::Kind::Var)
            uses[e.slot] += std::uint64_t(1) << (3 * std::min(loop_depth, 6));
        for (const auto& a : e.args) count_uses(*a, loop_depth, uses);
    }

    void count_uses(const Block& b, int loop_depth, std::vector<std::uint64_t>& uses) {
        for (const auto& s : b) {
            const std::uint64_t w = std::uint64_t(1) << (3 * std::min(loop_depth, 6));
            if (s->kind == Stmt::Kind::VarDecl || s->kind == Stmt::Kind::Assign) uses[s->slot] += w;
            if (s->index) count_uses(*s->index, loop_depth, uses);
            if (s->expr)
                count_uses(*s->expr, s->kind == Stmt::Kind::While ? loop_depth + 1 : loop_depth,
                           uses);
            for (const auto& it : s->items)
                if (it.expr) count_uses(*it.expr, loop_depth, uses);
            count_uses(s->body, s->kind == Stmt::Kind::While ? loop_depth + 1 : loop_depth, uses);
            count_uses(s->else_body, loop_depth, uses);
        }
    }

    void assign_locations_tier1() {
        std::vector<std::uint64_t> uses(fn_.num_slots, 0);
        for (int i = 0; i < fn_.num_params; ++i) uses[i] += 1;
        count_uses(fn_.body, 0, uses);
        std::vector<int> order(fn_.num_slots);
        for (int i = 0; i < fn_.num_slots; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return uses[a] > uses[b]; });
        locs_.resize(fn_.num_slots);
        const int nregs = static_cast<int>(sizeof kSavedRegs / sizeof kSavedRegs[0]);
        int spilled = 0;
        for (int slot : order) {
            if (static_cast<int>(saved_.size()) < nregs && uses[slot] > 0) {
                locs_[slot].in_reg = true;
                locs_[slot].reg = kSavedRegs[saved_.size()];
                saved_.push_back(locs_[slot].reg);
            } else {
                ++spilled;
            }
        }
        const int k = static_cast<int>(saved_.size());
        int j = 0;
        for (int slot : order)
            if (!locs_[slot].in_reg) locs_[slot].disp = 8 * j++;
        // The return address and the saved registers above the slots:
        // round the frame so that rsp is 16-byte aligned at depth 0.
        frame_bytes_ = spilled * 8;
        if ((8 + k * 8 + frame_bytes_) % 16 != 0) frame_bytes_ += 8;
    }

    Address mem(const Loc& l) {
        if (tier1_) return qword[rsp + (l.disp + 8 * depth_)];
        return qword[rbp + l.disp];
    }

    void load(const Reg64& dst, const Loc& l) {
        if (l.in_reg) {
            if (dst.getIdx() != l.reg.getIdx()) mov(dst, l.reg);
        } else {
            mov(dst, mem(l));
        }
    }

    void store(const Loc& l, const Reg64& src) {
        if (l.in_reg) {
            if (src.getIdx() != l.reg.getIdx()) mov(l.reg, src);
        } else {
            mov(mem(l), src);
        }
    }

    void mov_imm(const Reg64& dst, std::int64_t v) {
        if (v == 0)
            xor_(Xbyak::Reg32(dst.getIdx()), Xbyak::Reg32(dst.getIdx()));
        else
            mov(dst, static_cast<std::uint64_t>(v));
    }

    void mov_addr(const Reg64& dst, const void* p) { mov(dst, reinterpret_cast<std::uint64_t>(p)); }

    Simple simple(const Expr& e) {
        Simple s;
        if (!tier1_) return s;
        if (e.kind == Expr::Kind::Var) {
            s.kind = Simple::Kind::Var;
            s.loc = locs_[e.slot];
        } else if (auto c = const_value(e)) {
            if (fits_int32(*c)) {
                s.kind = Simple::Kind::Imm;
                s.imm = static_cast<std::int32_t>(*c);
            }
        }
        return s;
    }

    void load_simple(const Reg64& dst, const Simple& s) {
        if (s.kind == Simple::Kind::Imm)
            mov_imm(dst, s.imm);
        else
            load(dst, s.loc);
    }

    // ---------------------------------------------- prologue/epilogue --

    void stack_check() {
        mov_addr(rax, reinterpret_cast<const void*>(env_.stack_limit));
        cmp(rsp, rax);
        jb(error_stub(fn_.line, RuntimeErrorKind::StackOverflow, -1));
    }

    // Tier 1: from here on, the CFA is rsp + frame_cfa_ + 8 * depth_.
    void note_stack() {
        if (tier1_) cfi_.set_cfa_offset(getSize(), frame_cfa_ + 8 * depth_);
    }

    // Tier 1: from here on, the registers of saved_ are in their slots
    // below the return address (the first one pushed right below it).
    void note_saved_registers() {
        for (std::size_t i = 0; i < saved_.size(); ++i)
            cfi_.save_register(getSize(), ehframe::dwarf_register(saved_[i].getIdx()),
                               16 + 8 * static_cast<int>(i));
    }

    void prologue() {
        mark(fn_.line);
        if (tier1_) {
            frame_cfa_ = 8;
            for (const auto& r : saved_) {
                push(r);
                frame_cfa_ += 8;
                cfi_.set_cfa_offset(getSize(), frame_cfa_);
            }
            note_saved_registers();
            if (frame_bytes_) sub(rsp, frame_bytes_);
            frame_cfa_ += frame_bytes_;
            note_stack();
        } else {
            push(rbp);
            mov(rbp, rsp);
            fp_prologue_ = getSize();
            if (frame_bytes_) sub(rsp, frame_bytes_);
        }
        stack_check();
        for (int i = 0; i < fn_.num_params; ++i) store(locs_[i], kArgRegs[i]);
        if (!tier1_) {
            mov_addr(rax, hooks_->activation);
            inc(qword[rax]);
            if (hooks_->threshold) {
                mov_addr(rax, hooks_->call_counter);
                inc(qword[rax]);
                cmp(qword[rax], static_cast<std::uint32_t>(hooks_->threshold));
                je(tier_up_label_);
            }
        }
        L(body_label_);
    }

    void epilogue() {
        L(ret_label_);
        if (!tier1_) {
            Xbyak::Label leave_ret, zero;
            mov_addr(rcx, hooks_->activation);
            dec(qword[rcx]);
            jz(zero);
            L(leave_ret);
            leave();
            ret();
            L(zero);
            cmp(qword[rcx + 8], 0);
            je(leave_ret);
            leave();
            mov_addr(rdi, hooks_->retire_arg);
            mov_addr(rcx, hooks_->retire_stub);
            jmp(rcx);
            if (hooks_->threshold) {
                L(tier_up_label_);
                mark(fn_.line);
                mov_addr(rdi, hooks_->tier_up_arg);
                mov_addr(rax, hooks_->tier_up_helper);
                call(rax);
                jmp(body_label_);
            }
            return;
        }
        int cfa = frame_cfa_;
        if (frame_bytes_) {
            add(rsp, frame_bytes_);
            cfa -= frame_bytes_;
            cfi_.set_cfa_offset(getSize(), cfa);
        }
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
            pop(*it);
            cfa -= 8;
            cfi_.set_cfa_offset(getSize(), cfa);
            cfi_.restore_register(getSize(), ehframe::dwarf_register(it->getIdx()));
        }
        ret();
    }

    Xbyak::Label& error_stub(int line, RuntimeErrorKind kind, int array) {
        stubs_.emplace_back();
        Stub& s = stubs_.back();
        s.site = env_.make_error_site(line, kind, array);
        s.line = line;
        s.depth = depth_;
        return s.label;
    }

    // The out-of-line error paths, after the epilogue: each is entered
    // with the frame (and push depth) of the code that jumps to it, and
    // calls the error helper, which does not return.
    void emit_stubs() {
        for (auto& s : stubs_) {
            L(s.label);
            mark(s.line);
            depth_ = s.depth;
            note_stack();
            if (tier1_) note_saved_registers();
            mov(rsi, rax);  // the offending value (array index)
            mov_addr(rdi, s.site);
            aligned_call([&] {
                mov_addr(rax, env_.error_helper);
                call(rax);
            });
            ud2();
        }
        depth_ = 0;
    }

    // ---------------------------------------------------------- calls --

    void push_rax() {
        push(rax);
        ++depth_;
        note_stack();
    }

    void pop_reg(const Reg64& r) {
        pop(r);
        --depth_;
        note_stack();
    }

    // Calls through an absolute address held in rax, keeping rsp aligned.
    void aligned_call(const std::function<void()>& emit_call) {
        const bool pad = depth_ % 2 != 0;
        if (pad) {
            sub(rsp, 8);
            ++depth_;
            note_stack();
        }
        emit_call();
        if (pad) {
            add(rsp, 8);
            --depth_;
            note_stack();
        }
    }

    void emit_call(const Expr& e) {
        const std::size_t n = e.args.size();
        std::vector<int> complex;
        for (std::size_t i = 0; i < n; ++i)
            if (simple(*e.args[i]).kind == Simple::Kind::None)
                complex.push_back(static_cast<int>(i));
        // Tier 0: every argument is "complex" (evaluated and pushed).  Tier 1:
        // complex arguments are evaluated left to right, all but the last
        // pushed; simple ones (constants, variables) are loaded at the end.
        for (std::size_t k = 0; k < complex.size(); ++k) {
            emit_expr(*e.args[complex[k]]);
            if (tier1_ && k + 1 == complex.size())
                mov(kArgRegs[complex[k]], rax);
            else
                push_rax();
        }
        for (std::size_t k = complex.size(); k-- > 0;) {
            if (tier1_ && k + 1 == complex.size()) continue;
            pop_reg(kArgRegs[complex[k]]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            Simple s = simple(*e.args[i]);
            if (s.kind != Simple::Kind::None) load_simple(kArgRegs[i], s);
        }
        aligned_call([&] {
            mov_addr(rax, env_.call_slots[e.func]);
            call(qword[rax]);
        });
    }

    // ------------------------------------------------------- inlining --

    // Whether `e` uses only constants, the first n_params slots, array
    // reads and operators (no calls).
    static bool leaf_expr(const Expr& e, int n_params) {
        if (e.kind == Expr::Kind::Call) return false;
        if (e.kind == Expr::Kind::Var) return e.slot < n_params;
        for (const auto& a : e.args)
            if (!leaf_expr(*a, n_params)) return false;
        return true;
    }

    // The expression a call `call` may be replaced by, or null: the
    // callee's `return EXPR;` (its only statement, a leaf expression),
    // with arguments that are constants or variables, so that evaluating
    // them once, in any order, or not at all changes nothing.
    const Expr* inlinable_body(const Expr& call) const {
        if (!tier1_ || !env_.inline_leaves) return nullptr;
        const Function& callee = *env_.program->functions[call.func];
        if (&callee == &fn_ || callee.body.size() != 1) return nullptr;
        const Stmt& s = *callee.body[0];
        if (s.kind != Stmt::Kind::Return || !s.expr || !leaf_expr(*s.expr, callee.num_params))
            return nullptr;
        for (const auto& a : call.args)
            if (a->kind != Expr::Kind::Int && a->kind != Expr::Kind::Var) return nullptr;
        return s.expr.get();
    }

    // A copy of the callee's expression `e` with each parameter replaced
    // by the caller's argument.
    static std::unique_ptr<Expr> substitute(const Expr& e, const Expr& call) {
        const Expr& from = e.kind == Expr::Kind::Var ? *call.args[e.slot] : e;
        auto out = std::make_unique<Expr>(from.kind, from.line);
        out->value = from.value;
        out->slot = from.slot;
        out->array = from.array;
        out->func = from.func;
        out->op = from.op;
        out->name = from.name;
        out->height = from.height;
        if (e.kind != Expr::Kind::Var)
            for (const auto& a : e.args) out->args.push_back(substitute(*a, call));
        return out;
    }

    // Emits the body of the callee of `call` in place of the call: its
    // code carries the callee's line, and is listed in `inlined`.
    void emit_inlined(const Expr& call, const Expr& body) {
        const Function& callee = *env_.program->functions[call.func];
        inlined_bodies_.push_back(substitute(body, call));
        const int caller_line = lines.empty() ? call.line : lines.back().second;
        const auto start = static_cast<std::uint32_t>(getSize());
        mark(callee.body[0]->line);
        emit_expr(*inlined_bodies_.back());
        const auto end = static_cast<std::uint32_t>(getSize());
        mark(caller_line);
        if (end > start) inlined.push_back({start, end - start, call.func, call.line});
    }

    // ---------------------------------------------------- expressions --

    // Divides rax by rcx (or computes the remainder) with the language's
    // semantics; division by zero jumps to an error stub.
    void emit_divide(Op op, int line) {
        Xbyak::Label normal, done;
        test(rcx, rcx);
        jz(error_stub(line, RuntimeErrorKind::DivisionByZero, -1));
        cmp(rcx, -1);
        jne(normal);
        if (op == Op::Div)
            neg(rax);
        else
            xor_(eax, eax);
        jmp(done);
        L(normal);
        cqo();
        idiv(rcx);
        if (op == Op::Mod) mov(rax, rdx);
        L(done);
    }

    // rax = rax OP rcx
    void apply_reg(Op op, int line) {
        switch (op) {
        case Op::Add: add(rax, rcx); break;
        case Op::Sub: sub(rax, rcx); break;
        case Op::Mul: imul(rax, rcx); break;
        case Op::Div:
        case Op::Mod: emit_divide(op, line); break;
        default: compare_set(op, rax, rcx); break;
        }
    }

    // rax = rax OP simple (tier 1 only)
    void apply_simple(Op op, const Simple& s, int line) {
        if (s.kind == Simple::Kind::Imm) {
            const std::int32_t c = s.imm;
            switch (op) {
            case Op::Add:
                if (c) add(rax, c);
                return;
            case Op::Sub:
                if (c) sub(rax, c);
                return;
            case Op::Mul:
                if (c == 1) return;
                if (c > 0 && (c & (c - 1)) == 0) {
                    int sh = 0;
                    while ((std::int32_t(1) << sh) != c) ++sh;
                    shl(rax, sh);
                } else {
                    imul(rax, rax, c);
                }
                return;
            case Op::Div:
            case Op::Mod:
                if (c == 0) {
                    jmp(error_stub(line, RuntimeErrorKind::DivisionByZero, -1));
                } else if (c == -1) {
                    if (op == Op::Div)
                        neg(rax);
                    else
                        xor_(eax, eax);
                } else {
                    mov(rcx, c);
                    cqo();
                    idiv(rcx);
                    if (op == Op::Mod) mov(rax, rdx);
                }
                return;
            default: break;
            }
        } else if (op == Op::Add || op == Op::Sub || op == Op::Mul) {
            const Loc& l = s.loc;
            if (l.in_reg) {
                if (op == Op::Add)
                    add(rax, l.reg);
                else if (op == Op::Sub)
                    sub(rax, l.reg);
                else
                    imul(rax, l.reg);
            } else {
                if (op == Op::Add)
                    add(rax, mem(l));
                else if (op == Op::Sub)
                    sub(rax, mem(l));
                else
                    imul(rax, mem(l));
            }
            return;
        }
        load_simple(rcx, s);
        apply_reg(op, line);
    }

    void jcc(Op cond, Xbyak::Label& target) {
        switch (cond) {
        case Op::Eq: je(target); break;
        case Op::Ne: jne(target); break;
        case Op::Lt: jl(target); break;
        case Op::Le: jle(target); break;
        case Op::Gt: jg(target); break;
        case Op::Ge: jge(target); break;
        default: break;
        }
    }

    // rax = (a COND b) ? 1 : 0
    void compare_set(Op cond, const Reg64& a, const Reg64& b) {
        cmp(a, b);
        set_from_flags(cond);
    }

    void set_from_flags(Op cond) {
        switch (cond) {
        case Op::Eq: sete(al); break;
        case Op::Ne: setne(al); break;
        case Op::Lt: setl(al); break;
        case Op::Le: setle(al); break;
        case Op::Gt: setg(al); break;
        case Op::Ge: setge(al); break;
        default: break;
        }
        movzx(eax, al);
    }

    // Tier 1: compares the operands of a comparison, leaving the flags set;
    // returns the condition to test (the operands may have been swapped).
    Op emit_compare(const Expr& e) {
        const Expr* a = e.args[0].get();
        const Expr* b = e.args[1].get();
        Op cond = e.op;
        if (const_value(*a) && !const_value(*b)) {
            std::swap(a, b);
            cond = swap_cond(cond);
        }
        Simple sb = simple(*b);
        if (sb.kind != Simple::Kind::None) {
            Reg64 left = rax;
            if (a->kind == Expr::Kind::Var && locs_[a->slot].in_reg)
                left = locs_[a->slot].reg;
            else
                emit_expr(*a);
            if (sb.kind == Simple::Kind::Imm) {
                if (sb.imm == 0)
                    test(left, left);
                else
                    cmp(left, sb.imm);
            } else if (sb.loc.in_reg) {
                cmp(left, sb.loc.reg);
            } else {
                cmp(left, mem(sb.loc));
            }
            return cond;
        }
        Simple sa = simple(*a);
        if (sa.kind == Simple::Kind::Var) {
            emit_expr(*b);
            if (sa.loc.in_reg)
                cmp(sa.loc.reg, rax);
            else
                cmp(mem(sa.loc), rax);
            return cond;
        }
        emit_expr(*a);
        push_rax();
        emit_expr(*b);
        mov(rcx, rax);
        pop_reg(rax);
        cmp(rax, rcx);
        return cond;
    }

    // Jumps to `target` if the truth of `e` equals `when`.
    void emit_branch(const Expr& e, bool when, Xbyak::Label& target) {
        if (!tier1_) {
            emit_expr(e);
            test(rax, rax);
            if (when)
                jnz(target);
            else
                jz(target);
            return;
        }
        if (auto c = const_value(e)) {
            if ((*c != 0) == when) jmp(target);
            return;
        }
        if (e.kind == Expr::Kind::Unary && e.op == Op::Not) {
            emit_branch(*e.args[0], !when, target);
            return;
        }
        if (e.kind == Expr::Kind::Binary && (e.op == Op::And || e.op == Op::Or)) {
            // And: false if either is false.  Or: true if either is true.
            const bool short_circuit_value = e.op == Op::Or;
            if (when == short_circuit_value) {
                emit_branch(*e.args[0], when, target);
                emit_branch(*e.args[1], when, target);
            } else {
                Xbyak::Label skip;
                emit_branch(*e.args[0], !when, skip);
                emit_branch(*e.args[1], when, target);
                L(skip);
            }
            return;
        }
        if (e.kind == Expr::Kind::Binary && is_comparison(e.op)) {
            Op cond = emit_compare(e);
            jcc(when ? cond : negate_cond(cond), target);
            return;
        }
        emit_expr(e);
        test(rax, rax);
        if (when)
            jnz(target);
        else
            jz(target);
    }

    void emit_index_load(const Expr& e) {
        const ArrayDecl& a = env_.program->arrays[e.array];
        Simple si = simple(*e.args[0]);
        if (si.kind != Simple::Kind::None)
            load_simple(rax, si);
        else
            emit_expr(*e.args[0]);
        if (env_.bounds_checks) {
            cmp(rax, static_cast<std::uint32_t>(a.size));
            jae(error_stub(e.line, RuntimeErrorKind::IndexOutOfBounds, e.array));
        }
        mov_addr(rcx, env_.array_bases[e.array]);
        mov(rax, qword[rcx + rax * 8]);
    }

    // Evaluates `e` into rax.
    void emit_expr(const Expr& e) {
        if (tier1_) {
            if (auto c = const_value(e)) {
                mov_imm(rax, *c);
                return;
            }
        }
        switch (e.kind) {
        case Expr::Kind::Int: mov_imm(rax, e.value); return;
        case Expr::Kind::Var: load(rax, locs_[e.slot]); return;
        case Expr::Kind::Index: emit_index_load(e); return;
        case Expr::Kind::Call:
            if (const Expr* body = inlinable_body(e))
                emit_inlined(e, *body);
            else
                emit_call(e);
            return;
        case Expr::Kind::Unary:
            if (e.op == Op::Neg) {
                emit_expr(*e.args[0]);
                neg(rax);
            } else {
                emit_expr(*e.args[0]);
                test(rax, rax);
                sete(al);
                movzx(eax, al);
            }
            return;
        case Expr::Kind::Binary: break;
        }
        if (e.op == Op::And || e.op == Op::Or) {
            // And: 0 as soon as an operand is false; Or: 1 as soon as one
            // is true.
            const bool short_circuit_value = e.op == Op::Or;
            Xbyak::Label short_circuit, done;
            emit_branch(*e.args[0], short_circuit_value, short_circuit);
            emit_branch(*e.args[1], short_circuit_value, short_circuit);
            mov_imm(rax, short_circuit_value ? 0 : 1);
            jmp(done);
            L(short_circuit);
            mov_imm(rax, short_circuit_value ? 1 : 0);
            L(done);
            return;
        }
        if (tier1_) {
            if (is_comparison(e.op)) {
                set_from_flags(emit_compare(e));
                return;
            }
            Simple sb = simple(*e.args[1]);
            if (sb.kind != Simple::Kind::None) {
                emit_expr(*e.args[0]);
                apply_simple(e.op, sb, e.line);
                return;
            }
            Simple sa = simple(*e.args[0]);
            if (sa.kind != Simple::Kind::None) {
                emit_expr(*e.args[1]);
                mov(rcx, rax);
                load_simple(rax, sa);
                apply_reg(e.op, e.line);
                return;
            }
        }
        emit_expr(*e.args[0]);
        push_rax();
        emit_expr(*e.args[1]);
        mov(rcx, rax);
        pop_reg(rax);
        apply_reg(e.op, e.line);
    }

    // ----------------------------------------------------- statements --

    void emit_block(const Block& b) {
        for (const auto& s : b) emit_stmt(*s);
    }

    // Tier 1: `x = x OP simple` updated in place, `x = simple` moved.
    bool emit_assign_fast(const Loc& dst, int slot, const Expr& e) {
        if (!tier1_) return false;
        Simple s = simple(e);
        if (s.kind == Simple::Kind::Imm) {
            if (dst.in_reg)
                mov_imm(dst.reg, s.imm);
            else
                mov(mem(dst), s.imm);
            return true;
        }
        if (s.kind == Simple::Kind::Var && (dst.in_reg || s.loc.in_reg)) {
            if (dst.in_reg)
                load(dst.reg, s.loc);
            else
                mov(mem(dst), s.loc.reg);
            return true;
        }
        if (e.kind == Expr::Kind::Binary && (e.op == Op::Add || e.op == Op::Sub) &&
            e.args[0]->kind == Expr::Kind::Var && e.args[0]->slot == slot) {
            Simple r = simple(*e.args[1]);
            if (r.kind == Simple::Kind::Imm) {
                if (dst.in_reg) {
                    if (e.op == Op::Add)
                        add(dst.reg, r.imm);
                    else
                        sub(dst.reg, r.imm);
                } else {
                    if (e.op == Op::Add)
                        add(mem(dst), r.imm);
                    else
                        sub(mem(dst), r.imm);
                }
                return true;
            }
            if (r.kind == Simple::Kind::Var && (dst.in_reg || r.loc.in_reg)) {
                const Reg64 src = r.loc.in_reg ? r.loc.reg : rax;
                if (!r.loc.in_reg) load(rax, r.loc);
                if (dst.in_reg) {
                    if (e.op == Op::Add)
                        add(dst.reg, src);
                    else
                        sub(dst.reg, src);
                } else {
                    if (e.op == Op::Add)
                        add(mem(dst), src);
                    else
                        sub(mem(dst), src);
                }
                return true;
            }
        }
        return false;
    }

    void emit_index_store(const Stmt& s) {
        const ArrayDecl& a = env_.program->arrays[s.array];
        Simple si = simple(*s.index);
        Simple sv = simple(*s.expr);
        if (si.kind != Simple::Kind::None) {
            emit_expr(*s.expr);
            mov(rdx, rax);
            load_simple(rax, si);
        } else if (sv.kind != Simple::Kind::None) {
            emit_expr(*s.index);
            load_simple(rdx, sv);
        } else {
            emit_expr(*s.index);
            push_rax();
            emit_expr(*s.expr);
            mov(rdx, rax);
            pop_reg(rax);
        }
        if (env_.bounds_checks) {
            cmp(rax, static_cast<std::uint32_t>(a.size));
            jae(error_stub(s.line, RuntimeErrorKind::IndexOutOfBounds, s.array));
        }
        mov_addr(rcx, env_.array_bases[s.array]);
        mov(qword[rcx + rax * 8], rdx);
    }

    void emit_print(const Stmt& s) {
        int pushed = 0;
        for (const auto& it : s.items) {
            if (it.is_string) continue;
            emit_expr(*it.expr);
            push_rax();
            ++pushed;
        }
        mov(rsi, rsp);
        mov_addr(rdi, env_.make_print_site(s));
        aligned_call([&] {
            mov_addr(rax, env_.print_helper);
            call(rax);
        });
        if (pushed) add(rsp, 8 * pushed);
        depth_ -= pushed;
        note_stack();
    }

    void emit_while(const Stmt& s) {
        Xbyak::Label top, cond, end;
        loops_.push_back({&end, &cond});
        if (tier1_) {
            // Rotated: test at the bottom, one taken branch per iteration.
            jmp(cond);
            L(top);
            emit_block(s.body);
            mark(s.line);
            L(cond);
            emit_branch(*s.expr, true, top);
        } else {
            L(cond);
            emit_branch(*s.expr, false, end);
            emit_block(s.body);
            mark(s.line);
            jmp(cond);
        }
        L(end);
        loops_.pop_back();
    }

    void emit_stmt(const Stmt& s) {
        mark(s.line);
        switch (s.kind) {
        case Stmt::Kind::VarDecl:
        case Stmt::Kind::Assign:
            if (!emit_assign_fast(locs_[s.slot], s.slot, *s.expr)) {
                emit_expr(*s.expr);
                store(locs_[s.slot], rax);
            }
            break;
        case Stmt::Kind::IndexAssign: emit_index_store(s); break;
        case Stmt::Kind::If: {
            Xbyak::Label else_l, end;
            emit_branch(*s.expr, false, else_l);
            emit_block(s.body);
            if (s.has_else && !s.else_body.empty()) {
                jmp(end);
                L(else_l);
                emit_block(s.else_body);
            } else {
                L(else_l);
            }
            L(end);
            break;
        }
        case Stmt::Kind::While: emit_while(s); break;
        case Stmt::Kind::Break: jmp(*loops_.back().break_target); break;
        case Stmt::Kind::Continue: jmp(*loops_.back().continue_target); break;
        case Stmt::Kind::Return:
            if (s.expr)
                emit_expr(*s.expr);
            else
                xor_(eax, eax);
            jmp(ret_label_);
            break;
        case Stmt::Kind::Print: emit_print(s); break;
        case Stmt::Kind::ExprStmt: emit_expr(*s.expr); break;
        }
    }
};

std::size_t count_nodes(const Expr& e) {
    std::size_t n = 1;
    for (const auto& a : e.args) n += count_nodes(*a);
    return n;
}

std::size_t count_nodes(const Block& b) {
    std::size_t n = 0;
    for (const auto& s : b) {
        n += 1;
        if (s->index) n += count_nodes(*s->index);
        if (s->expr) n += count_nodes(*s->expr);
        for (const auto& it : s->items) n += 1 + (it.expr ? count_nodes(*it.expr) : 0);
        n += count_nodes(s->body) + count_nodes(s->else_body);
    }
    return n;
}

CompiledCode compile(const Function& fn, const CodegenEnv& env, const Tier0Hooks* hooks) {
    // Generate straight into the final mapping; if the estimate was too
    // small, start over with twice the space.
    std::size_t capacity = 256 + 64 * count_nodes(fn.body);
    while (true) {
        CompiledCode out;
        out.buffer = CodeBuffer(capacity);
        try {
            Gen gen(out.buffer.capacity(), out.buffer.data(), fn, env, hooks);
            gen.compile();
            out.size = gen.getSize();
            out.lines = std::move(gen.lines);
            out.inlined = std::move(gen.inlined);
            out.frame_pointer_prologue = gen.frame_pointer_prologue();
            if (!hooks) {
                const auto code = reinterpret_cast<std::uintptr_t>(out.buffer.data());
                out.eh_frame_addr = ehframe::FrameCfi::section_after(code, out.size);
                out.eh_frame = gen.cfi().eh_frame(code, out.size, out.eh_frame_addr);
            }
        } catch (const Xbyak::Error& err) {
            if (static_cast<int>(err) == Xbyak::ERR_CODE_IS_TOO_BIG) {
                capacity = out.buffer.capacity() * 2;
                continue;
            }
            throw;
        }
        out.buffer.make_executable();
        return out;
    }
}

}  // namespace

CompiledCode compile_tier0(const Function& fn, const CodegenEnv& env, const Tier0Hooks& hooks) {
    return compile(fn, env, &hooks);
}

CompiledCode compile_tier1(const Function& fn, const CodegenEnv& env) {
    return compile(fn, env, nullptr);
}

}  // namespace minijit
