// codegen.cpp - x86-64 code generation (tier 0 and tier 1) for MiniJit:
// the entry points.  The generator itself, class Gen, is in codegen_gen.hpp
// and the codegen_*.cpp files.

#include "codegen_gen.hpp"

namespace minijit {

namespace codegen {

void Gen::compile() {
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

}  // namespace codegen

namespace {

using codegen::Gen;

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
