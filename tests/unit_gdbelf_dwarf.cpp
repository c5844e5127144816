// unit_gdbelf_dwarf.cpp: unit_gdbelf's DWARF sections of an object: which
// the core reads, which it refuses (compressed, outside the object) and
// which relocations it applies, for x86-64 and AArch64 objects;
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
#include <cstring>
#include <string>
#include <vector>

using namespace gdbelf_test;

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
