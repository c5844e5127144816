// codegen_stmt.cpp - statements in the MiniJit code generator (Gen,
// codegen_gen.hpp).

#include "codegen_gen.hpp"

namespace minijit::codegen {

// ----------------------------------------------------- statements --

void Gen::emit_block(const Block& b) {
    for (const auto& s : b) emit_stmt(*s);
}

// Tier 1: `x = x OP simple` updated in place, `x = simple` moved.
bool Gen::emit_assign_fast(const Loc& dst, int slot, const Expr& e) {
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

void Gen::emit_index_store(const Stmt& s) {
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

void Gen::emit_print(const Stmt& s) {
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

void Gen::emit_while(const Stmt& s) {
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

void Gen::emit_stmt(const Stmt& s) {
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

}  // namespace minijit::codegen
