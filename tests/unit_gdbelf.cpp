// unit_gdbelf.cpp: Boost.Test unit tests for the rules by which the core
// and vg-jit accept an ELF object of the GDB JIT interface
// (coregrind-patch/files/coregrind/m_debuginfo/readgdbelf.c, the same C
// source that is compiled into Valgrind's core).  Each case builds a small
// object in memory, breaks one rule and checks the problem code, its place
// and its numbers, and what the reader still finds.  One program of
// several files: objects accepted and their headers (here), symbol tables
// and symbols (unit_gdbelf_symbols.cpp), how problems are reported
// (unit_gdbelf_reporting.cpp) and the DWARF sections and relocations
// (unit_gdbelf_dwarf.cpp); what they share is in unit_gdbelf.hpp.
#define BOOST_TEST_MODULE unit_gdbelf
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "priv_jitformats.h"
#include "unit_gdbelf.hpp"

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace gdbelf_test;

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
