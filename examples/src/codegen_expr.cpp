// codegen_expr.cpp - constant folding, expressions and compare-and-branch in
// the MiniJit code generator (Gen, codegen_gen.hpp).

#include "codegen_gen.hpp"

#include <utility>

namespace minijit::codegen {

namespace {

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

}  // namespace

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

// ---------------------------------------------------- expressions --

// Divides rax by rcx (or computes the remainder) with the language's
// semantics; division by zero jumps to an error stub.
void Gen::emit_divide(Op op, int line) {
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
void Gen::apply_reg(Op op, int line) {
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
void Gen::apply_simple(Op op, const Simple& s, int line) {
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

void Gen::jcc(Op cond, Xbyak::Label& target) {
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
void Gen::compare_set(Op cond, const Reg64& a, const Reg64& b) {
    cmp(a, b);
    set_from_flags(cond);
}

void Gen::set_from_flags(Op cond) {
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
Op Gen::emit_compare(const Expr& e) {
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
void Gen::emit_branch(const Expr& e, bool when, Xbyak::Label& target) {
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

void Gen::emit_index_load(const Expr& e) {
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
void Gen::emit_expr(const Expr& e) {
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

}  // namespace minijit::codegen
