// codegen_call.cpp - push depth, calls and inlining of leaf functions in the
// MiniJit code generator (Gen, codegen_gen.hpp).

#include "codegen_gen.hpp"

#include <memory>

namespace minijit::codegen {

// ---------------------------------------------------------- calls --

void Gen::push_rax() {
    push(rax);
    ++depth_;
    note_stack();
}

void Gen::pop_reg(const Reg64& r) {
    pop(r);
    --depth_;
    note_stack();
}

// Calls through an absolute address held in rax, keeping rsp aligned.
void Gen::aligned_call(const std::function<void()>& emit_call) {
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

void Gen::emit_call(const Expr& e) {
    const std::size_t n = e.args.size();
    std::vector<int> complex;
    for (std::size_t i = 0; i < n; ++i)
        if (simple(*e.args[i]).kind == Simple::Kind::None) complex.push_back(static_cast<int>(i));
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
bool Gen::leaf_expr(const Expr& e, int n_params) {
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
const Expr* Gen::inlinable_body(const Expr& call) const {
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
std::unique_ptr<Expr> Gen::substitute(const Expr& e, const Expr& call) {
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
void Gen::emit_inlined(const Expr& call, const Expr& body) {
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

}  // namespace minijit::codegen
