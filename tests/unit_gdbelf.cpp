// unit_gdbelf.cpp: Boost.Test unit tests for the rules by which the core
// and vg-jit accept an ELF object of the GDB JIT interface
// (coregrind-patch/files/coregrind/m_debuginfo/readgdbelf.c, the same C
// source that is compiled into Valgrind's core).  Each case builds a small
// object in memory, breaks one rule and checks the problem code, its place
// and its numbers, and what the reader still finds.
#define BOOST_TEST_MODULE unit_gdbelf
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "priv_jitformats.h"

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

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
Reading read(const std::vector<unsigned char>& b, bool callback = true,
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
std::vector<int> codes(const Reading& r) {
    std::vector<int> v;
    for (const GdbElfError& e : r.problems) v.push_back(e.code);
    return v;
}

/// ML_(gdbelf_describe)'s text for e.
std::string describe(const GdbElfError& e) {
    char buf[256];
    return ML_(gdbelf_describe)(&e, buf, sizeof buf);
}

/// The one problem r must have met: its code `code` (first and only).
const GdbElfError& only_problem(const Reading& r, int code) {
    BOOST_TEST_REQUIRE(r.problems.size() == 1u, "problems: " << r.problems.size());
    BOOST_TEST(r.problems[0].code == code, describe(r.problems[0]));
    BOOST_TEST(r.object.error.code == code);
    BOOST_TEST(r.functions_code == code);
    return r.problems[0];
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(accepted)

BOOST_AUTO_TEST_CASE(a_relocatable_object_has_its_functions_at_the_load_address) {
    const Object64 o;
    const Reading r = read(o.bytes, false);
    BOOST_TEST(r.open_code == GDBELF_OK);
    BOOST_TEST(r.functions_code == GDBELF_OK);
    BOOST_TEST(r.object.n_problems == 0u);
    BOOST_TEST(r.object.elf_class == 64u);
    BOOST_TEST(r.object.type == unsigned(ET_REL));
    BOOST_TEST(r.object.shnum == 4u);
    BOOST_TEST(r.file == "file.c");
    BOOST_TEST_REQUIRE(r.functions.size() == 2u);
    BOOST_TEST(r.functions[0].name == "f_one");
    BOOST_TEST(r.functions[0].start == kLoad);
    BOOST_TEST(r.functions[0].size == 16u);
    BOOST_TEST(r.functions[0].section == 1u);
    BOOST_TEST(r.functions[0].symbol == 2u);
    BOOST_TEST(r.functions[1].name == "f_two");
    BOOST_TEST(r.functions[1].start == kLoad + 16);
}

BOOST_AUTO_TEST_CASE(an_executable_object_has_its_functions_at_their_values) {
    const Object64 o(ET_EXEC, 0x500000);
    const Reading r = read(o.bytes, false);
    BOOST_TEST(r.functions_code == GDBELF_OK);
    BOOST_TEST_REQUIRE(r.functions.size() == 2u);
    BOOST_TEST(r.functions[0].start == 0x500000u);
    BOOST_TEST(r.functions[1].start == 0x500010u);
}

BOOST_AUTO_TEST_CASE(symbols_that_name_no_code_are_skipped) {
    Object64 o;
    o.set_sym(2, 8, STT_FUNC, 1, 0, 0);            // no size
    o.set_sym(3, 14, STT_FUNC, SHN_UNDEF, 0, 16);  // undefined
    Reading r = read(o.bytes, false);
    BOOST_TEST(r.functions_code == GDBELF_OK);
    BOOST_TEST(r.functions.empty());
    o = Object64();
    o.set_sym(2, 8, STT_OBJECT, 1, 0, 16);       // data
    o.set_sym(3, 14, STT_FUNC, SHN_ABS, 0, 16);  // absolute
    r = read(o.bytes, false);
    BOOST_TEST(r.functions.empty());
    // A section that is not executable, or not allocated, holds no code.
    o = Object64();
    Elf64_Shdr t = o.sh(1);
    t.sh_flags = SHF_ALLOC;
    o.set_sh(1, t);
    BOOST_TEST(read(o.bytes, false).functions.empty());
    t.sh_flags = SHF_EXECINSTR;
    o.set_sh(1, t);
    BOOST_TEST(read(o.bytes, false).functions.empty());
    // Of any type: SHT_NULL too.
    t.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
    t.sh_type = SHT_NULL;
    o.set_sh(1, t);
    BOOST_TEST(read(o.bytes, false).functions.size() == 2u);
}

BOOST_AUTO_TEST_CASE(the_source_file_is_the_first_named_file_symbol) {
    Object64 o;
    o.set_sym(1, 7, STT_FILE, SHN_ABS, 0, 0);  // the empty name at the end of "file.c"
    const Reading r = read(o.bytes, false);
    BOOST_TEST(r.functions_code == GDBELF_OK);
    BOOST_TEST(r.object.file == nullptr);
    o.set_sym(3, 8, STT_FILE, SHN_ABS, 0, 0);  // "f_one" as a file name
    BOOST_TEST(read(o.bytes, false).file == "f_one");
    o.set_sym(1, 1, STT_FILE, SHN_ABS, 0, 0);  // "file.c" before it
    BOOST_TEST(read(o.bytes, false).file == "file.c");
}

BOOST_AUTO_TEST_CASE(a_function_ending_at_the_last_byte_of_the_address_space) {
    Object64 o(ET_EXEC, 0xffffffffffffffdfull);
    const Reading r = read(o.bytes, false);
    BOOST_TEST(r.functions_code == GDBELF_OK);
    BOOST_TEST(r.functions.size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(header)

BOOST_AUTO_TEST_CASE(not_elf_and_short_objects) {
    Object64 o;
    std::vector<unsigned char> b = o.bytes;
    b[1] = 'e';
    only_problem(read(b), GDBELF_ERR_NOT_ELF);
    BOOST_TEST(!read(b).object.opened);
    b.assign(o.bytes.begin(), o.bytes.begin() + 3);
    only_problem(read(b), GDBELF_ERR_NOT_ELF);
    b.assign(o.bytes.begin(), o.bytes.begin() + 10);
    const GdbElfError e = only_problem(read(b), GDBELF_ERR_SHORT);
    BOOST_TEST(e.num[0] == 10u);
    BOOST_TEST(e.num[1] == 16u);
    b.assign(o.bytes.begin(), o.bytes.begin() + 40);
    const Reading r = read(b);
    const GdbElfError h = only_problem(r, GDBELF_ERR_SHORT);
    BOOST_TEST(h.num[0] == 40u);
    BOOST_TEST(h.num[1] == sizeof(Elf64_Ehdr));
    BOOST_TEST(!r.object.have_header);
    BOOST_TEST(describe(h) == "shorter than an ELF header: 40 bytes, the header needs 64");
    BOOST_TEST(read(std::vector<unsigned char>()).object.error.code == GDBELF_ERR_NOT_ELF);
}

BOOST_AUTO_TEST_CASE(unknown_class_or_byte_order) {
    Object64 o;
    o.bytes[EI_CLASS] = 7;
    const GdbElfError c = only_problem(read(o.bytes), GDBELF_ERR_BAD_CLASS);
    BOOST_TEST(c.at == unsigned(EI_CLASS));
    BOOST_TEST(c.num[0] == 7u);
    o = Object64();
    o.bytes[EI_DATA] = 0;
    const GdbElfError d = only_problem(read(o.bytes), GDBELF_ERR_BAD_BYTE_ORDER);
    BOOST_TEST(d.at == unsigned(EI_DATA));
    BOOST_TEST(describe(d) == "unknown ELF byte order 0");
}

BOOST_AUTO_TEST_CASE(another_byte_order_is_refused_but_decoded) {
    Object64 o;
    o.bytes[EI_DATA] = ELFDATA2MSB;
    // The core stops at once.
    Reading r = read(o.bytes, false);
    BOOST_TEST(r.open_code == GDBELF_ERR_FOREIGN_BYTE_ORDER);
    BOOST_TEST(!r.object.opened);
    BOOST_TEST(r.object.error.num[0] == unsigned(ELFDATA2MSB));
    BOOST_TEST(r.object.error.num[1] == unsigned(ELFDATA2LSB));
    // Read on: the little-endian fields, taken as big-endian, say e_type
    // 0x0100.
    r = read(o.bytes);
    BOOST_TEST_REQUIRE(r.problems.size() >= 2u);
    BOOST_TEST(r.problems[1].code == GDBELF_ERR_BAD_TYPE);
    BOOST_TEST(r.problems[1].num[0] == 0x100u);
}

BOOST_AUTO_TEST_CASE(another_class_is_refused_and_still_read) {
    TestObject<Elf32> o32(ET_REL, 0x8000);
    Reading core = read(o32.bytes, false);
    BOOST_TEST(core.open_code == GDBELF_ERR_FOREIGN_CLASS);
    BOOST_TEST(core.functions.empty());
    BOOST_TEST(core.object.error.num[0] == 32u);
    BOOST_TEST(core.object.error.num[1] == sizeof(void*) * 8);
    const Reading r = read(o32.bytes);
    BOOST_TEST(codes(r) == std::vector<int>{GDBELF_ERR_FOREIGN_CLASS});
    BOOST_TEST(r.functions_code == GDBELF_ERR_FOREIGN_CLASS);
    BOOST_TEST_REQUIRE(r.functions.size() == 2u);
    BOOST_TEST(r.functions[1].start == 0x8010u);
    BOOST_TEST(r.file == "file.c");
    BOOST_TEST(describe(r.problems[0]) ==
               "ELF class differs from the program's: ELFCLASS32, the program's ELFCLASS64");
}

BOOST_AUTO_TEST_CASE(object_types_other_than_rel_exec_dyn) {
    Object64 o;
    Elf64_Ehdr eh = o.ehdr();
    eh.e_type = ET_CORE;
    o.put(0, eh);
    const GdbElfError e = only_problem(read(o.bytes, true, 1), GDBELF_ERR_BAD_TYPE);
    BOOST_TEST(e.at == offsetof(Elf64_Ehdr, e_type));
    BOOST_TEST(e.num[0] == unsigned(ET_CORE));
    BOOST_TEST(describe(e) == "not a relocatable, executable or shared object: e_type 4");
    // Read on: an object that is not relocatable takes st_value as the
    // address, and 0 and 16 lie below .text's.
    const Reading r = read(o.bytes);
    BOOST_TEST((codes(r) == std::vector<int>{GDBELF_ERR_BAD_TYPE, GDBELF_ERR_FN_OUTSIDE_SECTION,
                                             GDBELF_ERR_FN_OUTSIDE_SECTION}));
    BOOST_TEST(r.functions.empty());
    eh.e_type = ET_DYN;
    o.put(0, eh);
    BOOST_TEST(read(o.bytes).functions_code == GDBELF_ERR_FN_OUTSIDE_SECTION);
}

BOOST_AUTO_TEST_CASE(section_header_table_fields) {
    Object64 o;
    Elf64_Ehdr eh = o.ehdr();
    eh.e_shnum = 0;
    o.put(0, eh);
    BOOST_TEST(only_problem(read(o.bytes), GDBELF_ERR_NO_SECTIONS).at ==
               offsetof(Elf64_Ehdr, e_shnum));
    eh.e_shnum = 65281;
    o.put(0, eh);
    const GdbElfError many = only_problem(read(o.bytes), GDBELF_ERR_TOO_MANY_SECTIONS);
    BOOST_TEST(many.num[0] == 65281u);
    BOOST_TEST(many.num[1] == GDBELF_MAX_SECTIONS);
    o = Object64();
    eh = o.ehdr();
    eh.e_shentsize = 60;
    o.put(0, eh);
    const GdbElfError size = only_problem(read(o.bytes), GDBELF_ERR_SHENTSIZE);
    BOOST_TEST(size.at == offsetof(Elf64_Ehdr, e_shentsize));
    BOOST_TEST(describe(size) == "unexpected section header size: 60 bytes, not 64");
}

BOOST_AUTO_TEST_CASE(section_header_table_out_of_bounds) {
    Object64 o;
    // One byte short.
    std::vector<unsigned char> b(o.bytes.begin(), o.bytes.end() - 1);
    const GdbElfError cut = only_problem(read(b), GDBELF_ERR_SHDRS_OUTSIDE);
    BOOST_TEST(cut.at == offsetof(Elf64_Ehdr, e_shoff));
    BOOST_TEST(cut.num[0] == o.shoff);
    BOOST_TEST(cut.num[1] == 4u);
    BOOST_TEST(cut.num[2] == 4 * sizeof(Elf64_Shdr));
    BOOST_TEST(cut.num[3] == b.size());
    BOOST_TEST(contains(describe(cut),
                        "section headers lie outside the object: 4 entries (256 "
                        "bytes) at offset 0x"));
    // Offsets whose sum with the table's size overflows.
    for (std::uint64_t shoff :
         std::vector<std::uint64_t>{~0ull, ~0ull - 255, ~0ull - 7, 1ull << 63}) {
        Elf64_Ehdr eh = o.ehdr();
        eh.e_shoff = shoff;
        Object64 bad = o;
        bad.put(0, eh);
        BOOST_TEST(only_problem(read(bad.bytes), GDBELF_ERR_SHDRS_OUTSIDE).num[0] == shoff);
    }
    // The table ending exactly at the end is fine.
    BOOST_TEST(read(o.bytes).problems.empty());
}

BOOST_AUTO_TEST_CASE(an_unaligned_section_header_table) {
    Object64 o;
    // Move the table 4 bytes on.
    std::vector<unsigned char> b(o.bytes.begin(), o.bytes.begin() + o.shoff);
    b.insert(b.end(), 4, 0);
    b.insert(b.end(), o.bytes.begin() + o.shoff, o.bytes.end());
    Elf64_Ehdr eh = o.ehdr();
    eh.e_shoff += 4;
    std::memcpy(b.data(), &eh, sizeof eh);
    const Reading r = read(b);
    const GdbElfError e = only_problem(r, GDBELF_ERR_SHDRS_UNALIGNED);
    BOOST_TEST(e.num[1] == 8u);
    // Read on: the table is decoded all the same.
    BOOST_TEST(r.functions.size() == 2u);
    BOOST_TEST(read(b, false).functions.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(symbol_tables)

BOOST_AUTO_TEST_CASE(no_symbol_table) {
    Object64 o;
    Elf64_Shdr s = o.sh(3);
    s.sh_type = SHT_PROGBITS;
    o.set_sh(3, s);
    const Reading r = read(o.bytes);
    BOOST_TEST(r.open_code == GDBELF_OK);
    BOOST_TEST(only_problem(r, GDBELF_ERR_NO_SYMTAB).at == 0u);
}

BOOST_AUTO_TEST_CASE(entry_size_and_size) {
    Object64 o;
    Elf64_Shdr s = o.sh(3);
    s.sh_entsize = 16;
    o.set_sh(3, s);
    const GdbElfError e = only_problem(read(o.bytes), GDBELF_ERR_SYMTAB_ENTSIZE);
    BOOST_TEST(e.section == 3u);
    BOOST_TEST(e.at == o.sh_at(3) + offsetof(Elf64_Shdr, sh_entsize));
    BOOST_TEST(e.num[0] == 16u);
    BOOST_TEST(e.num[2] == sizeof(Elf64_Sym));
    s = o.sh(3);
    s.sh_entsize = sizeof(Elf64_Sym);
    s.sh_size -= 5;
    o.set_sh(3, s);
    const GdbElfError f = only_problem(read(o.bytes), GDBELF_ERR_SYMTAB_ENTSIZE);
    BOOST_TEST(describe(f) == "symbol table is malformed: section 3 has entry size 24 and size " +
                                  std::to_string(s.sh_size) +
                                  ", not a whole number of 24-byte symbols");
}

BOOST_AUTO_TEST_CASE(a_symbol_table_out_of_bounds) {
    Object64 o;
    for (std::uint64_t off :
         std::vector<std::uint64_t>{o.bytes.size() - 24, ~0ull - 23, ~0ull - 95}) {
        Object64 bad = o;
        Elf64_Shdr s = bad.sh(3);
        s.sh_offset = off;
        bad.set_sh(3, s);
        const GdbElfError e = only_problem(read(bad.bytes), GDBELF_ERR_SYMTAB_OUTSIDE);
        BOOST_TEST(e.at == o.sh_at(3));
        BOOST_TEST(e.num[0] == off);
        BOOST_TEST(e.num[1] == 4 * sizeof(Elf64_Sym));
        BOOST_TEST(e.num[2] == o.bytes.size());
    }
    // A size that is a whole number of symbols but far too large.
    Elf64_Shdr s = o.sh(3);
    s.sh_size = 24ull << 40;
    o.set_sh(3, s);
    only_problem(read(o.bytes), GDBELF_ERR_SYMTAB_OUTSIDE);
}

BOOST_AUTO_TEST_CASE(an_unaligned_symbol_table_is_refused_and_still_read) {
    Object64 o;
    Elf64_Shdr s = o.sh(3);
    s.sh_offset = o.strtab_at + 4;  // 4-aligned, not 8: one null symbol's room
    s.sh_size = 24;
    o.set_sh(3, s);
    const Reading r = read(o.bytes);
    BOOST_TEST(only_problem(r, GDBELF_ERR_SYMTAB_UNALIGNED).num[0] == o.strtab_at + 4);
    BOOST_TEST(read(o.bytes, false).object.error.num[1] == 8u);
}

BOOST_AUTO_TEST_CASE(the_string_table_link) {
    Object64 o;
    for (unsigned link : {0u, 4u, 1000u}) {
        Elf64_Shdr s = o.sh(3);
        s.sh_link = link;
        Object64 bad = o;
        bad.set_sh(3, s);
        const GdbElfError e = only_problem(read(bad.bytes), GDBELF_ERR_SYMTAB_NO_STRTAB);
        BOOST_TEST(e.num[0] == link);
        BOOST_TEST(e.at == o.sh_at(3) + offsetof(Elf64_Shdr, sh_link));
    }
    // Linked to a section that is no string table.
    Elf64_Shdr s = o.sh(3);
    s.sh_link = 1;
    Object64 bad = o;
    bad.set_sh(3, s);
    const GdbElfError e = only_problem(read(bad.bytes), GDBELF_ERR_STRTAB_BAD);
    BOOST_TEST(e.num[0] == 1u);
    BOOST_TEST(e.num[1] == unsigned(SHT_PROGBITS));
    BOOST_TEST(e.at == o.sh_at(1));
    // A string table past the end, by an offset that overflows.
    Elf64_Shdr t = o.sh(2);
    t.sh_offset = ~0ull - 3;
    bad = o;
    bad.set_sh(2, t);
    BOOST_TEST(only_problem(read(bad.bytes), GDBELF_ERR_STRTAB_BAD).num[2] == ~0ull - 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(symbols)

BOOST_AUTO_TEST_CASE(symbol_names) {
    Object64 o;
    o.set_sym(2, 0, STT_FUNC, 1, 0, 16);
    Reading r = read(o.bytes);
    GdbElfError e = only_problem(r, GDBELF_ERR_SYM_NO_NAME);
    BOOST_TEST(e.symbol == 2u);
    BOOST_TEST(e.symtab == 3u);
    BOOST_TEST(e.at == o.sym_at(2));
    // Read on: the other function is still found.
    BOOST_TEST_REQUIRE(r.functions.size() == 1u);
    BOOST_TEST(r.functions[0].name == "f_two");

    o = Object64();
    o.set_sym(1, static_cast<unsigned>(o.strtab_size), STT_FILE, SHN_ABS, 0, 0);
    e = only_problem(read(o.bytes), GDBELF_ERR_SYM_NAME_OUTSIDE);
    BOOST_TEST(e.num[0] == o.strtab_size);
    BOOST_TEST(e.num[1] == unsigned(STT_FILE));
    BOOST_TEST(describe(e) ==
               "symbol name lies outside the string table: file symbol 1 of "
               "section 3, name offset 20, string table of 20 bytes");
    o.set_sym(1, 0xffffffffu, STT_FILE, SHN_ABS, 0, 0);
    only_problem(read(o.bytes), GDBELF_ERR_SYM_NAME_OUTSIDE);

    // The last name loses its NUL.
    o = Object64();
    o.bytes[o.strtab_at + o.strtab_size - 1] = 'x';
    e = only_problem(read(o.bytes), GDBELF_ERR_SYM_NAME_UNTERMINATED);
    BOOST_TEST(e.symbol == 3u);
    // Names of other symbols are not the rules' business.
    o = Object64();
    o.set_sym(3, 0xffffff, STT_OBJECT, 1, 0, 16);
    BOOST_TEST(read(o.bytes).problems.empty());
}

BOOST_AUTO_TEST_CASE(a_relocatable_code_section_without_a_load_address) {
    Object64 o(ET_REL, 0);
    const Reading r = read(o.bytes);
    BOOST_TEST_REQUIRE(r.problems.size() == 2u);  // once per function
    for (const GdbElfError& e : r.problems) {
        BOOST_TEST(e.code == GDBELF_ERR_NO_LOAD_ADDRESS);
        BOOST_TEST(e.section == 1u);
        BOOST_TEST(e.at == o.sh_at(1) + offsetof(Elf64_Shdr, sh_addr));
    }
    BOOST_TEST(r.functions.empty());
    BOOST_TEST(read(o.bytes, false).problems.empty());  // no callback: nothing handed on
    BOOST_TEST(read(o.bytes, false).object.n_problems == 1u);
    // An executable object needs none.
    BOOST_TEST(read(Object64(ET_EXEC, 0).bytes).problems.empty());
}

BOOST_AUTO_TEST_CASE(functions_outside_their_section) {
    // Relocatable: the value is an offset in the section.
    Object64 o;
    o.set_sym(3, 14, STT_FUNC, 1, 17, 16);  // one byte past the end
    const Reading r = read(o.bytes);
    const GdbElfError e = only_problem(r, GDBELF_ERR_FN_OUTSIDE_SECTION);
    BOOST_TEST(e.at == o.sym_at(3));
    BOOST_TEST(e.num[0] == 17u);
    BOOST_TEST(e.num[1] == 16u);
    BOOST_TEST(e.num[2] == kLoad);
    BOOST_TEST(e.num[3] == 32u);
    BOOST_TEST(std::string(e.name) == "f_two");
    BOOST_TEST(r.functions.size() == 1u);
    o.set_sym(3, 14, STT_FUNC, 1, 16, 16);  // ends exactly at the end
    BOOST_TEST(read(o.bytes).problems.empty());
    // Values and sizes whose sum overflows.
    o.set_sym(3, 14, STT_FUNC, 1, ~0ull - 7, 16);
    only_problem(read(o.bytes), GDBELF_ERR_FN_OUTSIDE_SECTION);
    o.set_sym(3, 14, STT_FUNC, 1, 8, ~0ull - 3);
    only_problem(read(o.bytes), GDBELF_ERR_FN_OUTSIDE_SECTION);

    // Executable: the value is an address in [sh_addr, sh_addr + sh_size).
    Object64 x(ET_EXEC, 0x500000);
    x.set_sym(2, 8, STT_FUNC, 1, 0x4ffff0, 16);  // below
    const GdbElfError below = only_problem(read(x.bytes), GDBELF_ERR_FN_OUTSIDE_SECTION);
    BOOST_TEST(describe(below) ==
               "a function lies outside its section: symbol 2 'f_one', value "
               "0x4ffff0, size 16, in section 1 (address 0x500000, 32 bytes)");
    x.set_sym(2, 8, STT_FUNC, 1, 0x500011, 16);  // past
    only_problem(read(x.bytes), GDBELF_ERR_FN_OUTSIDE_SECTION);
    x.set_sym(2, 8, STT_FUNC, 1, 0x500010, ~0ull);
    only_problem(read(x.bytes), GDBELF_ERR_FN_OUTSIDE_SECTION);
}

BOOST_AUTO_TEST_CASE(functions_whose_range_wraps_around) {
    // A load address near the top: the second function reaches 2^64 (as
    // the core has always counted it, a range ending there wraps).
    Object64 o(ET_REL, 0xffffffffffffffe0ull);
    const Reading r = read(o.bytes);
    const GdbElfError e = only_problem(r, GDBELF_ERR_FN_WRAPS);
    BOOST_TEST(e.symbol == 3u);
    BOOST_TEST(e.num[2] == 0xffffffffffffffe0ull);
    BOOST_TEST(r.functions.size() == 1u);
    // An executable object's section that wraps.
    Object64 x(ET_EXEC, 0xffffffffffffffe0ull);
    only_problem(read(x.bytes), GDBELF_ERR_FN_WRAPS);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(reporting)

BOOST_AUTO_TEST_CASE(the_callback_decides_whether_reading_goes_on) {
    Object64 o;
    o.set_sym(1, 0, STT_FILE, SHN_ABS, 0, 0);
    o.set_sym(2, 0, STT_FUNC, 1, 0, 16);
    o.set_sym(3, 14, STT_FUNC, 1, 40, 16);
    Reading all = read(o.bytes);
    BOOST_TEST((codes(all) == std::vector<int>{GDBELF_ERR_SYM_NO_NAME, GDBELF_ERR_SYM_NO_NAME,
                                               GDBELF_ERR_FN_OUTSIDE_SECTION}));
    BOOST_TEST(all.object.n_problems == 3u);
    BOOST_TEST(all.object.error.symbol == 1u);  // the first stays
    Reading one = read(o.bytes, true, 1);
    BOOST_TEST(one.problems.size() == 1u);
    BOOST_TEST(one.object.n_problems == 1u);
    // A problem marked "stop" stops whatever the callback says.
    std::vector<unsigned char> b(o.bytes.begin(), o.bytes.begin() + 20);
    BOOST_TEST(read(b).problems.size() == 1u);
}

BOOST_AUTO_TEST_CASE(every_code_has_its_own_text) {
    std::set<std::string> seen;
    for (int c = 1; c <= GDBELF_ERR_MAX; ++c) {
        const std::string s = ML_(gdbelf_strerror)(c);
        BOOST_TEST(s != "unknown problem", c);
        BOOST_TEST(seen.insert(s).second, s);
        GdbElfError e{};
        e.code = c;
        BOOST_TEST(contains(describe(e), s), c);
        BOOST_TEST(!contains(describe(e), "{"), describe(e));  // every field filled
    }
    BOOST_TEST(std::string(ML_(gdbelf_strerror)(GDBELF_ERR_MAX + 1)) == "unknown problem");
    BOOST_TEST(std::string(ML_(gdbelf_strerror)(-1)) == "unknown problem");
}

BOOST_AUTO_TEST_CASE(descriptions_name_the_sections_of_the_object) {
    Object64 o;
    Elf64_Ehdr eh = o.ehdr();
    eh.e_shstrndx = 2;  // the string table names the sections too
    o.put(0, eh);
    Elf64_Shdr s = o.sh(3);
    s.sh_name = 1;  // "file.c"
    s.sh_entsize = 16;
    o.set_sh(3, s);
    const Reading r = read(o.bytes);
    const GdbElfError e = only_problem(r, GDBELF_ERR_SYMTAB_ENTSIZE);
    char buf[300];
    BOOST_TEST(std::string(ML_(gdbelf_describe_in)(&r.object, &e, buf, sizeof buf)) ==
               "symbol table is malformed: section 3 'file.c' has entry size 16 and size 96, "
               "not a whole number of 24-byte symbols");
    // Without the object, or with a name that is not printable, the
    // number alone.
    BOOST_TEST(describe(e) ==
               "symbol table is malformed: section 3 has entry size 16 and size "
               "96, not a whole number of 24-byte symbols");
    o.bytes[o.strtab_at + 1] = 0x1b;
    const Reading esc = read(o.bytes);
    BOOST_TEST(contains(ML_(gdbelf_describe_in)(&esc.object, &esc.problems.at(0), buf, sizeof buf),
                        "section 3 has entry size"));
}

BOOST_AUTO_TEST_CASE(descriptions_are_cut_to_the_buffer) {
    GdbElfError e{};
    e.code = GDBELF_ERR_SHDRS_OUTSIDE;
    e.num[0] = ~0ull;
    e.num[1] = 65535;
    e.num[2] = 65535ull * 64;
    e.num[3] = 12345;
    char buf[300];
    const std::string whole = ML_(gdbelf_describe)(&e, buf, sizeof buf);
    BOOST_TEST(whole ==
               "section headers lie outside the object: 65535 entries (4194240 bytes) at "
               "offset 0xffffffffffffffff, the object has 12345 bytes");
    for (unsigned long size : {1ul, 2ul, 10ul, 41ul}) {
        std::memset(buf, 'z', sizeof buf);
        ML_(gdbelf_describe)(&e, buf, size);
        BOOST_TEST(std::string(buf) == whole.substr(0, size - 1));
        BOOST_TEST(buf[size] == 'z');  // nothing written past the size
    }
    buf[0] = 'z';
    ML_(gdbelf_describe)(&e, buf, 0);
    BOOST_TEST(buf[0] == 'z');
}

BOOST_AUTO_TEST_CASE(sections_are_decoded_in_either_class) {
    const Object64 o;
    GdbElfObject obj;
    BOOST_TEST_REQUIRE(ML_(gdbelf_open)(&obj, o.bytes.data(), o.bytes.size(), nullptr, nullptr) ==
                       GDBELF_OK);
    GdbElfSection s;
    BOOST_TEST(ML_(gdbelf_section)(&obj, 3, &s) == 1);
    BOOST_TEST(s.type == unsigned(SHT_SYMTAB));
    BOOST_TEST(s.link == 2u);
    BOOST_TEST(s.offset == o.symtab_at);
    BOOST_TEST(s.entsize == sizeof(Elf64_Sym));
    BOOST_TEST(ML_(gdbelf_section)(&obj, 4, &s) == 0);
    BOOST_TEST(s.size == 0u);
    const TestObject<Elf32> o32(ET_EXEC, 0x8000);
    ML_(gdbelf_open)(&obj, o32.bytes.data(), o32.bytes.size(), nullptr, nullptr);
    BOOST_TEST(ML_(gdbelf_section)(&obj, 1, &s) == 0);  // refused: another class
    Reading r = read(o32.bytes);
    BOOST_TEST(ML_(gdbelf_section)(&r.object, 1, &s) == 1);
    BOOST_TEST(s.addr == 0x8000u);
    BOOST_TEST(s.size == 32u);
    BOOST_TEST(s.flags == (SHF_ALLOC | SHF_EXECINSTR));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// Object64 with DWARF sections appended: 4 .shstrtab, 5 .debug_line (32
/// bytes), 6 .eh_frame (32 bytes, not loaded), 7 .rela.debug_line (one
/// R_X86_64_64 at 8 against f_one, addend 4), 8 .rela.eh_frame (one
/// R_X86_64_PC32 at 4 against f_one), 9 .debug_info, 10 .debug_abbrev.
struct DwarfObject {
    Object64 o;
    std::vector<unsigned char> bytes;
    std::uint64_t shoff = 0, rela_line_at = 0, rela_eh_at = 0;
    static const unsigned kSections = 11;

    DwarfObject() {
        static const char kNames[] =
            "\0.shstrtab\0.debug_line\0.eh_frame\0.rela.debug_line\0.rela.eh_frame\0"
            ".debug_info\0.debug_abbrev";
        const std::string names(kNames, sizeof kNames);
        bytes.assign(o.bytes.begin(), o.bytes.begin() + o.shoff);
        auto append = [&](const void* p, std::size_t n) {
            while (bytes.size() % 8) bytes.push_back(0);
            const std::uint64_t at = bytes.size();
            const unsigned char* c = static_cast<const unsigned char*>(p);
            bytes.insert(bytes.end(), c, c + n);
            return at;
        };
        const std::vector<unsigned char> zeros(32, 0);
        const std::uint64_t names_at = append(names.data(), names.size());
        const std::uint64_t line_at = append(zeros.data(), 32);
        const std::uint64_t eh_at = append(zeros.data(), 32);
        const Elf64_Rela line_rel{8, ELF64_R_INFO(2, R_X86_64_64), 4};
        const Elf64_Rela eh_rel{4, ELF64_R_INFO(2, R_X86_64_PC32), 0};
        rela_line_at = append(&line_rel, sizeof line_rel);
        rela_eh_at = append(&eh_rel, sizeof eh_rel);
        const std::uint64_t info_at = append(zeros.data(), 8);
        const std::uint64_t abbrev_at = append(zeros.data(), 8);
        while (bytes.size() % 8) bytes.push_back(0);
        shoff = bytes.size();
        bytes.resize(shoff + kSections * sizeof(Elf64_Shdr), 0);
        for (unsigned i = 0; i < Object64::kSections; ++i) set_sh(i, o.sh(i));
        auto sec = [&](unsigned i, unsigned name, unsigned type, std::uint64_t at,
                       std::uint64_t size) {
            Elf64_Shdr s{};
            s.sh_name = name;
            s.sh_type = type;
            s.sh_offset = at;
            s.sh_size = size;
            set_sh(i, s);
        };
        sec(4, 1, SHT_STRTAB, names_at, names.size());
        sec(5, 11, SHT_PROGBITS, line_at, 32);
        sec(6, 23, SHT_PROGBITS, eh_at, 32);
        sec(7, 33, SHT_RELA, rela_line_at, sizeof(Elf64_Rela));
        sec(8, 50, SHT_RELA, rela_eh_at, sizeof(Elf64_Rela));
        sec(9, 65, SHT_PROGBITS, info_at, 8);
        sec(10, 77, SHT_PROGBITS, abbrev_at, 8);
        for (unsigned r : {7u, 8u}) {
            Elf64_Shdr s = sh(r);
            s.sh_link = 3;
            s.sh_info = r - 2;
            s.sh_entsize = sizeof(Elf64_Rela);
            set_sh(r, s);
        }
        Elf64_Ehdr eh = o.ehdr();
        eh.e_shoff = shoff;
        eh.e_shnum = kSections;
        eh.e_shstrndx = 4;
        std::memcpy(&bytes[0], &eh, sizeof eh);
    }
    Elf64_Shdr sh(unsigned i) const {
        Elf64_Shdr s;
        std::memcpy(&s, &bytes[shoff + i * sizeof s], sizeof s);
        return s;
    }
    void set_sh(unsigned i, const Elf64_Shdr& s) {
        std::memcpy(&bytes[shoff + i * sizeof s], &s, sizeof s);
    }
    void set_rel(std::uint64_t at, const Elf64_Rela& r) { std::memcpy(&bytes[at], &r, sizeof r); }
};

/// What the shared reader says of one DWARF section of `b`.
struct DwarfReading {
    GdbElfObject object{};
    GdbElfDwarf dwarf{};
    int section_code = -1, code = -1;
    GdbElfError error{};
    std::vector<GdbElfRelocation> relocations;

    DwarfReading(const std::vector<unsigned char>& b, unsigned s) {
        BOOST_TEST_REQUIRE(ML_(gdbelf_open)(&object, b.data(), b.size(), nullptr, nullptr) ==
                           GDBELF_OK);
        ML_(gdbelf_dwarf_sections)(&object, &dwarf);
        section_code = ML_(gdbelf_dwarf_section_problem)(&object, &dwarf, s, &error);
        if (section_code != GDBELF_OK) return;
        code =
            ML_(gdbelf_dwarf_relocations)(&object, &dwarf, s, kLoad, &on_relocation, this, &error);
        BOOST_TEST(error.code == code);
        BOOST_TEST(error.at < b.size());
    }
    static void on_relocation(void* ctx, const GdbElfRelocation* r) {
        static_cast<DwarfReading*>(ctx)->relocations.push_back(*r);
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(dwarf_sections)

BOOST_AUTO_TEST_CASE(the_sections_read_and_the_relocations_applied) {
    const DwarfObject d;
    DwarfReading line(d.bytes, GDBELF_DW_LINE);
    BOOST_TEST(line.dwarf.shndx[GDBELF_DW_LINE] == 5u);
    BOOST_TEST(line.dwarf.shndx[GDBELF_DW_EH_FRAME] == 6u);
    BOOST_TEST(line.dwarf.shndx[GDBELF_DW_INFO] == 9u);
    BOOST_TEST(line.dwarf.shndx[GDBELF_DW_ABBREV] == 10u);
    BOOST_TEST(line.dwarf.shndx[GDBELF_DW_DEBUG_FRAME] == 0u);
    BOOST_TEST(line.dwarf.want_lines == 1);
    BOOST_TEST(line.dwarf.cfi == GDBELF_DW_EH_FRAME);
    BOOST_TEST(std::string(ML_(gdbelf_dwarf_name)(GDBELF_DW_LINE)) == ".debug_line");
    BOOST_TEST(ML_(gdbelf_dwarf_name)(GDBELF_DW_N) == nullptr);
    BOOST_TEST(line.code == GDBELF_OK);
    BOOST_TEST_REQUIRE(line.relocations.size() == 1u);
    const GdbElfRelocation& r = line.relocations[0];
    BOOST_TEST(r.dwarf == unsigned(GDBELF_DW_LINE));
    BOOST_TEST(r.section == 7u);
    BOOST_TEST(r.offset == 8u);
    BOOST_TEST(r.width == 8u);
    BOOST_TEST(r.symbol_value == kLoad);
    BOOST_TEST(r.value == kLoad + 4);
    // .eh_frame, not loaded, is taken to sit at code_lo: a PC-relative
    // pointer at its offset 4 to code_lo is -4.
    DwarfReading eh(d.bytes, GDBELF_DW_EH_FRAME);
    BOOST_TEST(ML_(gdbelf_dwarf_addr)(&eh.object, &eh.dwarf, 6, kLoad) == kLoad);
    BOOST_TEST(ML_(gdbelf_dwarf_addr)(&eh.object, &eh.dwarf, 1, 0) == kLoad);
    BOOST_TEST_REQUIRE(eh.relocations.size() == 1u);
    BOOST_TEST(eh.relocations[0].width == 4u);
    BOOST_TEST(eh.relocations[0].value == std::uint64_t(-4));
    // Without .debug_abbrev there is no line table to read.
    DwarfObject no_abbrev;
    Elf64_Shdr s = no_abbrev.sh(10);
    s.sh_type = SHT_NOBITS;
    no_abbrev.set_sh(10, s);
    BOOST_TEST(DwarfReading(no_abbrev.bytes, GDBELF_DW_LINE).dwarf.want_lines == 0);
}

BOOST_AUTO_TEST_CASE(an_object_not_relocatable_has_no_relocations_applied) {
    DwarfObject d;
    Elf64_Ehdr eh;
    std::memcpy(&eh, d.bytes.data(), sizeof eh);
    eh.e_type = ET_EXEC;
    std::memcpy(d.bytes.data(), &eh, sizeof eh);
    // The functions of an ET_EXEC object are at their values.
    Elf64_Shdr text = d.sh(1);
    text.sh_addr = 0;
    d.set_sh(1, text);
    DwarfReading line(d.bytes, GDBELF_DW_LINE);
    BOOST_TEST(line.code == GDBELF_OK);
    BOOST_TEST(line.relocations.empty());
}

BOOST_AUTO_TEST_CASE(sections_that_are_compressed_or_outside_the_object) {
    DwarfObject d;
    Elf64_Shdr s = d.sh(5);
    s.sh_flags = SHF_COMPRESSED;
    d.set_sh(5, s);
    DwarfReading c(d.bytes, GDBELF_DW_LINE);
    BOOST_TEST(c.section_code == GDBELF_ERR_DW_COMPRESSED);
    BOOST_TEST(c.error.section == 5u);
    BOOST_TEST(c.error.at == d.shoff + 5 * sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_flags));
    s.sh_flags = 0;
    s.sh_size = d.bytes.size();
    d.set_sh(5, s);
    DwarfReading out(d.bytes, GDBELF_DW_LINE);
    BOOST_TEST(out.section_code == GDBELF_ERR_DW_OUTSIDE);
    BOOST_TEST(out.error.num[1] == d.bytes.size());
    BOOST_TEST(
        contains(describe(out.error), "a DWARF section lies outside the object: section 5, " +
                                          std::to_string(d.bytes.size()) + " bytes"));
}

BOOST_AUTO_TEST_CASE(relocation_sections_the_core_does_not_apply) {
    auto code_with = [](auto change, unsigned s = GDBELF_DW_LINE) {
        DwarfObject d;
        change(d);
        DwarfReading r(d.bytes, s);
        if (r.code != GDBELF_OK) {
            BOOST_TEST(r.error.section == (s == GDBELF_DW_LINE ? 7u : 8u));
            BOOST_TEST(r.error.num[3] == d.sh(r.error.section).sh_info);
        }
        return r.code;
    };
    auto rela = [](unsigned field_change) {
        return [field_change](DwarfObject& d) {
            Elf64_Shdr s = d.sh(7);
            switch (field_change) {
            case 0: s.sh_type = SHT_REL; break;
            case 1: s.sh_entsize = 16; break;
            case 2: s.sh_offset += 4; break;
            case 3: s.sh_link = 0; break;
            case 4: s.sh_link = 2; break;  // the string table
            case 5: s.sh_size = d.bytes.size(); break;
            }
            d.set_sh(7, s);
        };
    };
    BOOST_TEST(code_with(rela(0)) == GDBELF_ERR_REL_NOT_RELA);
    BOOST_TEST(code_with(rela(1)) == GDBELF_ERR_REL_MALFORMED);
    BOOST_TEST(code_with(rela(2)) == GDBELF_ERR_REL_MALFORMED);
    BOOST_TEST(code_with(rela(3)) == GDBELF_ERR_REL_NO_SYMTAB);
    BOOST_TEST(code_with(rela(4)) == GDBELF_ERR_REL_SYMTAB_BAD);
    BOOST_TEST(code_with(rela(5)) == GDBELF_ERR_REL_MALFORMED);
    BOOST_TEST(code_with([](DwarfObject& d) {
                   Elf64_Ehdr eh;
                   std::memcpy(&eh, d.bytes.data(), sizeof eh);
                   eh.e_machine = EM_RISCV;
                   std::memcpy(d.bytes.data(), &eh, sizeof eh);
               }) == GDBELF_ERR_REL_MACHINE);
    // The other sections stay usable.
    BOOST_TEST(code_with(rela(0), GDBELF_DW_EH_FRAME) == GDBELF_OK);
}

BOOST_AUTO_TEST_CASE(relocations_the_core_does_not_apply) {
    auto reading = [](Elf64_Rela r, bool eh = false) {
        DwarfObject d;
        d.set_rel(eh ? d.rela_eh_at : d.rela_line_at, r);
        DwarfReading out(d.bytes, eh ? GDBELF_DW_EH_FRAME : GDBELF_DW_LINE);
        if (out.code != GDBELF_OK) {
            BOOST_TEST(out.error.at == (eh ? d.rela_eh_at : d.rela_line_at));
            BOOST_TEST(out.error.symbol == 0u);
            BOOST_TEST(out.relocations.empty());
        }
        return out;
    };
    // PC-relative types only in .eh_frame.
    const DwarfReading pc = reading({8, ELF64_R_INFO(2, R_X86_64_PC32), 0});
    BOOST_TEST(pc.code == GDBELF_ERR_REL_TYPE);
    BOOST_TEST(pc.error.num[0] == unsigned(R_X86_64_PC32));
    BOOST_TEST(contains(describe(pc.error), "relocation 0 of section 7 has type 2"));
    BOOST_TEST(reading({8, ELF64_R_INFO(2, R_X86_64_PC64), 0}, true).code == GDBELF_OK);
    BOOST_TEST(reading({8, ELF64_R_INFO(2, R_X86_64_GOTPCREL), 0}, true).code ==
               GDBELF_ERR_REL_TYPE);
    // R_X86_64_NONE is skipped wherever it points.
    const DwarfReading none = reading({999, ELF64_R_INFO(99, R_X86_64_NONE), 0});
    BOOST_TEST(none.code == GDBELF_OK);
    BOOST_TEST(none.relocations.empty());
    // Inside the section: the last 8 bytes, not one more.
    BOOST_TEST(reading({24, ELF64_R_INFO(2, R_X86_64_64), 0}).code == GDBELF_OK);
    const DwarfReading out = reading({25, ELF64_R_INFO(2, R_X86_64_64), 0});
    BOOST_TEST(out.code == GDBELF_ERR_REL_OUTSIDE);
    BOOST_TEST(out.error.num[0] == 25u);
    BOOST_TEST(out.error.num[1] == 8u);
    BOOST_TEST(out.error.num[2] == 32u);
    // Its symbol: in the table, defined.
    const DwarfReading missing = reading({8, ELF64_R_INFO(4, R_X86_64_64), 0});
    BOOST_TEST(missing.code == GDBELF_ERR_REL_NO_SYMBOL);
    BOOST_TEST(missing.error.num[0] == 4u);
    BOOST_TEST(missing.error.num[1] == 4u);
    const DwarfReading undef = reading({8, ELF64_R_INFO(0, R_X86_64_64), 0});
    BOOST_TEST(undef.code == GDBELF_ERR_REL_UNDEFINED);
    BOOST_TEST(undef.error.num[1] == unsigned(SHN_UNDEF));
    // An absolute symbol's value is taken as it is.
    const DwarfReading abs = reading({8, ELF64_R_INFO(1, R_X86_64_32), 0x1000});
    BOOST_TEST(abs.code == GDBELF_OK);
    BOOST_TEST_REQUIRE(abs.relocations.size() == 1u);
    BOOST_TEST(abs.relocations[0].value == 0x1000u);
    BOOST_TEST(abs.relocations[0].width == 4u);
    // 32-bit values must fit: code above 4 GiB does not.
    const DwarfReading over = reading({28, ELF64_R_INFO(2, R_X86_64_32S), 0});
    BOOST_TEST(over.code == GDBELF_ERR_REL_OVERFLOW);
    BOOST_TEST(over.error.num[0] == kLoad);
    BOOST_TEST(contains(describe(over.error), "its value is 0x7f1234560000"), describe(over.error));
    BOOST_TEST(reading({28, ELF64_R_INFO(2, R_X86_64_32), 0}).code == GDBELF_ERR_REL_OVERFLOW);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_X86_64_32), -1}).code == GDBELF_ERR_REL_OVERFLOW);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_X86_64_32S), -1}).code == GDBELF_OK);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_X86_64_32), 0xffffffff}).code == GDBELF_OK);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_X86_64_32S), 0x80000000}).code ==
               GDBELF_ERR_REL_OVERFLOW);
}

// AArch64 objects (what LLVM's MCJIT hands over on arm64): R_AARCH64_ABS64,
// _ABS32 and _ABS16 everywhere, _PREL32 and _PREL64 in .eh_frame, with
// the range checks of ARM's AAELF64 (ABS32/PREL32: -2^31 <= X < 2^32;
// ABS16: -2^15 <= X < 2^16); x86-64 types are not taken for them.
BOOST_AUTO_TEST_CASE(aarch64_relocations) {
    auto reading = [](Elf64_Rela r, bool eh = false) {
        DwarfObject d;
        Elf64_Ehdr h;
        std::memcpy(&h, d.bytes.data(), sizeof h);
        h.e_machine = EM_AARCH64;
        std::memcpy(d.bytes.data(), &h, sizeof h);
        d.set_rel(eh ? d.rela_eh_at : d.rela_line_at, r);
        return DwarfReading(d.bytes, eh ? GDBELF_DW_EH_FRAME : GDBELF_DW_LINE);
    };
    const DwarfReading abs64 = reading({8, ELF64_R_INFO(2, R_AARCH64_ABS64), 4});
    BOOST_TEST(abs64.code == GDBELF_OK);
    BOOST_TEST_REQUIRE(abs64.relocations.size() == 1u);
    BOOST_TEST(abs64.relocations[0].width == 8u);
    BOOST_TEST(abs64.relocations[0].value == kLoad + 4);
    BOOST_TEST(abs64.relocations[0].type == unsigned(R_AARCH64_ABS64));
    // ABS32: unsigned or signed 32-bit values.
    const DwarfReading abs32 = reading({8, ELF64_R_INFO(1, R_AARCH64_ABS32), 0x1000});
    BOOST_TEST_REQUIRE(abs32.relocations.size() == 1u);
    BOOST_TEST(abs32.relocations[0].width == 4u);
    BOOST_TEST(abs32.relocations[0].value == 0x1000u);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_AARCH64_ABS32), 0xffffffff}).code == GDBELF_OK);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_AARCH64_ABS32), -0x80000000ll}).code == GDBELF_OK);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_AARCH64_ABS32), 0x100000000ll}).code ==
               GDBELF_ERR_REL_OVERFLOW);
    BOOST_TEST(reading({28, ELF64_R_INFO(1, R_AARCH64_ABS32), -0x80000001ll}).code ==
               GDBELF_ERR_REL_OVERFLOW);
    BOOST_TEST(reading({28, ELF64_R_INFO(2, R_AARCH64_ABS32), 0}).code ==
               GDBELF_ERR_REL_OVERFLOW);  // code above 4 GiB
    // ABS16: two bytes, -2^15 .. 2^16 - 1.
    const DwarfReading abs16 = reading({30, ELF64_R_INFO(1, R_AARCH64_ABS16), 0xffff});
    BOOST_TEST_REQUIRE(abs16.relocations.size() == 1u);
    BOOST_TEST(abs16.relocations[0].width == 2u);
    BOOST_TEST(reading({31, ELF64_R_INFO(1, R_AARCH64_ABS16), 0}).code == GDBELF_ERR_REL_OUTSIDE);
    BOOST_TEST(reading({8, ELF64_R_INFO(1, R_AARCH64_ABS16), 0x10000}).code ==
               GDBELF_ERR_REL_OVERFLOW);
    BOOST_TEST(reading({8, ELF64_R_INFO(1, R_AARCH64_ABS16), -0x8000}).code == GDBELF_OK);
    BOOST_TEST(reading({8, ELF64_R_INFO(1, R_AARCH64_ABS16), -0x8001}).code ==
               GDBELF_ERR_REL_OVERFLOW);
    // PC-relative: in .eh_frame only; .eh_frame (not loaded) sits at
    // code_lo, so a pointer at its offset 4 to code_lo is -4.
    BOOST_TEST(reading({8, ELF64_R_INFO(2, R_AARCH64_PREL32), 0}).code == GDBELF_ERR_REL_TYPE);
    const DwarfReading prel32 = reading({4, ELF64_R_INFO(2, R_AARCH64_PREL32), 0}, true);
    BOOST_TEST_REQUIRE(prel32.relocations.size() == 1u);
    BOOST_TEST(prel32.relocations[0].width == 4u);
    BOOST_TEST(prel32.relocations[0].value == std::uint64_t(-4));
    const DwarfReading prel64 = reading({8, ELF64_R_INFO(2, R_AARCH64_PREL64), 0}, true);
    BOOST_TEST_REQUIRE(prel64.relocations.size() == 1u);
    BOOST_TEST(prel64.relocations[0].value == std::uint64_t(-8));
    // Types of no rule, x86-64's numbers among them, are refused; NONE
    // is skipped.
    const DwarfReading x86 = reading({8, ELF64_R_INFO(2, R_X86_64_64), 0});
    BOOST_TEST(x86.code == GDBELF_ERR_REL_TYPE);
    BOOST_TEST(x86.error.num[0] == unsigned(R_X86_64_64));
    BOOST_TEST(reading({8, ELF64_R_INFO(2, R_AARCH64_CALL26), 0}).code == GDBELF_ERR_REL_TYPE);
    BOOST_TEST(reading({999, ELF64_R_INFO(99, R_AARCH64_NONE), 0}).relocations.empty());
    BOOST_TEST(reading({999, ELF64_R_INFO(99, R_AARCH64_NONE), 0}).code == GDBELF_OK);
}

BOOST_AUTO_TEST_SUITE_END()
