// integration_gdbjit_objects.cpp - integration_gdbjit's cases of
// tests/gdbjit, which registers relocatable objects compiled from
// tests/fixtures/gdbjit/module_*.c: names, exact calls and line costs
// equal to the same objects linked natively, the interface found under a
// secondary name, reused memory and entries, --jit-gdb=no, -v and the
// trace, Massif, DHAT and Memcheck, the guard of the DWARF reader, and
// hostile entries; integration_gdbjit.cpp says what the program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "integration_gdbjit.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

using namespace vgjit::test;
using namespace gdbjit_test;

namespace {

/// Functions of the profile that no producer named: named after a hex
/// address, or after the code that made their memory executable
/// ("[JIT code of F]").
std::size_t unnamed(const cg::Profile& p) {
    std::size_t n = 0;
    for (const auto& [key, f] : p.functions())
        if (address_named(key.name) || key.name.rfind("[JIT code of ", 0) == 0) ++n;
    return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(jit_runs_the_same_natively_and_under_valgrind) {
    for (const std::string mode : {"run", "reuse", "preexisting", "memerr", "heap", "hostile"}) {
        BOOST_TEST_CONTEXT("mode " << mode) {
            const Result native = run(program(mode));
            BOOST_TEST_REQUIRE(native.status == 0, native);
            TempDir dir;
            // Memcheck finds no error but the one "memerr" plants.
            const Result vg =
                run_valgrind({"--tool=memcheck", "--error-exitcode=3"}, program(mode));
            BOOST_TEST(vg.status == (mode == "memerr" ? 3 : 0), vg);
            BOOST_TEST(vg.out == native.out);
        }
    }
}

BOOST_AUTO_TEST_CASE(callgrind_names_functions_of_registered_objects_with_exact_calls) {
    TempDir dir;
    const cg::Profile p = callgrind(dir, program("run"));
    // Registered before the code was executable (as MCJIT does): named once
    // mprotect made it so, with the object named after its file symbol.
    for (const std::string fn : {"gj_run_a", "gj_fib"}) {
        const auto keys = named(p, fn);
        BOOST_TEST_REQUIRE(!keys.empty(), fn << " is not in the profile");
        for (const auto& k : keys) BOOST_TEST(k.object == "module_a.c", fn);
    }
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_run_a") == 1u);
    BOOST_TEST(cg::calls_between_any_depth(p, "gj_run_a", "gj_fib") == 1u);
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_fib") == fib_calls(20));
}

// __jit_debug_register_code as an alias of a function with a shorter name:
// the symbol table keeps the shorter as the primary name, and the core's
// wrap must find the interface under its secondary name.
BOOST_AUTO_TEST_CASE(the_interface_is_found_under_a_secondary_name) {
    TempDir dir;
    Result r;
    const cg::Profile p =
        callgrind(dir, {tests_builddir() + "/gdbjit_alias", "run", module_a(), module_b()},
                  {"--trace-redir=yes"}, &r);
    // The binding names the function by its primary name, jit_hook.
    BOOST_TEST_REQUIRE(
        std::regex_search(r.err, std::regex(R"(\(jit_hook +\) W-> .*__jit_debug_register_code)")),
        r);
    for (const std::string fn : {"gj_run_a", "gj_fib"}) {
        const auto keys = named(p, fn);
        BOOST_TEST_REQUIRE(!keys.empty(), fn << " is not in the profile");
        for (const auto& k : keys) BOOST_TEST(k.object == "module_a.c", fn);
    }
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_fib") == fib_calls(20));
}

BOOST_AUTO_TEST_CASE(reused_code_memory_and_entry_get_the_new_names) {
    TempDir dir;
    const cg::Profile p = callgrind(dir, program("reuse"));
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_fib") == fib_calls(20));
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_run_b") == 1u);
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_fact") == 10u);
    for (const auto& k : named(p, "gj_fact")) BOOST_TEST(k.object == "module_b.c");
}

BOOST_AUTO_TEST_CASE(entries_listed_before_the_first_notification_are_read) {
    // A's entry is first on the list, never notified; B's is linked after
    // it and notified: only a walk from first_entry finds A.
    TempDir dir;
    const cg::Profile p = callgrind(dir, program("preexisting"));
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_fib") == fib_calls(20));
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_fact") == 10u);
}

BOOST_AUTO_TEST_CASE(option_no_leaves_the_interface_unread) {
    TempDir dir, dir_yes;
    const cg::Profile no = callgrind(dir, program("run"), {"--jit-gdb-interface=no"});
    const cg::Profile yes = callgrind(dir_yes, program("run"));
    BOOST_TEST(named(no, "gj_fib").empty());
    BOOST_TEST(cg::calls_to_any_depth(no, "gj_fib") == 0u);
    // The jitted blocks are named after their addresses instead.
    BOOST_TEST(unnamed(no) > unnamed(yes));
}

BOOST_AUTO_TEST_CASE(line_costs_of_a_registered_object_equal_the_same_object_linked_natively) {
    TempDir dir_jit, dir_native;
    const cg::Profile jit = callgrind(dir_jit, program("run"));
    const cg::Profile native = callgrind(dir_native, {tests_builddir() + "/gdbjit_native"});
    for (const std::string fn : {"gj_fib", "gj_run_a"}) {
        BOOST_TEST_CONTEXT(fn) {
            const auto lines = line_costs(jit, fn);
            BOOST_TEST_REQUIRE(!lines.empty());
            BOOST_TEST(lines == line_costs(native, fn));
            for (const auto& [pos, cost] : lines) BOOST_TEST(pos.first == "module_a.c");
        }
    }
    // The source file is the one the object's DWARF names.
    for (const auto& k : named(jit, "gj_fib"))
        BOOST_TEST(std::filesystem::path(k.file).filename() == "module_a.c");
}

BOOST_AUTO_TEST_CASE(cachegrind_line_costs_of_a_registered_object_equal_native_ones) {
    TempDir dir_jit, dir_native;
    const cg::Profile jit = cachegrind(dir_jit, program("run"));
    const cg::Profile native = cachegrind(dir_native, {tests_builddir() + "/gdbjit_native"});
    const auto lines = line_costs(jit, "gj_fib");
    BOOST_TEST_REQUIRE(!lines.empty());
    BOOST_TEST(lines == line_costs(native, "gj_fib"));
}

BOOST_AUTO_TEST_CASE(trace_and_verbose_summary_report_each_object) {
    TempDir dir;
    Result r;
    callgrind(dir, program("reuse"), {"-v", "--trace-jit=yes"}, &r);
    static const std::regex reg(
        R"(jit-gdb: register entry 0x[0-9a-f]+: object 0x[0-9a-f]+ \(\d+ bytes\) (\S+): (\d+) functions, 0 registered, (\d+) waiting)");
    std::vector<std::string> objects;
    for (std::sregex_iterator it(r.err.begin(), r.err.end(), reg), end; it != end; ++it) {
        objects.push_back((*it)[1]);
        BOOST_TEST((*it)[2] == (*it)[3]);
        BOOST_TEST((*it)[2] == (objects.back() == "module_a.c" ? "2" : "4"));
    }
    BOOST_TEST(objects == (std::vector<std::string>{"module_a.c", "module_b.c"}));
    BOOST_TEST(contains(r.err, "jit-gdb: unregister entry"));
    BOOST_TEST(contains(r.err,
                        "JIT GDB interface: 4 notifications, 1 descriptors, "
                        "2 objects registered, 2 unregistered, 0 refused; "
                        "6 functions registered, 0 refused, 0 waiting; "
                        "6 functions with line tables, 0 line tables refused; "
                        "2 objects with CFI, 0 refused"));
}

BOOST_AUTO_TEST_CASE(massif_and_dhat_name_the_jitted_allocation_site) {
    // gj_alloc (module_b.c:27) allocates 8 x 100000 bytes; the object is
    // still registered when the tools write their profiles at exit.
    TempDir dir;
    const std::string ms = dir.file("massif.out"), dh = dir.file("dhat.out");
    const Result m = run_valgrind({"--tool=massif", "--massif-out-file=" + ms}, program("heap"));
    BOOST_TEST_REQUIRE(m.status == 0, m);
    const Result d = run_valgrind({"--tool=dhat", "--dhat-out-file=" + dh}, program("heap"));
    BOOST_TEST_REQUIRE(d.status == 0, d);
    static const std::regex massif(R"re(n1: 800000 0x[0-9A-F]+: gj_alloc \(module_b\.c:27\))re");
    BOOST_TEST(std::regex_search(read_file(ms), massif), "no 800000-byte gj_alloc node in " << ms);
    static const std::regex dhat(R"re("0x[0-9A-F]+: gj_alloc \(module_b\.c:27\)")re");
    BOOST_TEST(std::regex_search(read_file(dh), dhat), "no gj_alloc frame in " << dh);
}

BOOST_AUTO_TEST_CASE(memcheck_names_the_jitted_frame_of_an_error) {
    const Result r = run_valgrind({"--tool=memcheck"}, program("memerr"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex frame(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: gj_peek \(module_b\.c:20\)\n==\d+==    by 0x[0-9A-F]+: )");
    BOOST_TEST(std::regex_search(r.err, frame), r.err);
}

BOOST_AUTO_TEST_CASE(the_guard_refuses_a_read_ended_by_an_assert_a_fault_or_an_overrun) {
    // The trust boundary's own machinery (jitguard.c), through real reads:
    // the hidden test option makes every guarded read of the objects'
    // DWARF fail, inside the guard, by a failed vg_assert, a load from
    // address 0 or a read past the end of an image.  Each read is refused
    // with its reason, the guard is armed again for the next one, and the
    // program runs on with its functions named (without lines).
    const std::vector<std::pair<std::string, std::string>> modes = {
        {"assert", "refused: a failed check: '"},
        {"fault", "refused: a fault (signal 11 at address 0x0)\n"},
        {"overrun", "refused: a read past the end of its section\n"}};
    for (const auto& [mode, why] : modes) {
        BOOST_TEST_CONTEXT("--jit-guard-test=" << mode) {
            const Result r = run_valgrind({"--tool=memcheck", "-v", "--jit-guard-test=" + mode},
                                          program("memerr"));
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(!contains(r.err, "Valgrind: the 'impossible' happened"), r.err);
            BOOST_TEST(contains(r.err, "line table of module_b.c (entry 0x"), r.err);
            BOOST_TEST(count_of(r.err, why) >= 2u, r.err);
            if (mode == "assert") BOOST_TEST(contains(r.err, "at m_debuginfo/jitguard.c:"), r.err);
            static const std::regex named(
                R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: gj_peek \(in module_b\.c\)\n)");
            BOOST_TEST(std::regex_search(r.err, named), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(hostile_entries_objects_and_lists_are_refused_with_warnings) {
    TempDir dir;
    Result r;
    RunOptions opts;
    opts.timeout_seconds = 120;
    const std::string out = dir.file("callgrind.out");
    r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out, "-v"}, program("hostile"),
                     opts);
    BOOST_TEST_REQUIRE(!r.timed_out, r);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "hostile: done\ngj_run_a(20) = 6765\n"));
    const std::vector<std::string> warnings = {
        "list of code entries has a cycle: list refused",
        "code entry 0x10 is not word-aligned readable client memory (32 bytes): refused\n",
        "(0x1000, 4096 bytes) refused: not readable client memory\n",
        "refused: shorter than an ELF header: 40 bytes, the header needs 64",
        "refused: section headers lie outside the object: ",
        "refused: symbol table is malformed: section ",
        " has entry size 24 and size 1099511627776, not a whole number of 24-byte symbols",
        "refused: a function lies outside its section: symbol ",
        " 'gj_fib', value 0x0, size ",
        "unknown action 7: ignored",
        "line table of module_a.c (entry 0x",
        "refused: a read past the end of its section",
        "refused: a relocation of a type other than R_X86_64_64",
        "Warning: GDB JIT interface: CFI of module_a.c (entry 0x",
    };
    BOOST_TEST(contains(r.err, "Warning: GDB JIT interface: "));
    for (const auto& w : warnings) BOOST_TEST((contains(r.err, w)), w);
    // R_X86_64_PC32 is applied in .eh_frame only: the line table with one
    // is refused, as is the CFI with an R_X86_64_GOTPCREL.
    static const std::regex line_rel_type(
        R"(line table of module_a\.c \(entry 0x[0-9a-f]+\) refused: a relocation of a type other )"
        R"(than R_X86_64_64)");
    BOOST_TEST(std::regex_search(r.err, line_rel_type), r.err);
    BOOST_TEST(count_of(r.err, "refused: a relocation of a type other than") == 2u, r.err);
    // The two functions over the program's text: one warning with the
    // count, the reason and the first of them.
    static const std::regex over_text(
        R"(Warning: GDB JIT interface: 2 functions of module_a\.c \(entry 0x[0-9a-f]+\) refused: 2 range overlaps the text of a loaded object \(the first: gj_\w+ at 0x[0-9a-f]+, \d+ bytes\)\n)");
    BOOST_TEST(std::regex_search(r.err, over_text), r.err);
    BOOST_TEST(count_of(r.err, "range overlaps the text of a loaded object") == 1u, r.err);
    // Six objects refused as a whole; the one over the program's text is
    // registered with both its functions refused (and is the known entry
    // unregistered later); the two with bad line tables are registered
    // (their functions wait for executable code until the entry is
    // unregistered); the one with overlapping functions registers both,
    // the second replacing the first, and is unregistered; then the good
    // one, whose line table is read.
    BOOST_TEST(contains(r.err,
                        "JIT GDB interface: 17 notifications, 1 descriptors, "
                        "5 objects registered, 4 unregistered, 6 refused; "
                        "4 functions registered, 2 refused, 0 waiting; "
                        "4 functions with line tables, 2 line tables refused; "
                        "4 objects with CFI, 1 refused"));
    BOOST_TEST(contains(r.err, "JIT: 4 registered, 3 unregistered, 1 replaced,"), r.err);
    // And the good code is still named, with exact counts.
    const cg::Profile p = cg::Profile::parse_file(out);
    BOOST_TEST(cg::calls_to_any_depth(p, "gj_fib") == fib_calls(20));
}

BOOST_AUTO_TEST_CASE(an_entry_refused_on_the_first_notification_is_warned_about_once) {
    TempDir dir;
    const Result r =
        run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + dir.file("cg.out"), "-v"},
                     program("first-refused"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "gj_run_a(20) = 6765\n"));
    // Read with the whole list, then as the relevant entry: one event.
    static const std::regex refused(
        R"(Warning: GDB JIT interface: object of entry 0x[0-9a-f]+ \(0x[0-9a-f]+, 40 bytes\) refused: shorter than an ELF header: 40 bytes, the header needs 64\n)");
    BOOST_TEST(std::regex_search(r.err, refused), r.err);
    BOOST_TEST(count_of(r.err, "refused: shorter than an ELF header") == 1u, r.err);
    BOOST_TEST(contains(r.err, "1 objects registered, 1 unregistered, 1 refused; "), r.err);
}
