// unit_gdbelf_reporting.cpp: how unit_gdbelf's objects' problems are
// reported (the callback that decides whether reading goes on, the texts
// of the codes and their section names, descriptions cut to a buffer) and
// sections decoded in either class; unit_gdbelf.cpp says what the program
// holds.
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "priv_jitformats.h"
#include "unit_gdbelf.hpp"

#include <elf.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

using namespace gdbelf_test;

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
