// creator_cxx.cpp - a JIT written in C++ that announces nothing: a member
// function of a namespace's class maps a page, writes a `ret` there, makes
// it executable with mprotect and the program calls it, three times.
// integration_creator checks that Valgrind names the code after the
// demangled member function, the first time and when it finds the
// creator again.

#include <sys/mman.h>

#include <cstdio>
#include <cstring>

namespace jit {

struct Emitter {
    // One page holding `ret`, executable; nullptr if mmap fails.
    static void* __attribute__((noinline)) make(int tag);
};

void* Emitter::make(int tag) {
    void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    const unsigned char ret = 0xc3;
    std::memcpy(p, &ret, 1);
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) return nullptr;
    asm volatile("" ::"r"(tag) : "memory");
    return p;
}

}  // namespace jit

int main() {
    for (int i = 0; i < 3; ++i) {
        void* p = jit::Emitter::make(i);
        if (p == nullptr) return 1;
        reinterpret_cast<void (*)()>(p)();
        munmap(p, 4096);
    }
    std::puts("done");
    return 0;
}
