// gdbjit.cpp - a small JIT that hands its code to debuggers through the GDB
// JIT compilation interface (GDB manual, "JIT Compilation Interface"), the
// way LLVM's MCJIT does: it loads the .text of a relocatable object
// compiled from tests/fixtures/gdbjit/module_*.c into fresh memory, rewrites
// the object's section headers to hold the load address, links a code entry
// for the object into __jit_debug_descriptor's list, calls
// __jit_debug_register_code, and only then makes the code executable.
//
// Usage: gdbjit MODE MODULE_A.o MODULE_B.o
//   run          load module A, call gj_run_a(20), unregister it
//   reuse        run A, unregister it, load B into the same code memory
//                with the same code entry, call gj_run_b(10), unregister
//   preexisting  link A's entry into the list without notifying, then
//                link B's after it (at the tail: B's entry does not lead
//                to A's) and notify B's registration; call both
//   memerr       load module B and make its gj_peek read a freed block
//   heap         load module B, allocate 8 blocks of 100000 bytes through
//                its gj_alloc and free them, and exit with the object
//                still registered (for Massif and DHAT)
//   first-refused  the first notification registers an entry linked into
//                the list whose object is cut to its first 40 bytes (read
//                with the whole list, then as the relevant entry); then
//                unregister it and run A
//   hostile      hand in malformed entries, objects, line tables and lists
//                (each is printed as "hostile: WHAT" on stdout first),
//                then run A
//   save DIR     (a fifth argument) load and register modules A and B, write
//                each object as handed in (symfile_size bytes at
//                symfile_addr) to DIR/module_a.o and DIR/module_b.o, print
//                "gj_run_a at 0x..." and "gj_run_b at 0x...", call both,
//                unregister them
// Results go to stdout: "gj_run_a(20) = 6765", "gj_run_b(10) = 3628800".

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "gdb_jit_interface.hpp"

namespace {

const std::size_t kCodeBytes = 1 << 16;

std::vector<char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A module loaded into code memory, and the object image debuggers get.
struct Module {
    std::vector<char> image;  ///< the object, section addresses rewritten
    void* entry = nullptr;    ///< the exported function
};

Elf64_Shdr* sections(std::vector<char>& img) {
    auto* eh = reinterpret_cast<Elf64_Ehdr*>(img.data());
    if (img.size() < sizeof(Elf64_Ehdr) || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_REL ||
        eh->e_shoff + std::uint64_t(eh->e_shnum) * sizeof(Elf64_Shdr) > img.size())
        throw std::runtime_error("not a 64-bit relocatable ELF object");
    return reinterpret_cast<Elf64_Shdr*>(img.data() + eh->e_shoff);
}

/// Index of the section named `name`.
int section_index(std::vector<char>& img, const char* name) {
    auto* eh = reinterpret_cast<Elf64_Ehdr*>(img.data());
    Elf64_Shdr* sh = sections(img);
    const char* names = img.data() + sh[eh->e_shstrndx].sh_offset;
    for (int i = 0; i < eh->e_shnum; ++i)
        if (std::strcmp(names + sh[i].sh_name, name) == 0) return i;
    throw std::runtime_error(std::string("no section ") + name);
}

/// The relocations of section `name` (e.g. ".rela.debug_line") of `img`.
Elf64_Rela* relocations(std::vector<char>& img, const char* name, std::size_t* count) {
    Elf64_Shdr& rs = sections(img)[section_index(img, name)];
    *count = rs.sh_size / sizeof(Elf64_Rela);
    return reinterpret_cast<Elf64_Rela*>(img.data() + rs.sh_offset);
}

/// Address of the function `name` of module `m` loaded at `code`.
void* symbol(Module& m, char* code, const char* name) {
    Elf64_Shdr* sh = sections(m.image);
    const int symtab = section_index(m.image, ".symtab");
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(m.image.data() + sh[symtab].sh_offset);
    const char* strs = m.image.data() + sh[sh[symtab].sh_link].sh_offset;
    for (std::size_t i = 0; i < sh[symtab].sh_size / sizeof(Elf64_Sym); ++i)
        if (std::strcmp(strs + syms[i].st_name, name) == 0) return code + syms[i].st_value;
    throw std::runtime_error(std::string("no symbol ") + name);
}

/// Copies the object's .text to `code` (writable) and rewrites the section
/// header to hold that address, as LLVM does for debuggers.
Module load(const std::string& path, char* code, const char* entry_name) {
    Module m;
    m.image = read_file(path);
    Elf64_Shdr* sh = sections(m.image);
    const int text = section_index(m.image, ".text");
    if (sh[text].sh_size > kCodeBytes) throw std::runtime_error(".text too large");
    std::memcpy(code, m.image.data() + sh[text].sh_offset, sh[text].sh_size);
    sh[text].sh_addr = reinterpret_cast<std::uintptr_t>(code);
    m.entry = symbol(m, code, entry_name);
    return m;
}

/// Links `e` (describing `image`) at the head of the list, then notifies.
void register_entry(jit_code_entry* e, const std::vector<char>& image, bool notify = true) {
    e->symfile_addr = image.data();
    e->symfile_size = image.size();
    e->prev_entry = nullptr;
    e->next_entry = __jit_debug_descriptor.first_entry;
    if (e->next_entry) e->next_entry->prev_entry = e;
    __jit_debug_descriptor.first_entry = e;
    if (!notify) return;
    __jit_debug_descriptor.relevant_entry = e;
    __jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
    __jit_debug_register_code();
}

/// Links `e` (describing `image`) at the tail of the list, then notifies.
void append_entry(jit_code_entry* e, const std::vector<char>& image) {
    e->symfile_addr = image.data();
    e->symfile_size = image.size();
    e->next_entry = nullptr;
    e->prev_entry = nullptr;
    jit_code_entry** link = &__jit_debug_descriptor.first_entry;
    while (*link) {
        e->prev_entry = *link;
        link = &(*link)->next_entry;
    }
    *link = e;
    __jit_debug_descriptor.relevant_entry = e;
    __jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
    __jit_debug_register_code();
}

/// Unlinks `e`, then notifies.
void unregister_entry(jit_code_entry* e) {
    if (e->prev_entry)
        e->prev_entry->next_entry = e->next_entry;
    else
        __jit_debug_descriptor.first_entry = e->next_entry;
    if (e->next_entry) e->next_entry->prev_entry = e->prev_entry;
    __jit_debug_descriptor.relevant_entry = e;
    __jit_debug_descriptor.action_flag = JIT_UNREGISTER_FN;
    __jit_debug_register_code();
}

/// Hands `e` in as a registration without linking it (a lying entry).
void notify_register(jit_code_entry* e) {
    __jit_debug_descriptor.relevant_entry = e;
    __jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
    __jit_debug_register_code();
}

char* code_memory() {
    void* p = mmap(nullptr, kCodeBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    return static_cast<char*>(p);
}

void make_executable(char* code) {
    if (mprotect(code, kCodeBytes, PROT_READ | PROT_EXEC) != 0)
        throw std::runtime_error("mprotect failed");
}

void make_writable(char* code) {
    if (mprotect(code, kCodeBytes, PROT_READ | PROT_WRITE) != 0)
        throw std::runtime_error("mprotect failed");
}

int call(void* fn, int arg) { return reinterpret_cast<int (*)(int)>(fn)(arg); }

void run_a(const std::string& a) {
    static jit_code_entry entry;
    char* code = code_memory();
    Module m = load(a, code, "gj_run_a");
    register_entry(&entry, m.image);
    make_executable(code);
    std::printf("gj_run_a(20) = %d\n", call(m.entry, 20));
    unregister_entry(&entry);
    munmap(code, kCodeBytes);
}

void reuse(const std::string& a, const std::string& b) {
    static jit_code_entry entry;
    char* code = code_memory();
    Module ma = load(a, code, "gj_run_a");
    register_entry(&entry, ma.image);
    make_executable(code);
    std::printf("gj_run_a(20) = %d\n", call(ma.entry, 20));
    unregister_entry(&entry);
    make_writable(code);
    Module mb = load(b, code, "gj_run_b");
    register_entry(&entry, mb.image);
    make_executable(code);
    std::printf("gj_run_b(10) = %d\n", call(mb.entry, 10));
    unregister_entry(&entry);
    munmap(code, kCodeBytes);
}

void preexisting(const std::string& a, const std::string& b) {
    static jit_code_entry entry_a, entry_b;
    char* code_a = code_memory();
    char* code_b = code_memory();
    Module ma = load(a, code_a, "gj_run_a");
    make_executable(code_a);
    register_entry(&entry_a, ma.image, /*notify=*/false);
    Module mb = load(b, code_b, "gj_run_b");
    // Only the list from first_entry holds A: the notified entry is last.
    append_entry(&entry_b, mb.image);
    make_executable(code_b);
    std::printf("gj_run_a(20) = %d\n", call(ma.entry, 20));
    std::printf("gj_run_b(10) = %d\n", call(mb.entry, 10));
}

void memerr(const std::string& b) {
    static jit_code_entry entry;
    char* code = code_memory();
    Module m = load(b, code, "gj_run_b");
    register_entry(&entry, m.image);
    make_executable(code);
    int* volatile block = static_cast<int*>(std::malloc(sizeof(int)));
    *block = 42;
    std::free(block);
    auto peek = reinterpret_cast<int (*)(const int*)>(symbol(m, code, "gj_peek"));
    volatile int value = peek(block);  // what it reads is undefined
    (void)value;
    std::printf("gj_peek called\n");
    unregister_entry(&entry);
}

/// Writes the `size` bytes at `addr` to `path`.
void save_image(const char* addr, std::uint64_t size, const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    out.write(addr, static_cast<std::streamsize>(size));
    if (!out) throw std::runtime_error("cannot write " + path);
}

void save(const std::string& a, const std::string& b, const std::string& dir) {
    static jit_code_entry ea, eb;
    char* code_a = code_memory();
    char* code_b = code_memory();
    Module ma = load(a, code_a, "gj_run_a");
    Module mb = load(b, code_b, "gj_run_b");
    register_entry(&ea, ma.image);
    register_entry(&eb, mb.image);
    make_executable(code_a);
    make_executable(code_b);
    save_image(ea.symfile_addr, ea.symfile_size, dir + "/module_a.o");
    save_image(eb.symfile_addr, eb.symfile_size, dir + "/module_b.o");
    std::printf("gj_run_a at %p\n", ma.entry);
    std::printf("gj_run_b at %p\n", mb.entry);
    std::printf("gj_run_a(20) = %d\n", call(ma.entry, 20));
    std::printf("gj_run_b(10) = %d\n", call(mb.entry, 10));
    unregister_entry(&eb);
    unregister_entry(&ea);
    munmap(code_a, kCodeBytes);
    munmap(code_b, kCodeBytes);
}

void heap(const std::string& b) {
    static jit_code_entry entry;
    char* code = code_memory();
    Module m = load(b, code, "gj_run_b");
    register_entry(&entry, m.image);
    make_executable(code);
    using Alloc = void* (*)(void* (*)(unsigned long), unsigned long);
    auto alloc = reinterpret_cast<Alloc>(symbol(m, code, "gj_alloc"));
    void* blocks[8];
    for (auto& p : blocks)
        p = alloc(reinterpret_cast<void* (*)(unsigned long)>(&std::malloc), 100000);
    for (auto* p : blocks) std::free(p);
    std::printf("gj_alloc called\n");
}

void say(const char* what) {
    // On stdout: compared with a native run, so a register the
    // interception changed across __jit_debug_register_code shows (GCC
    // keeps `what` in %rdx across the call, which it knows changes no
    // register).
    std::fprintf(stdout, "hostile: %s\n", what);
    std::fflush(stdout);
}

void hostile(const std::string& a);

/// The entry `hostile` hands in without linking it, and last asks to
/// unregister (it was never registered).
jit_code_entry lying_entry;

/// Before any notification: a list with a cycle (e1 -> e2 -> e1).
void cyclic_list(const Module& m) {
    static jit_code_entry e1, e2;
    e1 = {&e2, nullptr, m.image.data(), m.image.size()};
    e2 = {&e1, &e1, m.image.data(), m.image.size()};
    __jit_debug_descriptor.first_entry = &e1;
    __jit_debug_descriptor.action_flag = JIT_NOACTION;
    __jit_debug_register_code();
    __jit_debug_descriptor.first_entry = nullptr;
}

/// Entries and objects that cannot be read, are cut short or whose
/// section headers lie, each handed in without being linked.
void unreadable_and_lying_objects(const Module& m) {
    say("unreadable entry");
    notify_register(reinterpret_cast<jit_code_entry*>(16));

    say("unreadable object");
    lying_entry = {nullptr, nullptr, reinterpret_cast<const char*>(4096), 4096};
    notify_register(&lying_entry);

    say("truncated header");
    lying_entry = {nullptr, nullptr, m.image.data(), 40};
    notify_register(&lying_entry);

    say("truncated section headers");
    lying_entry = {nullptr, nullptr, m.image.data(), m.image.size() - 8};
    notify_register(&lying_entry);

    say("lying symbol table size");
    {
        std::vector<char> bad = m.image;
        sections(bad)[section_index(bad, ".symtab")].sh_size = std::uint64_t(1) << 40;
        lying_entry = {nullptr, nullptr, bad.data(), bad.size()};
        notify_register(&lying_entry);
    }

    say("lying code section size");
    {
        std::vector<char> bad = m.image;
        sections(bad)[section_index(bad, ".text")].sh_size = 4;
        lying_entry = {nullptr, nullptr, bad.data(), bad.size()};
        notify_register(&lying_entry);
    }

    say("code over the program's own text");
    {
        std::vector<char> bad = m.image;
        sections(bad)[section_index(bad, ".text")].sh_addr =
            reinterpret_cast<std::uintptr_t>(&hostile);
        lying_entry = {nullptr, nullptr, bad.data(), bad.size()};
        notify_register(&lying_entry);
    }
}

/// Objects whose names are fine but whose line tables or call frame
/// information are not: the names are registered (in memory that never
/// becomes executable, so they wait), the rest refused.
void bad_line_tables_and_cfi(const Module& m) {
    static jit_code_entry e4;
    say("line table string offset past its section");
    std::vector<char> bad_line_str = m.image;
    {
        std::size_t n = 0;
        Elf64_Rela* r = relocations(bad_line_str, ".rela.debug_line", &n);
        for (std::size_t i = 0; i < n; ++i)
            if (ELF64_R_TYPE(r[i].r_info) == R_X86_64_32) r[i].r_addend = 1 << 24;
        register_entry(&e4, bad_line_str);
    }
    say("line table and CFI relocations of another type");
    std::vector<char> bad_rel_type = m.image;
    {
        std::size_t n = 0;
        Elf64_Rela* r = relocations(bad_rel_type, ".rela.debug_line", &n);
        r[0].r_info = ELF64_R_INFO(ELF64_R_SYM(r[0].r_info), R_X86_64_PC32);
        // Its call frame information too.
        Elf64_Rela* f = relocations(bad_rel_type, ".rela.debug_frame", &n);
        f[0].r_info = ELF64_R_INFO(ELF64_R_SYM(f[0].r_info), R_X86_64_GOTPCREL);
        // The same entry, another object: replaces the one before.
        e4.symfile_addr = bad_rel_type.data();
        e4.symfile_size = bad_rel_type.size();
        notify_register(&e4);
    }
    unregister_entry(&e4);
}

/// Two functions of one object that overlap (gj_run_a moved to 4 bytes
/// into gj_fib), in executable memory: the later one replaces the
/// earlier, as code registered over code does; then unregistered.
void overlapping_functions(const std::string& a) {
    static jit_code_entry e5;
    char* other = code_memory();
    Module o = load(a, other, "gj_run_a");
    Elf64_Shdr* sh = sections(o.image);
    const int symtab = section_index(o.image, ".symtab");
    auto* syms = reinterpret_cast<Elf64_Sym*>(o.image.data() + sh[symtab].sh_offset);
    const char* strs = o.image.data() + sh[sh[symtab].sh_link].sh_offset;
    Elf64_Addr fib = 0;
    for (std::size_t i = 0; i < sh[symtab].sh_size / sizeof(Elf64_Sym); ++i)
        if (std::strcmp(strs + syms[i].st_name, "gj_fib") == 0) fib = syms[i].st_value;
    for (std::size_t i = 0; i < sh[symtab].sh_size / sizeof(Elf64_Sym); ++i)
        if (std::strcmp(strs + syms[i].st_name, "gj_run_a") == 0) syms[i].st_value = fib + 4;
    make_executable(other);
    register_entry(&e5, o.image);
    unregister_entry(&e5);
    munmap(other, kCodeBytes);
}

/// Notifications of an unknown action, and of unregistering an entry that
/// was never registered.
void meaningless_notifications() {
    say("unknown action");
    __jit_debug_descriptor.action_flag = 7;
    __jit_debug_register_code();

    say("unregistering an unknown entry");
    __jit_debug_descriptor.relevant_entry = &lying_entry;
    __jit_debug_descriptor.action_flag = JIT_UNREGISTER_FN;
    __jit_debug_register_code();
}

/// `gdbjit hostile`: each malformed entry, object, line table or list is
/// named by say() before it is handed in; then A runs.
void hostile(const std::string& a) {
    char* code = code_memory();
    say("cycle");
    Module m = load(a, code, "gj_run_a");
    cyclic_list(m);
    unreadable_and_lying_objects(m);
    bad_line_tables_and_cfi(m);
    say("overlapping functions");
    overlapping_functions(a);
    meaningless_notifications();
    say("done");
    munmap(code, kCodeBytes);
    run_a(a);
}

void first_refused(const std::string& a) {
    static jit_code_entry e;
    char* code = code_memory();
    Module m = load(a, code, "gj_run_a");
    std::vector<char> cut(m.image.begin(), m.image.begin() + 40);
    register_entry(&e, cut);
    unregister_entry(&e);
    munmap(code, kCodeBytes);
    run_a(a);
}

}  // namespace

int main(int argc, char** argv) {
    const bool saving = argc == 5 && std::strcmp(argv[1], "save") == 0;
    if (argc != 4 && !saving) {
        std::fprintf(stderr,
                     "usage: gdbjit run|reuse|preexisting|memerr|heap|hostile|first-refused "
                     "MODULE_A.o MODULE_B.o\n"
                     "       gdbjit save MODULE_A.o MODULE_B.o DIR\n");
        return 2;
    }
    const std::string mode = argv[1], a = argv[2], b = argv[3];
    try {
        if (saving)
            save(a, b, argv[4]);
        else if (mode == "run")
            run_a(a);
        else if (mode == "reuse")
            reuse(a, b);
        else if (mode == "preexisting")
            preexisting(a, b);
        else if (mode == "hostile")
            hostile(a);
        else if (mode == "first-refused")
            first_refused(a);
        else if (mode == "memerr")
            memerr(b);
        else if (mode == "heap")
            heap(b);
        else
            throw std::runtime_error("unknown mode " + mode);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gdbjit: %s\n", e.what());
        return 1;
    }
    return 0;
}
