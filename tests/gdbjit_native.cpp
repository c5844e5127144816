// gdbjit_native.cpp - the modules tests/gdbjit loads as JIT code
// (fixtures/gdbjit/module_*.c, the same object files), linked into an
// ordinary executable instead: under Valgrind their costs and lines come
// from the executable's own DWARF, the reference for what the GDB JIT
// interface reader must give for the same code.
//
// Usage: gdbjit_native
// Prints "gj_run_a(20) = 6765" like `gdbjit run`.

#include <cstdio>

extern "C" int gj_run_a(int n);

int main() {
    std::printf("gj_run_a(20) = %d\n", gj_run_a(20));
    return 0;
}
