// jitdump_producer_late.cpp: jitdump_producer's names written before the
// code runs or after it ran, up to the last thing the process does: a
// small call graph named by a jitdump or a perf map (names), a leak whose
// allocating function is named early or late (leak), and jitted blocks
// chained by jumps (chained).

#include "jitdump_producer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jitdump_producer {

namespace {

/// Emits names_leaf(n) = n + (n-1) + ... + 1 (lines 100..102).
Fn emit_names_leaf(std::uint8_t* where, std::vector<DebugEntrySpec>& lines,
                   const std::string& file) {
    const Fn f =
        named_fn("names_leaf", where, testjit::emit_sum_loop(where, 64, testjit::SumStart::kZero));
    lines = f.lines(100, file);
    return f;
}

/// Emits a function that calls `callee`(its argument) `times` times and
/// adds the results (lines L: prologue, L+1: the loop, L+2: the rest);
/// with `fib`, it then adds fib(10).
Fn emit_names_caller(const std::string& name, std::uint8_t* where, const void* callee, int times,
                     const void* fib, std::uint32_t first_line, std::vector<DebugEntrySpec>& lines,
                     const std::string& file) {
    const Fn f =
        named_fn(name, where, testjit::emit_repeat_caller(where, 192, callee, times, fib, 10));
    lines = f.lines(first_line, file);
    return f;
}

/// Emits the recursive names_fib(n) (lines 500: test, 501: recursion,
/// 502: the base case).
Fn emit_names_fib(std::uint8_t* where, std::vector<DebugEntrySpec>& lines,
                  const std::string& file) {
    const Fn f = named_fn("names_fib", where, testjit::emit_fib(where, 128));
    lines = f.lines(500, file);
    return f;
}

/// What `names late dump TAIL` appends to the jitdump after its records.
void write_tail(Jitdump& dump, const std::string& tail) {
    if (tail == "grow") {
        const std::vector<unsigned char> code(1 << 20, 0xC3);
        for (std::uint64_t i = 0; i < 1024; ++i) {
            JitdumpBuilder rec;
            rec.code_load(0x10000000000ull + (i << 20), code.size(), "grow_" + std::to_string(i),
                          1000 + i, now_ns(), dump.pid(), dump.tid(), code);
            dump.put(rec);
        }
    } else if (tail == "corrupt") {
        JitdumpBuilder rec;
        rec.u32(0);  // CODE_LOAD
        rec.u32(4);  // total_size below a record header's 16 bytes
        rec.u64(now_ns());
        for (int i = 0; i < 4096; ++i) rec.bytes.push_back(static_cast<unsigned char>(i * 37 + 11));
        dump.put(rec);
    }
}

/// Pointer that loses the block names_alloc returned (a leak).
void* volatile g_leaked = nullptr;

/// Emits names_alloc() = malloc(24) at `where` (lines 700: prologue, 701:
/// the call, 702: the rest), with a frame pointer, so that stack traces
/// lead on to its caller.
Fn emit_names_alloc(std::uint8_t* where) {
    Emitter e(where, 64);
    Fn f;
    f.name = "names_alloc";
    f.addr = where;
    e.push(e.rbp);
    e.mov(e.rbp, e.rsp);
    e.mov(e.edi, 24);
    f.loop = e.getSize();
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&std::malloc));
    e.call(e.rax);
    f.tail = e.getSize();
    e.pop(e.rbp);
    e.ret();
    e.ready();
    f.size = e.getSize();
    std::fprintf(stderr, "fn %s %p %zu\n", f.name.c_str(), static_cast<void*>(f.addr), f.size);
    return f;
}

/// Loses the block of names_alloc (`alloc`) called by leak_caller(), which
/// returns its result: a jitted function of its own mapping, announced
/// in `dump` at once, whose mapping is unmapped after the call.
void leak_through_freed_caller(const Fn& alloc, Jitdump& dump) {
    auto* caller_mem = static_cast<std::uint8_t*>(mmap(
        nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (caller_mem == MAP_FAILED) die("mmap code");
    Emitter c(caller_mem, 64);
    c.push(c.rbp);
    c.mov(c.rbp, c.rsp);
    c.mov(c.rax, reinterpret_cast<std::uintptr_t>(alloc.addr));
    c.call(c.rax);
    c.pop(c.rbp);
    c.ret();
    c.ready();
    Fn caller;
    caller.name = "leak_caller";
    caller.addr = caller_mem;
    caller.size = c.getSize();
    std::fprintf(stderr, "fn %s %p %zu\n", caller.name.c_str(), static_cast<void*>(caller.addr),
                 caller.size);
    dump.put(dump.load(caller));
    let_time_pass();
    g_leaked = reinterpret_cast<void* (*)()>(caller.addr)();
    g_leaked = nullptr;  // the block is lost
    munmap(caller_mem, 4096);
}

}  // namespace

/// names WHEN FILE [TAIL]: names_top, names_middle, names_leaf and
/// names_fib, announced early or late in a jitdump or a perf map.
int mode_names(const std::string& when, const std::string& file, const std::string& tail) {
    const bool late = when == "late";
    const bool map = file == "map";
    const bool plus40 = file == "dump40";
    if ((!late && when != "early") || (!map && !plus40 && file != "dump") ||
        (!tail.empty() && (!late || file != "dump" || (tail != "grow" && tail != "corrupt")))) {
        std::fprintf(stderr,
                     "jitdump_producer: names early|late dump|dump40|map, "
                     "names late dump grow|corrupt\n");
        return 2;
    }
    const std::string src = "/virtual/names.src";
    // Kept until exit, as JITs keep their code: names read at exit can
    // only name code that is still mapped then.
    CodeMemory& mem = *new CodeMemory(4096);
    std::vector<DebugEntrySpec> l_leaf, l_mid, l_fib, l_top;
    const Fn leaf = emit_names_leaf(mem.at(0), l_leaf, src);
    const Fn fib = emit_names_fib(mem.at(512), l_fib, src);
    const Fn middle =
        emit_names_caller("names_middle", mem.at(128), leaf.addr, 10, nullptr, 200, l_mid, src);
    const Fn top =
        emit_names_caller("names_top", mem.at(256), middle.addr, 20, fib.addr, 300, l_top, src);
    const std::pair<const Fn*, const std::vector<DebugEntrySpec>*> all[] = {
        {&leaf, &l_leaf}, {&middle, &l_mid}, {&fib, &l_fib}, {&top, &l_top}};
    for (const auto& f : all)
        std::fprintf(stderr, "fn %s %p %zu\n", f.first->name.c_str(),
                     static_cast<void*>(f.first->addr), f.first->size);

    std::unique_ptr<Jitdump> dump;
    if (!map) dump = std::make_unique<Jitdump>();  // mapped before anything runs
    auto write_map = [&](const std::string& path) {
        const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) die("open perf map");
        for (const auto& f : all) write_str(fd, map_line(*f.first));
        ::close(fd);
    };
    // The same map written elsewhere first: the library code (and PLT
    // stubs) that writes it then runs before the real map exists, so that
    // no lookup of new code reads the real map before the process exits.
    if (late && map) write_map("warmup-" + std::to_string(getpid()) + ".map");
    auto announce = [&] {
        if (map) {
            write_map(perf_map_path());
            return;
        }
        for (const auto& f : all) {
            JitdumpBuilder rec;
            std::vector<DebugEntrySpec> entries = *f.second;
            if (plus40)
                for (auto& en : entries) en.addr += 0x40;
            rec.debug_info(Jitdump::addr(*f.first), entries, std::nullopt, now_ns());
            dump->put(rec);
            dump->put(dump->load(*f.first));
        }
    };
    if (!late) announce();
    let_time_pass();
    const long result = top.call(40);
    let_time_pass();
    std::printf("names %ld\n", result);
    if (late) {
        // The names are the last thing the process writes: nothing runs
        // after them (no destructor, no atexit handler), so only a reader
        // that reads the files at exit sees them.
        std::fflush(stdout);
        announce();
        if (dump) write_tail(*dump, tail);
        exit_now();
    }
    if (dump) dump->close_record();
    return 0;
}

/// leak WHEN [freed-caller]: names_alloc's block lost, the function
/// announced in a jitdump early or late.
int mode_leak(const std::string& when, const std::string& how) {
    const bool late = when == "late";
    const bool freed_caller = how == "freed-caller";
    if ((!late && when != "early") || (!how.empty() && !freed_caller)) {
        std::fprintf(stderr, "jitdump_producer: leak early|late [freed-caller]\n");
        return 2;
    }
    // names_alloc, announced with a line table in a jitdump.
    CodeMemory& mem = *new CodeMemory(4096);  // kept until exit
    const Fn f = emit_names_alloc(mem.at(0));
    Jitdump dump;
    auto announce = [&] {
        JitdumpBuilder rec;
        rec.debug_info(Jitdump::addr(f), f.lines(700, "/virtual/names.src"), std::nullopt,
                       now_ns());
        dump.put(rec);
        dump.put(dump.load(f));
    };
    if (!late) announce();
    if (freed_caller) {
        leak_through_freed_caller(f, dump);
    } else {
        let_time_pass();
        g_leaked = reinterpret_cast<void* (*)()>(f.addr)();
        g_leaked = nullptr;  // the block is lost
    }
    let_time_pass();
    if (late && freed_caller) {
        // Read when the client exits, nothing running in between.
        std::printf("leak done\n");
        std::fflush(stdout);
        announce();
        exit_now();
    }
    if (late) announce();
    dump.close_record();
    std::printf("leak done\n");
    return 0;
}

/// chained WHEN: jd_dispatch jumps to jd_chained, announced early or late.
int mode_chained(const std::string& when) {
    const bool late = when == "late";
    if (!late && when != "early") {
        std::fprintf(stderr, "jitdump_producer: chained early|late\n");
        return 2;
    }
    CodeMemory& mem = *new CodeMemory(4096);  // kept until exit
    const Fn chained = named_fn("jd_chained", mem.at(64),
                                testjit::emit_sum_loop(mem.at(64), 64, testjit::SumStart::kZero));
    Emitter e(mem.at(0), 64);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(chained.addr));
    e.jmp(e.rax);
    e.ready();
    Fn dispatch;
    dispatch.name = "jd_dispatch";
    dispatch.addr = mem.at(0);
    dispatch.size = e.getSize();
    for (const Fn* f : {static_cast<const Fn*>(&dispatch), &chained})
        std::fprintf(stderr, "fn %s %p %zu\n", f->name.c_str(), static_cast<void*>(f->addr),
                     f->size);
    Jitdump dump;
    auto announce = [&] {
        for (const Fn* f : {static_cast<const Fn*>(&dispatch), &chained}) dump.put(dump.load(*f));
    };
    if (!late) announce();
    let_time_pass();
    long acc = 0;
    for (int i = 0; i < 100; ++i) acc += dispatch.call(50);
    let_time_pass();
    std::printf("chained %ld\n", acc);
    if (late) {
        std::fflush(stdout);
        announce();
        exit_now();
    }
    dump.close_record();
    return 0;
}

}  // namespace jitdump_producer
