// unit_gdbelf.hpp: what the files of unit_gdbelf share: small ELF
// objects of either class built in memory (TestObject, Object64), and a
// reading of one by the shared rules (readgdbelf.c) with every problem
// and function it reports.
#pragma once

#include <boost/test/unit_test.hpp>

#include "priv_jitformats.h"

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gdbelf_test {

/// The address the test objects' code is loaded at (.text's sh_addr).
const std::uint64_t kLoad = 0x7f1234560000ull;

/// One ELF class's structures.
template <class EhdrT, class ShdrT, class SymT, unsigned char Class>
struct ClassTypes {
    using Ehdr = EhdrT;
    using Shdr = ShdrT;
    using Sym = SymT;
    static const unsigned char kClass = Class;
};
using Elf64 = ClassTypes<Elf64_Ehdr, Elf64_Shdr, Elf64_Sym, ELFCLASS64>;
using Elf32 = ClassTypes<Elf32_Ehdr, Elf32_Shdr, Elf32_Sym, ELFCLASS32>;

/// A small object: section 1 .text (32 bytes of code, two functions of 16
/// bytes: f_one and f_two), 2 .strtab, 3 .symtab (null, STT_FILE "file.c",
/// f_one, f_two), then the section header table (4 entries).
template <class T>
struct TestObject {
    std::vector<unsigned char> bytes;
    std::uint64_t text_at = 0, strtab_at = 0, symtab_at = 0, shoff = 0;
    std::uint64_t strtab_size = 0;
    static const unsigned kSections = 4;

    explicit TestObject(unsigned type = ET_REL, std::uint64_t load = kLoad) {
        const std::string strs = std::string("\0file.c\0f_one\0f_two\0", 20);
        text_at = sizeof(typename T::Ehdr);
        strtab_at = text_at + 32;
        strtab_size = strs.size();
        symtab_at = (strtab_at + strs.size() + 7) / 8 * 8;
        shoff = symtab_at + 4 * sizeof(typename T::Sym);
        bytes.assign(shoff + kSections * sizeof(typename T::Shdr), 0);

        typename T::Ehdr eh{};
        std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = T::kClass;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        eh.e_type = static_cast<std::uint16_t>(type);
        eh.e_machine = EM_X86_64;
        eh.e_version = EV_CURRENT;
        eh.e_shoff = shoff;
        eh.e_ehsize = sizeof eh;
        eh.e_shentsize = sizeof(typename T::Shdr);
        eh.e_shnum = kSections;
        put(0, eh);
        for (unsigned i = 0; i < 32; ++i) bytes[text_at + i] = 0xc3;
        std::memcpy(&bytes[strtab_at], strs.data(), strs.size());

        const std::uint64_t base = type == ET_REL ? 0 : load;
        set_sym(1, 1, STT_FILE, SHN_ABS, 0, 0);
        set_sym(2, 8, STT_FUNC, 1, base, 16);
        set_sym(3, 14, STT_FUNC, 1, base + 16, 16);

        typename T::Shdr text{}, strtab{}, symtab{};
        text.sh_type = SHT_PROGBITS;
        text.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
        text.sh_addr = load;
        text.sh_offset = text_at;
        text.sh_size = 32;
        strtab.sh_type = SHT_STRTAB;
        strtab.sh_offset = strtab_at;
        strtab.sh_size = strs.size();
        symtab.sh_type = SHT_SYMTAB;
        symtab.sh_offset = symtab_at;
        symtab.sh_size = 4 * sizeof(typename T::Sym);
        symtab.sh_link = 2;
        symtab.sh_entsize = sizeof(typename T::Sym);
        set_sh(1, text);
        set_sh(2, strtab);
        set_sh(3, symtab);
    }

    template <class V>
    void put(std::uint64_t at, const V& v) {
        std::memcpy(&bytes[at], &v, sizeof v);
    }
    template <class V>
    V get(std::uint64_t at) const {
        V v;
        std::memcpy(&v, &bytes[at], sizeof v);
        return v;
    }
    typename T::Ehdr ehdr() const { return get<typename T::Ehdr>(0); }
    std::uint64_t sh_at(unsigned i) const { return shoff + i * sizeof(typename T::Shdr); }
    typename T::Shdr sh(unsigned i) const { return get<typename T::Shdr>(sh_at(i)); }
    void set_sh(unsigned i, const typename T::Shdr& s) { put(sh_at(i), s); }
    std::uint64_t sym_at(unsigned k) const { return symtab_at + k * sizeof(typename T::Sym); }
    typename T::Sym sym(unsigned k) const { return get<typename T::Sym>(sym_at(k)); }
    void set_sym(unsigned k, unsigned name, unsigned type, unsigned shndx, std::uint64_t value,
                 std::uint64_t size) {
        typename T::Sym s{};
        s.st_name = name;
        s.st_info = static_cast<unsigned char>((STB_GLOBAL << 4) | type);
        s.st_shndx = static_cast<std::uint16_t>(shndx);
        s.st_value = static_cast<decltype(s.st_value)>(value);
        s.st_size = static_cast<decltype(s.st_size)>(size);
        put(sym_at(k), s);
    }
};
using Object64 = TestObject<Elf64>;

/// A function as the reader reports it.
struct Function {
    std::string name;
    std::uint64_t start, size;
    unsigned section;
    std::uint64_t symbol;
};

/// What one reading found: every problem (the callback goes on unless
/// `stop_after` problems were met), every function, the return codes.
struct Reading {
    std::vector<GdbElfError> problems;
    std::vector<Function> functions;
    std::string file;
    int open_code = -1, functions_code = -1;
    GdbElfObject object{};
    std::size_t stop_after = ~std::size_t(0);

    static int on_problem(void* ctx, const GdbElfError* e) {
        Reading& r = *static_cast<Reading*>(ctx);
        r.problems.push_back(*e);
        return r.problems.size() < r.stop_after;
    }
    static void on_function(void* ctx, const GdbElfFunction* f) {
        static_cast<Reading*>(ctx)->functions.push_back(
            Function{std::string(f->name, f->name_len), f->start, f->size, f->section, f->symbol});
    }
};

/// Reads `b` with a callback that goes on (or stops after `stop_after`
/// problems); with `callback` false, as the core does (no callback).
inline Reading read(const std::vector<unsigned char>& b, bool callback = true,
                    std::size_t stop_after = ~std::size_t(0)) {
    Reading r;
    r.stop_after = stop_after;
    r.open_code = ML_(gdbelf_open)(&r.object, b.data(), b.size(),
                                   callback ? &Reading::on_problem : nullptr, &r);
    r.functions_code = ML_(gdbelf_functions)(&r.object, &Reading::on_function, &r);
    if (r.object.file) r.file.assign(r.object.file, r.object.file_len);
    for (const GdbElfError& e : r.problems) BOOST_TEST(e.at <= b.size());
    return r;
}

/// The codes of r's problems, in order.
inline std::vector<int> codes(const Reading& r) {
    std::vector<int> v;
    for (const GdbElfError& e : r.problems) v.push_back(e.code);
    return v;
}

/// ML_(gdbelf_describe)'s text for e.
inline std::string describe(const GdbElfError& e) {
    char buf[256];
    return ML_(gdbelf_describe)(&e, buf, sizeof buf);
}

/// The one problem r must have met: its code `code` (first and only).
inline const GdbElfError& only_problem(const Reading& r, int code) {
    BOOST_TEST_REQUIRE(r.problems.size() == 1u, "problems: " << r.problems.size());
    BOOST_TEST(r.problems[0].code == code, describe(r.problems[0]));
    BOOST_TEST(r.object.error.code == code);
    BOOST_TEST(r.functions_code == code);
    return r.problems[0];
}
/// True if `part` occurs in `s`.
inline bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace gdbelf_test
