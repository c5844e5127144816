// unit_gdbelf_symbols.cpp: unit_gdbelf's symbol tables (their entry
// size, bounds, alignment and string table) and symbols (names, load
// addresses, functions outside their section or wrapping around);
// unit_gdbelf.cpp says what the program holds.
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "priv_jitformats.h"
#include "unit_gdbelf.hpp"

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace gdbelf_test;

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
