// inlinejit: a JIT that announces the calls it inlined (VgJitCode's
// version-3 inline table), for the tests of inlined frames of registered
// code.  It emits one x86-64 leaf, jit_inlining, with xbyak:
//
//   offset 0   mov rax, rdi              line 20 of the descriptor's file
//          A   add rax, 1                square, inlined at line 21
//          B   mov ecx, [rdi + 40]       deeper, inlined into square at
//                                        line 6 of lib.src (its body: line 2)
//          C   add eax, ecx              square again, line 7 of lib.src
//          D   ret                       line 22
//
// registered with the file /virtual/inline.src, a line table that gives
// lib.src's lines inside the inlined code, the unwind shape "return
// address at rsp" (VG_JIT_UNWIND_FIXED_FRAME) and the inline table
//   [0] square  [A, D)  called at inline.src:21  parent VG_JIT_INLINE_TOP
//   [1] deeper  [B, C)  called at lib.src:6      parent 0
// and called from enter_jit (an ordinary function) with a pointer to a
// 40-byte malloc'd block, so that the load at B reads past it.
//
// Usage: inlinejit MODE
//   memerr   register as above and run once (Memcheck's invalid read at B)
//   v2       the same descriptor with struct_size VG_JIT_CODE_V2_SIZE: the
//            inline table is not read
//   nolines  the same without a line table
//   run N    register as above and run N times on a 44-byte block (no
//            error; Callgrind and Cachegrind attribute the code)
//   hostile  register with malformed inline tables (one "case NAME RET
//            STATUS" line each on stderr), then tables at the limits
//            ("limit NAME RET STATUS"), then as above and run memerr
//
// Registration results go to stderr as "status NAME RET STATUS" lines.

#include <valgrind/jit.h>
#include "xbyak_emit.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char* what) {
    std::perror(what);
    std::exit(2);
}

constexpr const char* kFile = "/virtual/inline.src";
constexpr const char* kLib = "/virtual/lib.src";

std::uint8_t* code = nullptr;
std::size_t size = 0;
std::size_t at_square = 0, at_deeper = 0, at_back = 0, at_ret = 0;

void emit() {
    code = static_cast<std::uint8_t*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (code == MAP_FAILED) die("mmap code");
    testjit::Emitter e(code, 4096);
    e.mov(e.rax, e.rdi);
    at_square = e.getSize();
    e.add(e.rax, 1);
    at_deeper = e.getSize();
    e.mov(e.ecx, e.dword[e.rdi + 40]);
    at_back = e.getSize();
    e.add(e.eax, e.ecx);
    at_ret = e.getSize();
    e.ret();
    e.ready();
    size = e.getSize();
}

const VgJitLine kLines[] = {
    {0, 20, nullptr}, {0, 0, nullptr}, {0, 0, nullptr}, {0, 0, nullptr}, {0, 22, nullptr}};

std::vector<VgJitLine> lines() {
    std::vector<VgJitLine> v(std::begin(kLines), std::end(kLines));
    v[1] = {at_square, 5, kLib};
    v[2] = {at_deeper, 2, kLib};
    v[3] = {at_back, 7, kLib};
    v[4].offset = at_ret;
    return v;
}

std::vector<VgJitInline> good_inlines() {
    return {{at_square, at_ret - at_square, "square", nullptr, 21, VG_JIT_INLINE_TOP},
            {at_deeper, at_back - at_deeper, "deeper", kLib, 6, 0}};
}

VgJitCode descriptor(const std::vector<VgJitLine>& l, const std::vector<VgJitInline>& inl) {
    VgJitCode d = VG_JIT_CODE_INITIALIZER;
    d.start = code;
    d.size = size;
    d.name = "jit_inlining";
    d.object = "inlinejit";
    d.file = kFile;
    d.lines = l.data();
    d.n_lines = l.size();
    d.unwind_kind = VG_JIT_UNWIND_FIXED_FRAME;
    d.prologue_size = 0;
    d.ra_offset = 0;
    d.fp_offset = VG_JIT_UNWIND_FP_KEPT;
    d.inlines = inl.data();
    d.n_inlines = inl.size();
    return d;
}

void report(const char* kind, const char* what, unsigned long ret) {
    std::fprintf(stderr, "%s %s %lu %d\n", kind, what, ret,
                 static_cast<int>(VALGRIND_JIT_LAST_ERROR()));
}

}  // namespace

// The ordinary caller of the jitted code: not inlined, not a tail call.
extern "C" __attribute__((noinline)) long enter_jit(void* arg) {
    auto f = reinterpret_cast<long (*)(void*)>(code);
    long r = f(arg);
    asm volatile("" : "+r"(r));
    return r + 1;
}

namespace {

int run_memerr() {
    void* block = std::malloc(40);
    std::memset(block, 0, 40);
    std::printf("memerr %d\n", enter_jit(block) != 0 ? 1 : 0);
    std::free(block);
    return 0;
}

// A malformed inline table for `hostile`.
struct Case {
    const char* name;
    std::vector<VgJitInline> table;
    const VgJitInline* ptr = nullptr;  // instead of table.data()
    unsigned long n = ~0UL;            // instead of table.size()
};

// Inline tables that break one rule each: good_inlines() with one entry
// changed, or a table that overlaps, nests too deep, cannot be read or is
// too long.
std::vector<Case> malformed_tables() {
    const auto good = good_inlines();
    std::vector<Case> cases;
    auto with = [&](const char* name, std::size_t i, auto change) {
        Case c{name, good};
        change(c.table[i]);
        cases.push_back(c);
    };
    with("size_zero", 0, [](VgJitInline& e) { e.size = 0; });
    with("past_the_end", 0, [](VgJitInline& e) { e.size = size; });
    with("offset_outside", 1, [](VgJitInline& e) { e.offset = size; });
    with("size_wraps", 1, [](VgJitInline& e) { e.size = ~0UL; });
    with("name_null", 0, [](VgJitInline& e) { e.name = nullptr; });
    with("name_empty", 0, [](VgJitInline& e) { e.name = ""; });
    with("name_unreadable", 0, [](VgJitInline& e) { e.name = reinterpret_cast<const char*>(8); });
    with("name_control_char", 1, [](VgJitInline& e) { e.name = "dee\x01per"; });
    with("file_unreadable", 1,
         [](VgJitInline& e) { e.call_file = reinterpret_cast<const char*>(8); });
    with("line_zero", 0, [](VgJitInline& e) { e.call_line = 0; });
    with("line_too_large", 0, [](VgJitInline& e) { e.call_line = VG_JIT_MAX_INLINE_LINE + 1; });
    with("parent_self", 1, [](VgJitInline& e) { e.parent = 1; });
    with("parent_later", 0, [](VgJitInline& e) { e.parent = 1; });
    with("outside_parent", 1, [](VgJitInline& e) { e.offset = 0; });
    {
        // Two pieces of the same parent that overlap.
        Case c{"siblings_overlap", good};
        c.table.push_back({at_deeper - 1, 2, "other", nullptr, 9, 0});
        cases.push_back(c);
    }
    {
        Case c{"too_deep", {}};
        for (unsigned long i = 0; i <= VG_JIT_MAX_INLINE_DEPTH; ++i)
            c.table.push_back(
                {at_square, 1, "nest", nullptr, 1, i == 0 ? VG_JIT_INLINE_TOP : i - 1});
        cases.push_back(c);
    }
    {
        Case c{"table_unreadable", {}};
        c.ptr = reinterpret_cast<const VgJitInline*>(0x1000);
        c.n = 4;
        cases.push_back(c);
    }
    {
        Case c{"too_many", good};
        c.n = VG_JIT_MAX_INLINES + 1;
        cases.push_back(c);
    }
    return cases;
}

// Registers jit_inlining with each malformed table: one "case NAME RET
// STATUS" line each on stderr.
void register_cases(const std::vector<VgJitLine>& l, const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        VgJitCode d = descriptor(l, c.table);
        if (c.ptr) d.inlines = c.ptr;
        if (c.n != ~0UL) d.n_inlines = c.n;
        report("case", c.name, VALGRIND_JIT_REGISTER_CODE(&d));
    }
}

// Tables at the limits, accepted: as deep as allowed, a piece per byte,
// and as many pieces as allowed ("limit NAME RET STATUS" lines).
void register_limits(const std::vector<VgJitLine>& l) {
    std::vector<VgJitInline> deepest;
    for (unsigned long i = 0; i < VG_JIT_MAX_INLINE_DEPTH; ++i)
        deepest.push_back({at_square, 1, "nest", nullptr, 1, i == 0 ? VG_JIT_INLINE_TOP : i - 1});
    VgJitCode d = descriptor(l, deepest);
    report("limit", "max_depth", VALGRIND_JIT_REGISTER_CODE(&d));
    std::vector<VgJitInline> pieces;
    for (std::size_t i = 0; i < size; ++i)
        pieces.push_back({i, 1, "piece", nullptr, 3, VG_JIT_INLINE_TOP});
    d = descriptor(l, pieces);
    report("limit", "adjacent_pieces", VALGRIND_JIT_REGISTER_CODE(&d));
    // As many inlined calls as a table may hold (one more is the
    // too_many case), one byte each, over code of as many bytes.
    void* wide = mmap(nullptr, VG_JIT_MAX_INLINES, PROT_READ | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (wide == MAP_FAILED) die("mmap wide");
    std::vector<VgJitInline> most;
    for (unsigned long i = 0; i < VG_JIT_MAX_INLINES; ++i)
        most.push_back({i, 1, "piece", nullptr, 3, VG_JIT_INLINE_TOP});
    const std::vector<VgJitLine> no_lines;
    d = descriptor(no_lines, most);
    d.start = wide;
    d.size = VG_JIT_MAX_INLINES;
    d.name = "widest";
    report("limit", "max_inlines", VALGRIND_JIT_REGISTER_CODE(&d));
}

// `inlinejit hostile` (see the top of this file).
int hostile() {
    const auto l = lines();
    register_cases(l, malformed_tables());
    register_limits(l);
    const auto inl = good_inlines();
    VgJitCode d = descriptor(l, inl);
    report("status", "jit_inlining", VALGRIND_JIT_REGISTER_CODE(&d));
    return run_memerr();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: inlinejit memerr|v2|nolines|hostile|run N\n");
        return 2;
    }
    const std::string mode = argv[1];
    emit();
    if (mode == "hostile") return hostile();
    const auto l = lines();
    const auto inl = good_inlines();
    VgJitCode d = descriptor(l, inl);
    if (mode == "v2") d.struct_size = VG_JIT_CODE_V2_SIZE;
    if (mode == "nolines") {
        d.lines = nullptr;
        d.n_lines = 0;
    }
    report("status", "jit_inlining", VALGRIND_JIT_REGISTER_CODE(&d));
    if (mode == "run" && argc > 2) {
        const long n = std::atol(argv[2]);
        void* block = std::calloc(1, 44);
        long sum = 0;
        for (long i = 0; i < n; ++i) sum += enter_jit(block);
        std::printf("run %ld\n", sum);
        std::free(block);
        return 0;
    }
    return run_memerr();
}
