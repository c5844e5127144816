// gdb_jit_interface.hpp: the GDB JIT compilation interface as a JIT
// defines it (GDB's manual, "JIT Compilation Interface"): the entry and
// descriptor layouts, the descriptor and the function debuggers (and
// Valgrind) watch.  It defines those two symbols: include it in exactly
// one translation unit of a program (tests/gdbjit.cpp,
// tests/hostile_client.cpp, bench/jitbench.cpp).
#pragma once

#include <cstdint>

extern "C" {

/// What the last change of the list was (jit_descriptor::action_flag).
enum jit_actions_t { JIT_NOACTION = 0, JIT_REGISTER_FN, JIT_UNREGISTER_FN };

/// One registered object: `symfile_size` bytes at `symfile_addr`, owned
/// by the JIT until it unregisters the entry.
struct jit_code_entry {
    jit_code_entry* next_entry;
    jit_code_entry* prev_entry;
    const char* symfile_addr;
    std::uint64_t symfile_size;
};

/// The list of entries; version 1.  `relevant_entry` is the entry the
/// last action applies to.
struct jit_descriptor {
    std::uint32_t version;
    std::uint32_t action_flag;
    jit_code_entry* relevant_entry;
    jit_code_entry* first_entry;
};

jit_descriptor __jit_debug_descriptor = {1, JIT_NOACTION, nullptr, nullptr};

/// Called after each change of the list; debuggers (and Valgrind)
/// intercept it.  With GDB_JIT_REGISTER_CODE_ALIAS defined it is an alias
/// of a function with a shorter name, which Valgrind's symbol table then
/// keeps as the primary name and this one as a secondary name
/// (tests/gdbjit_alias).
#ifdef GDB_JIT_REGISTER_CODE_ALIAS
void __attribute__((noinline)) jit_hook() { asm volatile("" ::: "memory"); }
void __jit_debug_register_code() noexcept __attribute__((alias("jit_hook")));
#else
void __attribute__((noinline)) __jit_debug_register_code() { asm volatile("" ::: "memory"); }
#endif

}  // extern "C"
