// testjit_errors.cpp: testjit's jitted code where the tools report
// errors and allocations: an invalid read (memerr, mangled, fork), leaks
// whose allocation stack runs through code unregistered since (leak,
// nested), an allocation live at exit (alloc), a data race (race), and a
// JIT function named malloc (malloc).

#include "testjit.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace testjit {

namespace {

// Emits and registers jit_allocator at p: returns malloc(77).  Lines 70
// (entry), 71 (the call), 72 (return).
void emit_allocator(std::uint8_t* p) {
    Emitter e(p, 128);
    e.sub(e.rsp, 8);
    const std::size_t call_at = e.getSize();
    e.mov(e.edi, 77);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&std::malloc));
    e.call(e.rax);
    const std::size_t ret_at = e.getSize();
    e.add(e.rsp, 8);
    e.ret();
    e.ready();
    register_fn(p, e.getSize(), "jit_allocator",
                {{0, 70, nullptr}, {call_at, 71, nullptr}, {ret_at, 72, nullptr}});
}

}  // namespace

// Emits jit_reader (reads 4 bytes at p+16) under `name` and runs it on a
// 16-byte block: Memcheck's invalid read inside jitted code.  With
// in_child, the code runs in a forked child.
int run_reader(const char* name, bool in_child) {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    Emitter e(p, 128);
    e.xor_(e.eax, e.eax);  // line 60
    const std::size_t read_at = e.getSize();
    e.mov(e.eax, e.dword[e.rdi + 16]);  // line 61: reads past the block
    const std::size_t ret_at = e.getSize();
    e.ret();  // line 62
    e.ready();
    register_fn(p, e.getSize(), name,
                {{0, 60, nullptr}, {read_at, 61, nullptr}, {ret_at, 62, nullptr}});
    auto* block = static_cast<int*>(std::malloc(16));
    std::memset(block, 0, 16);
    std::fflush(nullptr);
    pid_t child = in_child ? fork() : 0;
    if (child == 0) {
        volatile int v = reinterpret_cast<int (*)(int*)>(p)(block);
        (void)v;
    }
    if (in_child && child > 0) {
        int status = 0;
        waitpid(child, &status, 0);
    }
    std::free(block);
    if (!in_child || child > 0) std::printf("memerr done\n");
    if (in_child && child == 0) _exit(0);
    return 0;
}

// memerr: jit_reader reads 4 bytes past a malloc'd block.
int mode_memerr() { return run_reader("jit_reader", false); }

// leak: jit_allocator's block leaked; then the code is unregistered and
// other_code registered at its address.
int mode_leak() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    emit_allocator(p);
    void* leaked = reinterpret_cast<void* (*)()>(p)();
    std::printf("leak allocated %s\n", leaked ? "yes" : "no");
    leaked = nullptr;
    report("unregister", VALGRIND_JIT_UNREGISTER(p));
    std::size_t n = emit_counter(p, 3, 10);
    register_fn(p, n, "other_code", {{0, 80, nullptr}});
    std::printf("other_code %ld\n", reinterpret_cast<long (*)()>(p)());
    return 0;
}

// nested: big_fn leaks malloc(88) through a call returning past
// small_fn, registered later at big_fn+16 for 16 bytes.
int mode_nested() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    Emitter e(p, 256);
    e.sub(e.rsp, 8);
    while (e.getSize() < 0x40) e.nop();
    e.mov(e.edi, 88);
    e.mov(e.rax, reinterpret_cast<std::uintptr_t>(&std::malloc));
    e.call(e.rax);  // returns to 0x40 + 5 + 10 + 2 = 0x51, past small_fn
    e.add(e.rsp, 8);
    e.ret();
    e.ready();
    register_fn(p, 256, "big_fn", {});
    void* leaked = reinterpret_cast<void* (*)()>(p)();
    std::printf("nested allocated %s\n", leaked ? "yes" : "no");
    leaked = nullptr;
    report("unregister", VALGRIND_JIT_UNREGISTER(p));
    register_fn(p + 16, 16, "small_fn", {});
    report("unregister", VALGRIND_JIT_UNREGISTER(p + 16));
    return 0;
}

// alloc: jit_allocator's 77 bytes, its code registered until exit.
int mode_alloc() {
    // Deliberately never unmapped: the code must still be there at exit.
    static CodeMemory* mem = new CodeMemory(4096);
    std::uint8_t* p = mem->base();
    emit_allocator(p);
    static void* kept = reinterpret_cast<void* (*)()>(p)();
    std::printf("alloc allocated %s\n", kept ? "yes" : "no");
    return 0;
}

// race: two threads run jit_racer, an unsynchronised increment.
int mode_race() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    Emitter e(p, 64);
    e.add(e.dword[e.rdi], 1);  // line 95: the unsynchronised write
    const std::size_t ret_at = e.getSize();
    e.ret();  // line 96
    e.ready();
    register_fn(p, e.getSize(), "jit_racer", {{0, 95, nullptr}, {ret_at, 96, nullptr}});
    static int counter = 0;
    auto body = [p] {
        for (int i = 0; i < 10; ++i) reinterpret_cast<void (*)(int*)>(p)(&counter);
    };
    std::thread a(body), b(body);
    a.join();
    b.join();
    std::printf("race done\n");
    return 0;
}

// malloc: a JIT function named "malloc", then the program's malloc.
int mode_malloc() {
    CodeMemory mem(4096);
    std::uint8_t* p = mem.base();
    std::size_t n = emit_counter(p, 5, 1000);
    register_fn(p, n, "malloc", {{0, 90, nullptr}});
    long r = reinterpret_cast<long (*)()>(p)();
    void* q = std::malloc(100);
    std::memset(q, 1, 100);
    std::free(q);
    std::printf("jitted malloc returned %ld\n", r);
    return 0;
}

}  // namespace testjit
