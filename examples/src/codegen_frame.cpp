// codegen_frame.cpp - line table, variable locations, frames and error stubs
// of the MiniJit code generator (Gen, codegen_gen.hpp).

#include "codegen_gen.hpp"

#include <algorithm>

namespace minijit::codegen {

namespace {

bool fits_int32(std::int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

// Tier 1's variable registers, callee-saved: rbp is an ordinary one there.
const Reg64 kSavedRegs[] = {rbx, r12, r13, r14, r15, rbp};

}  // namespace

// ------------------------------------------------------ line table --

void Gen::mark(int line) {
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

void Gen::assign_locations_tier0() {
    locs_.resize(fn_.num_slots);
    for (int i = 0; i < fn_.num_slots; ++i) locs_[i].disp = -8 * (i + 1);
    frame_bytes_ = (fn_.num_slots * 8 + 15) / 16 * 16;
}

void Gen::count_uses(const Expr& e, int loop_depth, std::vector<std::uint64_t>& uses) {
    if (e.kind == Expr::Kind::Var)
        uses[e.slot] += std::uint64_t(1) << (3 * std::min(loop_depth, 6));
    for (const auto& a : e.args) count_uses(*a, loop_depth, uses);
}

void Gen::count_uses(const Block& b, int loop_depth, std::vector<std::uint64_t>& uses) {
    for (const auto& s : b) {
        const std::uint64_t w = std::uint64_t(1) << (3 * std::min(loop_depth, 6));
        if (s->kind == Stmt::Kind::VarDecl || s->kind == Stmt::Kind::Assign) uses[s->slot] += w;
        if (s->index) count_uses(*s->index, loop_depth, uses);
        if (s->expr)
            count_uses(*s->expr, s->kind == Stmt::Kind::While ? loop_depth + 1 : loop_depth, uses);
        for (const auto& it : s->items)
            if (it.expr) count_uses(*it.expr, loop_depth, uses);
        count_uses(s->body, s->kind == Stmt::Kind::While ? loop_depth + 1 : loop_depth, uses);
        count_uses(s->else_body, loop_depth, uses);
    }
}

void Gen::assign_locations_tier1() {
    std::vector<std::uint64_t> uses(fn_.num_slots, 0);
    for (int i = 0; i < fn_.num_params; ++i) uses[i] += 1;
    count_uses(fn_.body, 0, uses);
    std::vector<int> order(fn_.num_slots);
    for (int i = 0; i < fn_.num_slots; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return uses[a] > uses[b]; });
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

Address Gen::mem(const Loc& l) {
    if (tier1_) return qword[rsp + (l.disp + 8 * depth_)];
    return qword[rbp + l.disp];
}

void Gen::load(const Reg64& dst, const Loc& l) {
    if (l.in_reg) {
        if (dst.getIdx() != l.reg.getIdx()) mov(dst, l.reg);
    } else {
        mov(dst, mem(l));
    }
}

void Gen::store(const Loc& l, const Reg64& src) {
    if (l.in_reg) {
        if (src.getIdx() != l.reg.getIdx()) mov(l.reg, src);
    } else {
        mov(mem(l), src);
    }
}

void Gen::mov_imm(const Reg64& dst, std::int64_t v) {
    if (v == 0)
        xor_(Xbyak::Reg32(dst.getIdx()), Xbyak::Reg32(dst.getIdx()));
    else
        mov(dst, static_cast<std::uint64_t>(v));
}

void Gen::mov_addr(const Reg64& dst, const void* p) {
    mov(dst, reinterpret_cast<std::uint64_t>(p));
}

Simple Gen::simple(const Expr& e) {
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

void Gen::load_simple(const Reg64& dst, const Simple& s) {
    if (s.kind == Simple::Kind::Imm)
        mov_imm(dst, s.imm);
    else
        load(dst, s.loc);
}

// ---------------------------------------------- prologue/epilogue --

void Gen::stack_check() {
    mov_addr(rax, reinterpret_cast<const void*>(env_.stack_limit));
    cmp(rsp, rax);
    jb(error_stub(fn_.line, RuntimeErrorKind::StackOverflow, -1));
}

// Tier 1: from here on, the CFA is rsp + frame_cfa_ + 8 * depth_.
void Gen::note_stack() {
    if (tier1_) cfi_.set_cfa_offset(getSize(), frame_cfa_ + 8 * depth_);
}

// Tier 1: from here on, the registers of saved_ are in their slots
// below the return address (the first one pushed right below it).
void Gen::note_saved_registers() {
    for (std::size_t i = 0; i < saved_.size(); ++i)
        cfi_.save_register(getSize(), ehframe::dwarf_register(saved_[i].getIdx()),
                           16 + 8 * static_cast<int>(i));
}

void Gen::prologue() {
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

void Gen::epilogue() {
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

Xbyak::Label& Gen::error_stub(int line, RuntimeErrorKind kind, int array) {
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
void Gen::emit_stubs() {
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

}  // namespace minijit::codegen
