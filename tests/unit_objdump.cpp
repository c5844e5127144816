// unit_objdump.cpp: Boost.Test tests of `vg-jit dump` and `vg-jit check` on
// ELF objects of the kind a JIT registers through the GDB JIT interface.
// The objects are real: small C files compiled by clang-14 -c (skipped
// without it), and the module the test JIT `gdbjit` loads
// (gdbjit_module_a.o, built by `make check`), with their code sections'
// sh_addr set to a load address as LLVM and tests/gdbjit.cpp do, and the
// objects `gdbjit save` writes as it hands them to the interface.  Hostile
// variants are made by editing those objects' headers and tables.  The
// built vg-jit is run on them and its output parsed; the reader is also
// called in-process on thousands of damaged copies.
#define BOOST_TEST_MODULE unit_objdump
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "../tool/elfobject.hpp"
#include "elf_edit.hpp"
#include "test_support.hpp"

#include <elf.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using objdump_test::Object;
using objdump_test::read_object;
using vgjit::test::contains;
using vgjit::test::env_or;
using vgjit::test::vg_jit;
namespace pt = boost::property_tree;

/// What one vg-jit run gave: its exit status and its stdout and stderr.
struct Result {
    int status;
    std::string out;
    std::string err;
};

/// Runs vg-jit with `args`; a run that did not exit normally (a crash, a
/// timeout) fails the test case.
Result run(const std::vector<std::string>& args) {
    std::vector<std::string> argv{vg_jit()};
    argv.insert(argv.end(), args.begin(), args.end());
    vgjit::test::RunOptions o;
    o.timeout_seconds = 60;
    const vgjit::test::Result r = vgjit::test::run(argv, o);
    BOOST_REQUIRE_MESSAGE(!r.timed_out && r.status < 128, "vg-jit did not exit normally: " << r);
    return Result{r.status, r.out, r.err};
}

std::string clang() { return vgjit::test::find_on_path("clang-14"); }

/// Precondition: clang-14 is on $PATH.
boost::test_tools::assertion_result clang_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result r(!clang().empty());
    if (!r) r.message() << "clang-14 is not on PATH";
    return r;
}

std::string module_a() { return vgjit::test::tests_builddir() + "/gdbjit_module_a.o"; }

/// Precondition: the test JIT's module A was built (`make check` builds it).
boost::test_tools::assertion_result module_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result r(access(module_a().c_str(), R_OK) == 0);
    if (!r) r.message() << module_a() << " was not built";
    return r;
}

/// The C source of the clang-14 objects: `get` inlines `peek` at -O2.
const char* const kSource = R"(static inline int peek(const int *p) { return *p; }
int get(const int *p) { return peek(p) + 1; }
int twice(int x) { return x * 2; }
)";

/// kSource and a function `raw` in section .text.raw, written in top-level
/// assembly without CFI directives: no line table, CFI or debug info
/// covers it.
const char* const kSourceWithRaw = R"(static inline int peek(const int *p) { return *p; }
int get(const int *p) { return peek(p) + 1; }
int twice(int x) { return x * 2; }
__asm__(".section .text.raw,\"ax\",@progbits\n.globl raw\n.type raw,@function\n"
        "raw: ret\n.size raw, 1\n.text\n");
)";

const std::uint64_t kLoad = 0x7f1234560000ULL;

/// A scratch directory with obj.c compiled by clang-14 with `flags`.
struct Compiled {
    vgjit::test::TempDir dir{"vgjit-objdump"};
    Object obj;
    explicit Compiled(const std::vector<std::string>& flags, const char* source = kSource) {
        { std::ofstream(dir.file("obj.c")) << source; }
        std::vector<std::string> argv{clang(), "-c", "-o", dir.file("obj.o"), dir.file("obj.c")};
        argv.insert(argv.begin() + 1, flags.begin(), flags.end());
        const vgjit::test::Result r = vgjit::test::run(argv);
        BOOST_REQUIRE_MESSAGE(r.status == 0, "clang-14 failed: " << r);
        obj = read_object(dir.file("obj.o"));
    }
    /// Writes `o` as NAME in the scratch directory and returns its path.
    std::string save(const Object& o, const std::string& name) const {
        o.write(dir.file(name));
        return dir.file(name);
    }
};

/// One "function [...)" line of the text listing.
struct Listed {
    std::uint64_t start, end, size;
    unsigned section;
    bool lines, cfi, inlined;
};

/// The functions of a text listing, by name.
std::map<std::string, Listed> listed_functions(const std::string& out) {
    static const std::regex re(
        "^function \\[0x([0-9a-f]+), 0x([0-9a-f]+)\\) size ([0-9]+) '([^']*)' "
        "section ([0-9]+) lines (yes|no) cfi (yes|no) inlined (yes|no)$");
    std::map<std::string, Listed> fns;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, re)) continue;
        fns[m[4]] = Listed{std::stoull(m[1], nullptr, 16),
                           std::stoull(m[2], nullptr, 16),
                           std::stoull(m[3]),
                           static_cast<unsigned>(std::stoul(m[5])),
                           m[6] == "yes",
                           m[7] == "yes",
                           m[8] == "yes"};
    }
    return fns;
}

/// Checks that `check FILE` exits 1 and prints "FILE:OFFSET: error: ..."
/// containing `phrase` at byte `offset` of the file.
void expect_error(const std::string& file, std::uint64_t offset, const std::string& phrase,
                  const std::vector<std::string>& options = {}) {
    std::vector<std::string> args{"check"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(file);
    const Result r = run(args);
    BOOST_TEST(r.status == 1, "exit status " << r.status << "\n" << r.out << r.err);
    const std::string prefix = file + ":" + std::to_string(offset) + ": error: ";
    bool found = false;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0 && contains(line, phrase)) found = true;
    BOOST_TEST(found, "expected '" << prefix << "..." << phrase << "...' in\n" << r.out);
    BOOST_TEST(contains(r.out, file + ": ELF object, "), r.out);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dump)

BOOST_AUTO_TEST_CASE(lists_the_functions_at_their_load_addresses,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    const std::string f = c.save(c.obj, "loaded.o");
    const Result r = run({"dump", f});
    BOOST_TEST(r.status == 0, r.out << r.err);
    BOOST_TEST(contains(r.out, f +
                                   ": ELF object, ELF64 little-endian, relocatable (ET_REL), "
                                   "x86-64 (e_machine 62), " +
                                   std::to_string(c.obj.bytes.size()) + " bytes, source file '"),
               r.out);
    BOOST_TEST(contains(r.out, "debug: line table .debug_line ("), r.out);
    BOOST_TEST(contains(r.out, "CFI .eh_frame ("), r.out);
    BOOST_TEST(contains(r.out, "inlined subroutines yes"), r.out);
    const Elf64_Shdr text = c.obj.sh(c.obj.section(".text"));
    std::ostringstream sec;
    sec << "section  " << c.obj.section(".text");
    BOOST_TEST(contains(r.out, sec.str()), r.out);
    std::ostringstream range;
    range << ".text            [0x" << std::hex << kLoad << ", 0x" << kLoad + text.sh_size
          << std::dec << ") size " << text.sh_size << " offset 0x" << std::hex << text.sh_offset
          << "\n";
    BOOST_TEST(contains(r.out, range.str()), r.out);

    const auto want = c.obj.functions();
    const auto got = listed_functions(r.out);
    BOOST_TEST(want.size() == 2u);
    BOOST_TEST(got.size() == want.size(), r.out);
    for (const auto& [name, fn] : want) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_REQUIRE(got.count(name) == 1u);
            const Listed& l = got.at(name);
            BOOST_TEST(fn.first >= kLoad);
            BOOST_TEST(l.start == fn.first);
            BOOST_TEST(l.size == fn.second);
            BOOST_TEST(l.end == fn.first + fn.second);
            BOOST_TEST(l.section == c.obj.section(".text"));
            BOOST_TEST(l.lines);
            BOOST_TEST(l.cfi);
            BOOST_TEST(l.inlined);
        }
    }
}

BOOST_AUTO_TEST_CASE(json_lists_the_same, *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    const std::string f = c.save(c.obj, "loaded.o");
    const Result r = run({"dump", "--json", f});
    BOOST_TEST(r.status == 0, r.out << r.err);
    pt::ptree doc;
    std::istringstream in(r.out);
    BOOST_REQUIRE_NO_THROW(pt::read_json(in, doc));
    BOOST_TEST(doc.get<std::string>("format") == "elf");
    BOOST_TEST(doc.get<std::string>("file") == f);
    BOOST_TEST(doc.get<std::uint64_t>("size") == c.obj.bytes.size());
    BOOST_TEST(doc.get<unsigned>("object.class") == 64u);
    BOOST_TEST(doc.get<unsigned>("object.e_type") == unsigned(ET_REL));
    BOOST_TEST(doc.get<unsigned>("object.e_machine") == unsigned(EM_X86_64));
    BOOST_TEST(doc.get<std::string>("object.source_file") == "obj.c");
    BOOST_TEST(doc.get<std::string>("debug.line_table") == ".debug_line");
    BOOST_TEST(doc.get<std::string>("debug.cfi") == ".eh_frame");
    BOOST_TEST(doc.get<std::string>("debug.inlined") == "true");
    BOOST_TEST(doc.get_child("problems").empty());
    const auto want = c.obj.functions();
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> got;
    for (const auto& [k, fn] : doc.get_child("functions")) {
        (void)k;
        got[fn.get<std::string>("name")] = {std::stoull(fn.get<std::string>("start"), nullptr, 16),
                                            fn.get<std::uint64_t>("size")};
        BOOST_TEST(fn.get<std::string>("lines") == "true");
        BOOST_TEST(fn.get<std::string>("cfi") == "true");
    }
    BOOST_TEST((got == want));
    bool text_listed = false;
    for (const auto& [k, s] : doc.get_child("sections")) {
        (void)k;
        if (s.get<std::string>("name") != ".text") continue;
        text_listed = true;
        BOOST_TEST(std::stoull(s.get<std::string>("address"), nullptr, 16) == kLoad);
    }
    BOOST_TEST(text_listed);
}

BOOST_AUTO_TEST_CASE(an_object_without_debug_data_has_no_lines_cfi_or_inlined_calls,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-O2", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"});
    c.obj.load_at(".text", kLoad);
    const std::string f = c.save(c.obj, "bare.o");
    const Result r = run({"dump", f});
    BOOST_TEST(r.status == 0, r.out << r.err);
    BOOST_TEST(
        contains(r.out, "debug: line table no, CFI no, inlined subroutines no (no .debug_info)"),
        r.out);
    const auto got = listed_functions(r.out);
    BOOST_TEST(got.size() == 2u, r.out);
    for (const auto& [name, l] : got) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST(!l.lines);
            BOOST_TEST(!l.cfi);
            BOOST_TEST(!l.inlined);
        }
    }
}

BOOST_AUTO_TEST_CASE(per_section_coverage_with_function_sections,
                     *boost::unit_test::precondition(clang_available)) {
    // -ffunction-sections: each function in its own section, each loaded
    // at its own address; the line table and CFI cover both through their
    // relocations.
    Compiled c({"-g", "-O2", "-ffunction-sections"}, kSourceWithRaw);
    c.obj.load_at(".text.get", 0x500000);
    c.obj.load_at(".text.twice", 0x600000);
    c.obj.load_at(".text.raw", 0x700000);
    const std::string f = c.save(c.obj, "sections.o");
    const Result r = run({"dump", f});
    BOOST_TEST(r.status == 0, r.out << r.err);
    const auto got = listed_functions(r.out);
    BOOST_REQUIRE(got.count("get") == 1u);
    BOOST_REQUIRE(got.count("twice") == 1u);
    BOOST_TEST(got.at("get").start == 0x500000u + c.obj.symbol("get").st_value);
    BOOST_TEST(got.at("twice").start == 0x600000u + c.obj.symbol("twice").st_value);
    BOOST_TEST(got.at("get").section == c.obj.section(".text.get"));
    BOOST_TEST(got.at("twice").section == c.obj.section(".text.twice"));
    BOOST_TEST(
        (got.at("get").lines && got.at("twice").lines && got.at("get").cfi && got.at("twice").cfi));
    BOOST_TEST(got.at("get").inlined);
    // The assembly function's section is not covered by any of them.
    BOOST_REQUIRE(got.count("raw") == 1u);
    BOOST_TEST(got.at("raw").start == 0x700000u);
    BOOST_TEST(got.at("raw").size == 1u);
    BOOST_TEST(!got.at("raw").lines);
    BOOST_TEST(!got.at("raw").cfi);
    BOOST_TEST(!got.at("raw").inlined);
}

BOOST_AUTO_TEST_CASE(the_test_jits_module, *boost::unit_test::precondition(module_available)) {
    vgjit::test::TempDir d("vgjit-objdump");
    Object o = read_object(module_a());
    o.load_at(".text", 0x40000000);
    o.write(d.file("module_a.o"));
    const Result r = run({"dump", d.file("module_a.o")});
    BOOST_TEST(r.status == 0, r.out << r.err);
    BOOST_TEST(contains(r.out, "source file 'module_a.c'"), r.out);
    const auto got = listed_functions(r.out);
    const auto want = o.functions();
    BOOST_TEST(got.size() == want.size());
    for (const auto& [name, fn] : want) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_REQUIRE(got.count(name) == 1u);
            BOOST_TEST(got.at(name).start == fn.first);
            BOOST_TEST(got.at(name).size == fn.second);
            BOOST_TEST(got.at(name).lines);
            BOOST_TEST(got.at(name).cfi);  // .debug_frame
        }
    }
    BOOST_TEST(got.count("gj_fib") == 1u);
    BOOST_TEST(got.count("gj_run_a") == 1u);
}

std::string gdbjit() { return vgjit::test::tests_builddir() + "/gdbjit"; }

/// Precondition: the test JIT and both its modules were built.
boost::test_tools::assertion_result gdbjit_available(boost::unit_test::test_unit_id) {
    const std::string b = vgjit::test::tests_builddir() + "/gdbjit_module_b.o";
    boost::test_tools::assertion_result r(access(gdbjit().c_str(), X_OK) == 0 &&
                                          access(module_a().c_str(), R_OK) == 0 &&
                                          access(b.c_str(), R_OK) == 0);
    if (!r) r.message() << "gdbjit or its modules were not built";
    return r;
}

// The objects exactly as the test JIT hands them to the interface (it
// writes the symfile_size bytes at symfile_addr): vg-jit places the entry
// points where the JIT loaded and called them.
BOOST_AUTO_TEST_CASE(the_objects_a_jit_registers,
                     *boost::unit_test::precondition(gdbjit_available)) {
    vgjit::test::TempDir d("vgjit-objdump");
    const vgjit::test::Result j =
        vgjit::test::run({gdbjit(), "save", module_a(),
                          vgjit::test::tests_builddir() + "/gdbjit_module_b.o", d.path()});
    BOOST_REQUIRE_MESSAGE(j.status == 0, j);
    BOOST_TEST(contains(j.out, "gj_run_a(20) = 6765\n"), j.out);
    std::map<std::string, std::uint64_t> at;
    static const std::regex re("^(gj_run_[ab]) at 0x([0-9a-f]+)$");
    std::istringstream lines(j.out);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_match(line, m, re)) at[m[1]] = std::stoull(m[2], nullptr, 16);
    }
    BOOST_REQUIRE(at.size() == 2u);
    for (const char* module : {"a", "b"}) {
        BOOST_TEST_CONTEXT(module) {
            const std::string f = d.file(std::string("module_") + module + ".o");
            const Result r = run({"dump", "--json", f});
            BOOST_TEST(r.status == 0, r.out << r.err);
            pt::ptree doc;
            std::istringstream in(r.out);
            BOOST_REQUIRE_NO_THROW(pt::read_json(in, doc));
            BOOST_TEST(doc.get<std::string>("object.source_file") ==
                       std::string("module_") + module + ".c");
            const std::string entry = std::string("gj_run_") + module;
            bool found = false;
            for (const auto& [k, fn] : doc.get_child("functions")) {
                (void)k;
                BOOST_TEST(fn.get<std::string>("lines") == "true");
                if (fn.get<std::string>("name") != entry) continue;
                found = true;
                BOOST_TEST(std::stoull(fn.get<std::string>("start"), nullptr, 16) == at[entry]);
            }
            BOOST_TEST(found);
            BOOST_TEST(run({"check", f}).status == 0);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(check)

BOOST_AUTO_TEST_CASE(a_loaded_object_is_clean, *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    const std::string f = c.save(c.obj, "loaded.o");
    const Result r = run({"check", f});
    BOOST_TEST(r.status == 0, r.out << r.err);
    BOOST_TEST(r.out == f + ": ELF object, 2 functions, 0 errors, 0 warnings\n");
    BOOST_TEST(run({"check", "--quiet", f}).out.empty());
}

BOOST_AUTO_TEST_CASE(code_without_a_load_address,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    const unsigned text = c.obj.section(".text");
    expect_error(c.dir.file("obj.o"), c.obj.sh_offset_of(text) + offsetof(Elf64_Shdr, sh_addr),
                 "a code section has no load address: symbol ");
    BOOST_TEST(contains(run({"check", c.dir.file("obj.o")}).out,
                        "in section " + std::to_string(text) + " '.text' (address 0x0, "));
}

BOOST_AUTO_TEST_CASE(truncated_objects, *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    o.bytes.resize(40);
    expect_error(c.save(o, "40.o"), 0, "shorter than an ELF header: 40 bytes, the header needs 64");
    o.bytes.resize(3);
    const Result r = run({"check", c.save(o, "3.o")});  // no magic left: read as a perf map
    BOOST_TEST(r.status == 1);
    // The section header table is at the end: cut into it.
    o = c.obj;
    o.bytes.resize(o.bytes.size() - 10);
    expect_error(c.save(o, "cut.o"), offsetof(Elf64_Ehdr, e_shoff),
                 "section headers lie outside the object: ");
    BOOST_TEST(contains(run({"check", c.dir.file("cut.o")}).out,
                        "the object has " + std::to_string(o.bytes.size()) + " bytes"));
}

BOOST_AUTO_TEST_CASE(sections_past_the_end_of_the_file,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    const unsigned line = o.section(".debug_line");
    Elf64_Shdr s = o.sh(line);
    s.sh_size = o.bytes.size();
    o.set_sh(line, s);
    const std::string f = c.save(o, "line.o");
    expect_error(f, o.sh_offset_of(line) + offsetof(Elf64_Shdr, sh_offset),
                 "section " + std::to_string(line) + " '.debug_line' (offset 0x");
    BOOST_TEST(!contains(run({"dump", f}).out, "line table .debug_line"));

    o = c.obj;
    const unsigned symtab = o.section(".symtab");
    s = o.sh(symtab);
    s.sh_offset = o.bytes.size() - 24;  // one symbol's worth left: the table runs past
    o.set_sh(symtab, s);
    expect_error(
        c.save(o, "symtab.o"), o.sh_offset_of(symtab),
        "symbol table lies outside the object: section " + std::to_string(symtab) + " '.symtab', ");

    o = c.obj;
    s = o.sh(symtab);
    s.sh_size -= 5;
    o.set_sh(symtab, s);
    expect_error(c.save(o, "symsize.o"), o.sh_offset_of(symtab) + offsetof(Elf64_Shdr, sh_entsize),
                 "not a whole number of 24-byte symbols");
}

BOOST_AUTO_TEST_CASE(a_function_outside_its_section,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    const std::uint64_t at = o.symbol_offset("twice");
    Elf64_Sym sym = o.get<Elf64_Sym>(at);
    sym.st_value = o.sh(o.section(".text")).sh_size - 1;  // starts inside, ends past
    o.put(at, sym);
    const std::string f = c.save(o, "outside.o");
    expect_error(f, at, " 'twice', value ");
    const Result r = run({"check", f});
    BOOST_TEST(contains(r.out, "a function lies outside its section: symbol " +
                                   std::to_string(o.symbol_index("twice")) + " 'twice', value "),
               r.out);
    // dump lists the rest, with the problem, and fails.
    const Result d = run({"dump", f});
    BOOST_TEST(d.status == 1);
    BOOST_TEST(listed_functions(d.out).count("get") == 1u);
    BOOST_TEST(listed_functions(d.out).count("twice") == 0u);
}

BOOST_AUTO_TEST_CASE(symbol_names_outside_the_string_table,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    const Elf64_Shdr strtab = o.sh(o.sh(o.section(".symtab")).sh_link);
    const std::uint64_t at = o.symbol_offset("get");
    const std::uint64_t get_index = o.symbol_index("get");
    Elf64_Sym sym = o.get<Elf64_Sym>(at);
    sym.st_name = strtab.sh_size + 3;
    o.put(at, sym);
    expect_error(c.save(o, "name.o"), at,
                 "symbol name lies outside the string table: function symbol " +
                     std::to_string(get_index) + " of section " +
                     std::to_string(o.section(".symtab")) + " '.symtab', name offset " +
                     std::to_string(strtab.sh_size + 3));

    // A string table whose last name loses its NUL.
    o = c.obj;
    o.bytes[strtab.sh_offset + strtab.sh_size - 1] = 'x';
    sym = o.get<Elf64_Sym>(at);
    sym.st_name = strtab.sh_size - 2;
    o.put(at, sym);
    expect_error(c.save(o, "unterminated.o"), at,
                 "symbol name is not NUL-terminated in the string table");
    BOOST_TEST(
        contains(run({"check", c.dir.file("unterminated.o")}).out, "does not end with a NUL byte"));
}

BOOST_AUTO_TEST_CASE(overlapping_functions_are_a_warning,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    const Elf64_Sym get = o.symbol("get");
    const std::uint64_t at = o.symbol_offset("twice");
    Elf64_Sym twice = o.get<Elf64_Sym>(at);
    twice.st_value = get.st_value + 1;
    twice.st_size = 2;
    o.put(at, twice);
    const std::string f = c.save(o, "overlap.o");
    const Result r = run({"check", f});
    BOOST_TEST(r.status == 0, r.out);
    BOOST_TEST(contains(r.out, ": warning: function '"), r.out);
    BOOST_TEST(contains(r.out, "overlaps function '"), r.out);
    BOOST_TEST(contains(r.out, "the core registers both, the later replacing the earlier"), r.out);
    BOOST_TEST(contains(r.out, ": ELF object, 2 functions, 0 errors, 1 warning\n"), r.out);
    BOOST_TEST(run({"check", "--strict", f}).status == 1);
    // Two names for the same code (an alias).
    twice.st_value = get.st_value;
    twice.st_size = get.st_size;
    o.put(at, twice);
    const Result alias = run({"check", c.save(o, "alias.o")});
    BOOST_TEST(alias.status == 0);
    BOOST_TEST(contains(alias.out, "warning: function 'twice' [0x"), alias.out);
    BOOST_TEST(contains(alias.out,
                        ") has the same range as 'get' (an alias): the core registers "
                        "both, the later replacing the earlier, so only 'twice' is named"),
               alias.out);
    // Functions that merely touch do not overlap.
    twice.st_value = get.st_value + get.st_size;
    o.put(at, twice);
    BOOST_TEST(run({"check", c.save(o, "touch.o")}).status == 0);
    BOOST_TEST(!contains(run({"check", c.dir.file("touch.o")}).out, "overlaps"));
}

BOOST_AUTO_TEST_CASE(debug_relocations_the_core_does_not_apply,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    // A relocation of .debug_line of a type the core does not apply there.
    const unsigned rela = o.section(".rela.debug_line");
    const Elf64_Shdr rs = o.sh(rela);
    BOOST_REQUIRE(rs.sh_size >= sizeof(Elf64_Rela));
    Elf64_Rela r = o.get<Elf64_Rela>(rs.sh_offset);
    r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), R_X86_64_PC32);
    o.put(rs.sh_offset, r);
    const std::string f = c.save(o, "reloc.o");
    const Result chk = run({"check", f});
    BOOST_TEST(chk.status == 0, chk.out);
    BOOST_TEST(
        contains(chk.out, f + ":" + std::to_string(rs.sh_offset) +
                              ": warning: a relocation of a type other than R_X86_64_64, _32, "
                              "_32S (and _PC32, _PC64 in .eh_frame) or R_AARCH64_ABS64, _ABS32, "
                              "_ABS16 (and _PREL32, _PREL64 in .eh_frame): relocation 0 of "
                              "section " +
                              std::to_string(rela) + " '.rela.debug_line' has type " +
                              std::to_string(R_X86_64_PC32) + ": the core refuses"),
        chk.out);
    BOOST_TEST(contains(chk.out, "the core refuses the object's line table"), chk.out);
    BOOST_TEST(run({"check", "--strict", f}).status == 1);
    // Without its line table the object has no lines, nor inlined calls
    // (read with it); its CFI stays.
    const Result d = run({"dump", f});
    BOOST_TEST(contains(d.out, "debug: line table no, CFI .eh_frame ("), d.out);
    for (const auto& [name, l] : listed_functions(d.out)) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST(!l.lines);
            BOOST_TEST(!l.inlined);
            BOOST_TEST(l.cfi);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_32_bit_debug_relocation_that_overflows,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    // The line table's address relocation against .text, made 32-bit: it
    // fits code loaded low, not code loaded above 4 GiB.
    const unsigned rela = c.obj.section(".rela.debug_line");
    const Elf64_Shdr rs = c.obj.sh(rela);
    std::uint64_t at = 0;
    for (std::uint64_t off = rs.sh_offset; off < rs.sh_offset + rs.sh_size;
         off += sizeof(Elf64_Rela))
        if (ELF64_R_TYPE(c.obj.get<Elf64_Rela>(off).r_info) == R_X86_64_64) at = off;
    BOOST_REQUIRE(at != 0u);
    Elf64_Rela r = c.obj.get<Elf64_Rela>(at);
    r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), R_X86_64_32);
    c.obj.put(at, r);
    Object low = c.obj;
    low.load_at(".text", 0x500000);
    const Result fits = run({"check", c.save(low, "low.o")});
    BOOST_TEST(fits.out ==
               c.dir.file("low.o") + ": ELF object, 2 functions, 0 errors, 0 warnings\n");
    Object high = c.obj;
    high.load_at(".text", kLoad);
    const std::string f = c.save(high, "high.o");
    const Result over = run({"check", f});
    BOOST_TEST(over.status == 0);
    const std::uint64_t k = (at - rs.sh_offset) / sizeof(Elf64_Rela);
    BOOST_TEST(
        contains(over.out, f + ":" + std::to_string(at) +
                               ": warning: a 32- or 16-bit relocation overflows: relocation " +
                               std::to_string(k) + " of section " + std::to_string(rela) +
                               " '.rela.debug_line': its value is 0x7f1234"),
        over.out);
    BOOST_TEST(contains(over.out, "the core refuses the object's line table"), over.out);
}

BOOST_AUTO_TEST_CASE(a_file_symbol_without_a_name,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    const Elf64_Shdr st = o.sh(o.section(".symtab"));
    std::uint64_t at = 0;
    for (std::uint64_t off = st.sh_offset; off < st.sh_offset + st.sh_size;
         off += sizeof(Elf64_Sym))
        if (ELF64_ST_TYPE(o.get<Elf64_Sym>(off).st_info) == STT_FILE) at = off;
    BOOST_REQUIRE(at != 0u);
    Elf64_Sym sym = o.get<Elf64_Sym>(at);
    sym.st_name = 0;
    o.put(at, sym);
    expect_error(c.save(o, "noname.o"), at, "a symbol has no name: file symbol ");
}

BOOST_AUTO_TEST_CASE(header_fields_the_core_refuses,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    Object o = c.obj;
    Elf64_Ehdr eh = o.ehdr();
    eh.e_shentsize = 60;
    o.put(0, eh);
    expect_error(c.save(o, "shentsize.o"), offsetof(Elf64_Ehdr, e_shentsize),
                 "unexpected section header size: 60 bytes, not 64");
    o = c.obj;
    eh = o.ehdr();
    eh.e_shnum = 0;
    o.put(0, eh);
    expect_error(c.save(o, "shnum.o"), offsetof(Elf64_Ehdr, e_shnum),
                 "no section headers: e_shnum is 0");
    o = c.obj;
    eh = o.ehdr();
    eh.e_type = ET_CORE;
    o.put(0, eh);
    expect_error(c.save(o, "core.o"), offsetof(Elf64_Ehdr, e_type),
                 "not a relocatable, executable or shared object: e_type 4");
    o = c.obj;
    o.bytes[EI_CLASS] = ELFCLASS32;
    expect_error(c.save(o, "class.o"), EI_CLASS,
                 "ELF class differs from the program's: ELFCLASS32, the program's ELFCLASS64");
    o = c.obj;
    o.bytes[EI_DATA] = ELFDATA2MSB;
    expect_error(
        c.save(o, "msb.o"), EI_DATA,
        "ELF byte order differs from the program's: big-endian, the program's little-endian");
    o = c.obj;
    eh = o.ehdr();
    eh.e_shoff -= 4;
    o.put(0, eh);
    expect_error(c.save(o, "align.o"), offsetof(Elf64_Ehdr, e_shoff),
                 "section headers are not aligned: offset ");
    o = c.obj;
    Elf64_Shdr symtab = o.sh(o.section(".symtab"));
    symtab.sh_type = SHT_PROGBITS;
    o.set_sh(o.section(".symtab"), symtab);
    expect_error(c.save(o, "nosymtab.o"), 0, "no symbol table: no section of type SHT_SYMTAB");
}

BOOST_AUTO_TEST_CASE(format_elf_on_other_files) {
    vgjit::test::TempDir d("vgjit-objdump");
    std::ofstream(d.file("perf-1.map")) << "1000 10 f\n";
    expect_error(d.file("perf-1.map"), 0,
                 "not an ELF object: the first 4 bytes are not the ELF magic 7f 45 4c 46",
                 {"--format=elf"});
    BOOST_TEST(run({"dump", "--format=elf", d.file("perf-1.map")}).status == 1);
    // Without --format the perf map is still read as one.
    BOOST_TEST(run({"check", d.file("perf-1.map")}).status == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(robustness)

// Every prefix of an object, and thousands of copies with bytes of their
// headers and tables changed, are read without a crash (and the reader's
// findings stay within the object).
BOOST_AUTO_TEST_CASE(damaged_objects_never_crash_the_reader,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    const std::string& good = c.obj.bytes;
    const vgjit::ElfObjectInfo clean =
        vgjit::read_elf_object(reinterpret_cast<const unsigned char*>(good.data()), good.size());
    BOOST_TEST(clean.errors() == 0u);
    BOOST_TEST(clean.functions.size() == 2u);
    for (std::size_t n = 0; n < good.size(); ++n) {
        std::vector<unsigned char> b(good.begin(), good.begin() + n);
        const vgjit::ElfObjectInfo i = vgjit::read_elf_object(b.data(), b.size());
        // Every prefix misses the section header table at the end.
        if (i.errors() == 0) BOOST_FAIL("prefix of " << n << " bytes read without an error");
    }
    std::mt19937 rng(12345);
    const Elf64_Ehdr eh = c.obj.ehdr();
    // Damage the ELF header, the section headers and the symbol table.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> areas{
        {0, sizeof(Elf64_Ehdr)},
        {eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr)},
        {c.obj.sh(c.obj.section(".symtab")).sh_offset, c.obj.sh(c.obj.section(".symtab")).sh_size}};
    for (int round = 0; round < 6000; ++round) {
        std::vector<unsigned char> b(good.begin(), good.end());
        const auto& area = areas[round % areas.size()];
        const int flips = 1 + round % 4;
        for (int k = 0; k < flips; ++k) {
            const std::uint64_t at = area.first + rng() % area.second;
            b[at] = static_cast<unsigned char>(rng() % 4 == 0 ? 0xff : rng());
        }
        const vgjit::ElfObjectInfo i = vgjit::read_elf_object(b.data(), b.size());
        for (const vgjit::Problem& p : i.problems) BOOST_TEST_REQUIRE(p.where < b.size());
    }
}

// The core takes code from any section flagged executable, whatever its
// type: such a section is listed with its functions.
BOOST_AUTO_TEST_CASE(an_executable_section_of_type_null,
                     *boost::unit_test::precondition(clang_available)) {
    Compiled c({"-g", "-O2"});
    c.obj.load_at(".text", kLoad);
    const unsigned text = c.obj.section(".text");
    Elf64_Shdr s = c.obj.sh(text);
    s.sh_type = SHT_NULL;
    c.obj.set_sh(text, s);
    const vgjit::ElfObjectInfo i = vgjit::read_elf_object(
        reinterpret_cast<const unsigned char*>(c.obj.bytes.data()), c.obj.bytes.size());
    BOOST_TEST(i.functions.size() == 2u);
    bool listed = false;
    for (const vgjit::ElfSection& e : i.code_sections) listed = listed || e.index == text;
    BOOST_TEST(listed);
}

BOOST_AUTO_TEST_SUITE_END()
