// perfmap_jit: a deterministic test JIT that announces its code the way
// perf-aware runtimes do, through files only (no client requests): a perf
// map /tmp/perf-<pid>.map and a jitdump ./jit-<pid>.dump (mapped read+exec,
// the producer convention that tells profilers to follow it).  Used by the
// `vg-jit annotate` tests: the same run under the unpatched Valgrind gives
// address-named pseudo-functions; under the patched one (which follows the
// jitdump by default) it gives the reference per-function costs.
//
// Usage: perfmap_jit [N]   (N: work size, default 200)
//
// The code, x86-64, emitted with xbyak into one anonymous RWX region:
//   pj_leaf(n)    n + (n-1) + ... + 1 (a counted loop)
//   pj_middle(n)  10 x pj_leaf(n), an internal subroutine called with
//                 `call` (a call to a non-entry address of pj_middle), and
//                 pj_elf_helper(n), ordinary compiled code
//   pj_top(n)     20 x pj_middle(n), then a tail jump (`jmp`) to pj_tail
//   pj_tail(n)    adds n + ... + 1 to pj_top's result; returns to
//                 pj_top's caller
//   pj_fib(n)     naive recursive Fibonacci (real recursion)
//   pj_moved(n)   like pj_leaf; emitted at one address, announced there,
//                 then copied to another and announced moved (jitdump
//                 CODE_MOVE; the perf map lists both addresses)
// Line tables (jitdump CODE_DEBUG_INFO, absolute addresses) name the file
// /virtual/perfmap_jit.src; each function's lines are 100*k + i.
//
// stdout: "result R" lines (identical natively and under Valgrind), then
// "perfmap PATH" and "jitdump PATH" (the files written; the caller removes
// them).  Exit status 0, or 2 if a file cannot be written.

#include "jitdump_builder.hpp"

#include "xbyak_emit.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char* const kSource = "/virtual/perfmap_jit.src";

using testjit::emit_call_loop;
using testjit::Emitter;

/// One emitted function: where, how big, and its line table (offsets from
/// the start, line numbers).
struct Emitted {
    const char* name;
    std::uint8_t* start;
    std::size_t size;
    std::vector<std::pair<std::size_t, std::uint32_t>> lines;
};

extern "C" __attribute__((noinline)) long pj_elf_helper(long x) {
    long acc = 0;
    for (long i = 0; i < x; ++i) acc += i ^ x;
    __asm__ volatile("" : "+r"(acc));
    return acc;
}

/// Emits NAME(n) = acc + n + (n-1) + ... + 1 for n >= 1: a counted loop
/// (lines first_line: entry, +1: loop, +2: return), where acc is 0, or,
/// with `keep_rax`, what rax holds on entry (pj_tail adds to the result of
/// the function that tail-jumps to it).
Emitted emit_sum(std::uint8_t* p, const char* name, std::uint32_t first_line, bool keep_rax) {
    const testjit::EmittedShape s = testjit::emit_sum_loop(
        p, 128, keep_rax ? testjit::SumStart::kKeepRax : testjit::SumStart::kZero);
    return {name, p, s.size, {{0, first_line}, {s.loop, first_line + 1}, {s.tail, first_line + 2}}};
}

Emitted emit_middle(std::uint8_t* p, std::uint8_t* leaf) {
    Emitter e(p, 256);
    const std::size_t loop = emit_call_loop(e, leaf, 10);
    Xbyak::Label inner;
    const std::size_t sub = e.getSize();
    e.call(inner);  // internal subroutine: r13 += 3 (twice)
    e.call(inner);
    const std::size_t helper = e.getSize();
    e.mov(e.rdi, e.r12);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&pj_elf_helper));
    e.call(e.rax);
    e.add(e.rax, e.r13);
    testjit::emit_call_loop_epilogue(e);
    e.ret();
    const std::size_t inner_at = e.getSize();
    e.L(inner);
    e.add(e.r13, 1);
    e.add(e.r13, 2);
    e.ret();
    e.ready();
    return {"pj_middle",
            p,
            e.getSize(),
            {{0, 200}, {loop, 201}, {sub, 202}, {helper, 203}, {inner_at, 204}}};
}

Emitted emit_top(std::uint8_t* p, std::uint8_t* middle, std::uint8_t* tail) {
    Emitter e(p, 256);
    const std::size_t loop = emit_call_loop(e, middle, 20);
    const std::size_t tail_at = e.getSize();
    e.mov(e.rax, e.r13);
    e.mov(e.rdi, e.r12);
    testjit::emit_call_loop_epilogue(e);
    e.mov(e.rdx, reinterpret_cast<std::uintptr_t>(tail));
    e.jmp(e.rdx);  // tail call: pj_tail returns to our caller
    e.ready();
    return {"pj_top", p, e.getSize(), {{0, 300}, {loop, 301}, {tail_at, 302}}};
}

Emitted emit_fib(std::uint8_t* p) {
    const testjit::EmittedShape s = testjit::emit_fib(p, 256);
    return {"pj_fib", p, s.size, {{0, 500}, {s.loop, 501}, {s.tail, 502}}};
}

std::uint64_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

/// Writes `bytes` to `path`; false on failure.
bool write_file(const std::string& path, const void* bytes, std::size_t n) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    const bool ok = std::fwrite(bytes, 1, n, f) == n;
    return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
    const long n = argc > 1 ? std::atol(argv[1]) : 200;
    const std::size_t kRegion = 4096;
    void* mem = mmap(nullptr, kRegion, PROT_READ | PROT_WRITE | PROT_EXEC,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        std::perror("mmap");
        return 2;
    }
    auto* base = static_cast<std::uint8_t*>(mem);
    const Emitted leaf = emit_sum(base, "pj_leaf", 100, false);
    const Emitted middle = emit_middle(base + 256, leaf.start);
    const Emitted tail = emit_sum(base + 1024, "pj_tail", 400, true);
    const Emitted top = emit_top(base + 512, middle.start, tail.start);
    const Emitted fib = emit_fib(base + 768);
    const Emitted moved_old = emit_sum(base + 1536, "pj_moved", 600, false);
    std::uint8_t* moved_new = base + 2048;
    std::memcpy(moved_new, moved_old.start, moved_old.size);

    const unsigned pid = static_cast<unsigned>(getpid());
    const std::string map_path = "/tmp/perf-" + std::to_string(pid) + ".map";
    const std::string dump_path = "jit-" + std::to_string(pid) + ".dump";

    // The perf map: one line per function; pj_moved at both addresses.
    std::string map;
    char line[256];
    std::uint64_t index = 1;
    jitdump_test::JitdumpBuilder dump;
    dump.header(1, pid, 1000);
    std::uint64_t stamp = 2000;
    for (const Emitted* f : {&leaf, &middle, &top, &tail, &fib, &moved_old}) {
        std::snprintf(line, sizeof line, "%llx %zx %s\n",
                      static_cast<unsigned long long>(addr(f->start)), f->size, f->name);
        map += line;
        std::vector<jitdump_test::DebugEntrySpec> entries;
        for (const auto& l : f->lines)
            entries.push_back({addr(f->start) + l.first, l.second, 0, kSource});
        dump.debug_info(addr(f->start), entries, std::nullopt, stamp++);
        dump.code_load(addr(f->start), f->size, f->name, index++, stamp++, pid, pid,
                       std::vector<unsigned char>(f->start, f->start + f->size));
    }
    std::snprintf(line, sizeof line, "%llx %zx %s\n",
                  static_cast<unsigned long long>(addr(moved_new)), moved_old.size, "pj_moved");
    map += line;
    dump.code_move(addr(moved_old.start), addr(moved_new), moved_old.size, index - 1, stamp++, pid,
                   pid);

    if (!write_file(map_path, map.data(), map.size()) ||
        !write_file(dump_path, dump.bytes.data(), dump.bytes.size())) {
        std::perror("writing the perf map / jitdump");
        return 2;
    }
    // Map the jitdump read+exec, as perf's agents do: the marker that makes
    // a profiler (here: Valgrind with valgrind-jit) follow the file.
    FILE* df = std::fopen(dump_path.c_str(), "rb");
    if (!df) {
        std::perror(dump_path.c_str());
        return 2;
    }
    void* marker = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(df), 0);
    if (marker == MAP_FAILED) {
        std::perror("mmap jitdump");
        return 2;
    }

    using Fn = long (*)(long);
    std::printf("result top %ld\n", reinterpret_cast<Fn>(top.start)(n));
    std::printf("result fib %ld\n", reinterpret_cast<Fn>(fib.start)(15));
    // The patched core applies a CODE_MOVE at a scheduler point (the end
    // of a time slice of 100000 basic blocks): spend more than a slice in
    // compiled code before the moved code runs, so that the patched run,
    // the reference, names it.
    for (volatile long spin = 0; spin < 300000; spin = spin + 1) {
    }
    std::printf("result moved %ld\n", reinterpret_cast<Fn>(moved_new)(n));
    std::printf("perfmap %s\njitdump %s\n", map_path.c_str(), dump_path.c_str());
    munmap(marker, 4096);
    std::fclose(df);
    munmap(mem, kRegion);
    return 0;
}
