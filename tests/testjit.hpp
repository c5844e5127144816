// testjit.hpp: what the sources of testjit share: its code memory, its
// registration through <valgrind/jit.h> with the "status" lines the tests
// parse, the small functions most modes emit, and one entry point per mode
// (testjit.cpp lists the modes and dispatches them; each testjit_*.cpp
// holds one group).
#pragma once

#include <valgrind/jit.h>
#include "xbyak_emit.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace testjit {

/// Anonymous read/write/execute memory of a fixed size, unmapped on
/// destruction.
class CodeMemory {
public:
    explicit CodeMemory(std::size_t size) : size_(size) {
        void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            std::perror("mmap");
            std::exit(2);
        }
        base_ = static_cast<std::uint8_t*>(p);
    }
    ~CodeMemory() { munmap(base_, size_); }
    CodeMemory(const CodeMemory&) = delete;
    CodeMemory& operator=(const CodeMemory&) = delete;
    std::uint8_t* base() const { return base_; }
    std::size_t size() const { return size_; }

private:
    std::uint8_t* base_;
    std::size_t size_;
};

/// Writes "status WHAT RET LAST-ERROR" to stderr: what a request returned
/// and the status VALGRIND_JIT_LAST_ERROR gives after it.
inline void report(const char* what, unsigned long ret) {
    std::fprintf(stderr, "status %s %lu %d\n", what, ret,
                 static_cast<int>(VALGRIND_JIT_LAST_ERROR()));
}

/// The source file named in the line tables: --source=PATH, else a path
/// that does not exist (the tools then show the name without the text).
inline const char* source_file = "/virtual/testjit.src";

/// Registers [start, start+size) as `name` with the given line table (in
/// source_file) and reports the request's answer under `name`.
inline void register_fn(const void* start, std::size_t size, const char* name,
                        const std::vector<VgJitLine>& lines, const char* object = "testjit-obj") {
    VgJitCode desc = VG_JIT_CODE_INITIALIZER;
    desc.start = start;
    desc.size = size;
    desc.name = name;
    desc.object = object;
    desc.file = source_file;
    desc.lines = lines.empty() ? nullptr : lines.data();
    desc.n_lines = lines.size();
    report(name, VALGRIND_JIT_REGISTER_CODE(&desc));
}

/// Emits "rax = k; loop n times; ret" at p: a function that burns
/// `iterations` loop iterations and returns k.  Returns its size in bytes.
inline std::size_t emit_counter(std::uint8_t* p, long k, long iterations) {
    Emitter e(p, 128);
    e.mov(e.rcx, iterations);
    Xbyak::Label top;
    e.L(top);
    e.dec(e.rcx);
    e.jnz(top);
    e.mov(e.rax, k);
    e.ret();
    e.ready();
    return e.getSize();
}

/// Ordinary compiled code (ELF text) that jitted code calls: the sum of
/// i ^ x for i below x.
extern "C" long elf_helper(long x);

// The modes (testjit.cpp's header comment says what each does).

// testjit_calls.cpp: call graphs through jitted code.
int mode_calls();
int mode_prologue(long n, long times);

// testjit_changes.cpp: code replaced, patched or withdrawn under its name.
int mode_replace();
int mode_patch();
int mode_forget();
int mode_withdrawn(const std::string& end);

// testjit_errors.cpp: the tools' errors and allocations in jitted code.
int mode_memerr();
int run_reader(const char* name, bool in_child);
int mode_leak();
int mode_nested();
int mode_alloc();
int mode_race();
int mode_malloc();

// testjit_requests.cpp: requests the core refuses or trims.
int mode_bad();
int mode_lines();
int mode_names();

// testjit_scale.cpp: many functions, names and requests.
int mode_many(long count);
int mode_retranslate(long count);
int mode_compact();
int mode_churn(unsigned seed, long ops);

}  // namespace testjit
