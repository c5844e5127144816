// integration_gdbjit.cpp - the GDB JIT compilation interface read by the
// patched core, end to end: tests/gdbjit (a JIT that registers relocatable
// objects compiled from tests/fixtures/gdbjit/module_*.c, as LLVM's MCJIT
// does) and LLVM 14's lli running C compiled with clang-14, under the
// staged Callgrind and Memcheck; the tests parse what those write.

#define BOOST_TEST_MODULE integration_gdbjit
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;

namespace {

std::string gdbjit() { return tests_builddir() + "/gdbjit"; }
std::string module_a() { return tests_builddir() + "/gdbjit_module_a.o"; }
std::string module_b() { return tests_builddir() + "/gdbjit_module_b.o"; }

std::vector<std::string> program(const std::string& mode) {
    return {gdbjit(), mode, module_a(), module_b()};
}

/// Runs `prog` under Callgrind (with `extra` options) and parses the profile.
cg::Profile callgrind(const TempDir& dir, const std::vector<std::string>& prog,
                      std::vector<std::string> extra = {}, Result* result = nullptr) {
    const std::string out = dir.file("callgrind.out");
    std::vector<std::string> args{"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_valgrind(args, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    if (result) *result = r;
    return cg::Profile::parse_file(out);
}

/// Functions named `name` (any recursion level), as (object, file) keys.
std::vector<cg::FunctionKey> named(const cg::Profile& p, const std::string& name) {
    std::vector<cg::FunctionKey> out;
    for (const auto& [key, f] : p.functions())
        if (cg::strip_recursion_suffix(key.name) == name) out.push_back(key);
    return out;
}

/// Functions of the profile that no producer named: named after a hex
/// address, or after the code that made their memory executable
/// ("[JIT code of F]").
std::size_t unnamed(const cg::Profile& p) {
    std::size_t n = 0;
    for (const auto& [key, f] : p.functions())
        if (address_named(key.name) || key.name.rfind("[JIT code of ", 0) == 0) ++n;
    return n;
}

/// Self cost (event 0) per (source file's last path component, line) of
/// the functions named `name` (any recursion level) in `p`.
std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> line_costs(const cg::Profile& p,
                                                                          const std::string& name) {
    std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> out;
    for (const auto& [key, f] : p.functions()) {
        if (cg::strip_recursion_suffix(key.name) != name) continue;
        for (const auto& [pos, costs] : f.lines)
            out[{std::filesystem::path(pos.first).filename().string(), pos.second}] += costs.at(0);
    }
    return out;
}

/// Runs `prog` under Cachegrind (no cache simulation) and parses its output.
cg::Profile cachegrind(const TempDir& dir, const std::vector<std::string>& prog) {
    const std::string out = dir.file("cachegrind.out");
    const Result r =
        run_valgrind({"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out}, prog);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return cg::Profile::parse_file(out);
}

/// Number of calls fib(n) makes of itself, the first call included.
std::uint64_t fib_calls(int n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

const std::string kLli = "/usr/bin/lli-14";
const std::string kClang = "/usr/bin/clang-14";

boost::test_tools::assertion_result llvm_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(executable(kLli) && executable(kClang));
    ok.message() << kLli << " and " << kClang
                 << " are needed (build-aux/install-deps.sh installs llvm-14 and clang-14)";
    return ok;
}

/// Compiles `source` (C) to LLVM bitcode with clang-14 -g -O0 in `dir`.
std::string bitcode(const TempDir& dir, const std::string& name, const std::string& source) {
    const std::string c = dir.file(name + ".c"), bc = dir.file(name + ".bc");
    std::ofstream(c) << source;
    const Result r = run({kClang, "-g", "-O0", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return bc;
}

const char* kFibC = R"(#include <stdio.h>

int fib(int n)
{
   if (n < 2)
      return n;
   return fib(n - 1) + fib(n - 2);
}

int main(void)
{
   printf("fib(15) = %d\n", fib(15));
   return 0;
}
)";

/// Number of calls fib(n) makes with n < 2 (the leaves of its call tree).
std::uint64_t fib_leaves(int n) { return n < 2 ? 1 : fib_leaves(n - 1) + fib_leaves(n - 2); }

/// Checks the per-line costs of kFibC's fib (lines 3-8 of fib.c) computing
/// fib(15): every cost on fib.c's lines of fib, none elsewhere, and each
/// line's cost a multiple of how often its code runs: `return n;` (line 6)
/// in the leaves, the recursive calls (line 7) in the other calls, the
/// rest in every call.  Code attributed to a neighbouring line breaks the
/// multiples.
void check_fib_lines(const cg::Profile& p) {
    const auto lines = line_costs(p, "fib");
    BOOST_TEST_REQUIRE(!lines.empty(), "fib has no line costs");
    std::uint64_t sum = 0;
    for (const auto& [pos, cost] : lines) {
        BOOST_TEST_CONTEXT("fib.c line " << pos.second << " of " << pos.first) {
            BOOST_TEST(pos.first == "fib.c");
            BOOST_TEST((pos.second >= 3 && pos.second <= 8));
            const std::uint64_t runs = pos.second == 6   ? fib_leaves(15)
                                       : pos.second == 7 ? fib_calls(15) - fib_leaves(15)
                                                         : fib_calls(15);
            BOOST_TEST(cost % runs == 0u, cost << " is not a multiple of " << runs);
        }
        sum += cost;
    }
    BOOST_TEST(sum == self_ir(p, "fib"));
    for (const std::uint64_t line : {5u, 6u, 7u})
        BOOST_TEST(lines.count({"fib.c", line}) == 1u, "no cost on line " << line);
}

const char* kLeakC = R"(#include <stdlib.h>

static volatile void *keep;

__attribute__((noinline)) int *leaf(int n)
{
   int *p = malloc(n * sizeof(int));
   p[0] = n;
   return p;
}

__attribute__((noinline)) int middle(int n)
{
   int *p = leaf(n + 1);
   int v = p[0] * 2;
   keep = 0;
   return v;
}

int main(void)
{
   return middle(3) == 8 ? 0 : 1;
}
)";

// get() is reached through a volatile function pointer so that Valgrind
// cannot follow the call into it while translating main (with the call
// target known, the error's first frame would be the call site, natively
// too).
const char* kInlinedC = R"(#include <stdlib.h>

static inline int peek(const int *p)
{
   return *p * 3;
}

__attribute__((noinline)) int get(const int *p)
{
   return peek(p) + 1;
}

int main(void)
{
   int *p = malloc(sizeof(int));
   *p = 1;
   free(p);
   int (* volatile fp)(const int *) = get;
   return fp(p) == 42;
}
)";

/// The frames ("fn (file:line)", the file without its directory) of the
/// first Memcheck error in `err` whose first line contains `what`, down to
/// the first frame of `main`.
std::vector<std::string> error_frames(const std::string& err, const std::string& what) {
    std::vector<std::string> frames;
    const auto at = err.find(what);
    if (at == std::string::npos) return frames;
    static const std::regex frame(R"(^==\d+==    (?:at|by) 0x[0-9A-F]+: (.*)$)");
    std::istringstream in(err.substr(err.find('\n', at) + 1));
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, frame)) break;
        // Directories differ with how the compiler was given the file.
        static const std::regex dir(R"(\((?:[^()/]*/)+)");
        frames.push_back(std::regex_replace(m[1].str(), dir, "("));
        if (m[1].str().rfind("main ", 0) == 0) break;
    }
    return frames;
}

const char* kRaceC = R"(#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int counter;

__attribute__((noinline)) void bump(void)
{
   counter++;
}

static void *worker(void *arg)
{
   (void)arg;
   bump();
   return NULL;
}

__attribute__((noinline)) void *make_block(int i)
{
   void *p = malloc(100000);
   memset(p, i, 100000);
   return p;
}

int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, worker, NULL);
   bump();
   pthread_join(t, NULL);
   void *blocks[8];
   for (int i = 0; i < 8; i++)
      blocks[i] = make_block(i);
   for (int i = 0; i < 8; i++)
      free(blocks[i]);
   return 0;
}
)";

const char* kMemerrC = R"(#include <stdlib.h>

int peek(const int *p)
{
   return *p;
}

int main(void)
{
   int *p = malloc(sizeof(int));
   *p = 1;
   free(p);
   return peek(p) == 42;
}
)";

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

BOOST_AUTO_TEST_CASE(lli_jitted_functions_have_names_and_exact_call_counts,
                     *boost::unit_test::precondition(llvm_available)) {
    TempDir dir;
    const std::string bc = bitcode(dir, "fib", kFibC);
    const Result native = run({kLli, bc});
    BOOST_TEST_REQUIRE(native.status == 0, native);
    BOOST_TEST_REQUIRE(native.out == "fib(15) = 610\n");
    Result r;
    const cg::Profile p = callgrind(dir, {kLli, bc}, {}, &r);
    BOOST_TEST(r.out == native.out);
    const auto keys = named(p, "fib");
    BOOST_TEST_REQUIRE(!keys.empty(), r.err);
    for (const auto& k : keys) BOOST_TEST(k.object == "fib.c");
    BOOST_TEST(cg::calls_to_any_depth(p, "fib") == fib_calls(15));
    BOOST_TEST(cg::calls_between_any_depth(p, "main", "fib") == 1u);
}

BOOST_AUTO_TEST_CASE(lli_line_costs_fall_on_the_c_source_lines,
                     *boost::unit_test::precondition(llvm_available)) {
    TempDir dir;
    const std::string bc = bitcode(dir, "fib", kFibC);
    BOOST_TEST_CONTEXT("callgrind") { check_fib_lines(callgrind(dir, {kLli, bc})); }
    TempDir dir_cachegrind;
    BOOST_TEST_CONTEXT("cachegrind") { check_fib_lines(cachegrind(dir_cachegrind, {kLli, bc})); }
}

BOOST_AUTO_TEST_CASE(lli_memcheck_error_in_jitted_code_has_file_lines_and_jitted_callers,
                     *boost::unit_test::precondition(llvm_available)) {
    TempDir dir;
    const std::string bc = bitcode(dir, "memerr", kMemerrC);
    const Result r = run_valgrind({"--tool=memcheck"}, {kLli, bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex error(
        R"(Invalid read of size 4\n==\d+==    at 0x[0-9A-F]+: peek \(memerr\.c:5\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: main \(memerr\.c:13\)\n)"
        R"((==\d+==    by 0x[0-9A-F]+: .*\n)+)"
        R"(==\d+==  Address 0x[0-9a-f]+ is 0 bytes inside a block of size 4 free'd\n)"
        R"(==\d+==    at 0x[0-9A-F]+: free \(vg_replace_malloc\.c:\d+\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: main \(memerr\.c:12\)\n)");
    BOOST_TEST(std::regex_search(r.err, error), r.err);
}

BOOST_AUTO_TEST_CASE(lli_leak_from_code_without_frame_pointers_unwinds_by_its_cfi_to_main,
                     *boost::unit_test::precondition(llvm_available)) {
    // -O1 -fomit-frame-pointer: leaf and middle keep no frame pointer, so
    // only the objects' .eh_frame (relocated as a debugger does) leads from
    // malloc through the jitted frames to main and on into lli.  The names
    // outlive lli's unregistration at exit with --keep-debuginfo=yes.
    TempDir dir;
    const std::string c = dir.file("leak.c"), bc = dir.file("leak.bc");
    std::ofstream(c) << kLeakC;
    const Result cc =
        run({kClang, "-g", "-O1", "-fomit-frame-pointer", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(cc.status == 0, cc);
    const Result r = run_valgrind(
        {"--tool=memcheck", "--leak-check=full", "--keep-debuginfo=yes", "-v"}, {kLli, bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    static const std::regex leak(
        R"(16 bytes in 1 blocks are definitely lost in loss record \d+ of \d+\n)"
        R"(==\d+==    at 0x[0-9A-F]+: malloc \(vg_replace_malloc\.c:\d+\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: leaf \(leak\.c:7\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: middle \(leak\.c:14\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: main \(leak\.c:22\)\n)"
        R"(==\d+==    by 0x[0-9A-F]+: llvm::orc::runAsMain)");
    BOOST_TEST(std::regex_search(r.err, leak), r.err);
    static const std::regex cfi(R"(JIT GDB interface: .*; ([1-9]\d*) objects with CFI, 0 refused)");
    BOOST_TEST(std::regex_search(r.err, cfi), r.err);
}

BOOST_AUTO_TEST_CASE(lli_inlined_frames_appear_as_for_the_same_code_compiled_natively,
                     *boost::unit_test::precondition(llvm_available)) {
    // clang-14 -O2 inlines peek into get: under --read-inline-info=yes the
    // error inside it shows peek and get at one address, read from the
    // object's .debug_info, exactly as for the same source compiled to an
    // executable (Valgrind's own DWARF reader gives the same caller file,
    // also where it cannot name it).
    TempDir dir;
    const std::string c = dir.file("inlined.c"), bc = dir.file("inlined.bc"),
                      exe = dir.file("inlined");
    std::ofstream(c) << kInlinedC;
    const Result cc_jit = run({kClang, "-g", "-O2", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(cc_jit.status == 0, cc_jit);
    const Result cc_native = run({kClang, "-g", "-O2", c, "-o", exe});
    BOOST_TEST_REQUIRE(cc_native.status == 0, cc_native);
    const std::string what = "Invalid read of size 4";
    const Result native = run_valgrind({"--tool=memcheck", "--read-inline-info=yes"}, {exe});
    const Result jit =
        run_valgrind({"--tool=memcheck", "--read-inline-info=yes", "-v"}, {kLli, bc});
    BOOST_TEST_REQUIRE(jit.status == 0, jit);
    const auto native_frames = error_frames(native.err, what);
    const auto jit_frames = error_frames(jit.err, what);
    BOOST_TEST_REQUIRE(native_frames.size() == 3u, native.err);
    BOOST_TEST(native_frames.front() == "peek (inlined.c:5)");
    BOOST_TEST(jit_frames == native_frames, jit.err);
    static const std::regex inl(R"(JIT GDB interface: .*; ([1-9]\d*) objects with inlined calls)");
    BOOST_TEST(std::regex_search(jit.err, inl), jit.err);
    // Without inline info the inlined frame is not there (the test can fail).
    const Result plain = run_valgrind({"--tool=memcheck", "--read-inline-info=no"}, {kLli, bc});
    const auto plain_frames = error_frames(plain.err, what);
    BOOST_TEST_REQUIRE(!plain_frames.empty(), plain.err);
    BOOST_TEST(plain_frames.front().rfind("get (", 0) == 0u, plain.err);
}

BOOST_AUTO_TEST_CASE(clang_dwarf5_inlined_callers_show_their_file_in_elf_and_jit_code,
                     *boost::unit_test::precondition(llvm_available)) {
    // DWARF 5 numbers a line table's files from 0, and clang gives the
    // primary source file index 0: the call site of peek in get
    // (DW_AT_call_file 0) must print as inlined.c:10, in the executable
    // and in the object lli registers through the GDB JIT interface.
    TempDir dir;
    const std::string c = dir.file("inlined.c"), bc = dir.file("inlined.bc"),
                      exe = dir.file("inlined");
    std::ofstream(c) << kInlinedC;
    const Result cc_jit = run({kClang, "-gdwarf-5", "-O2", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(cc_jit.status == 0, cc_jit);
    const Result cc_native = run({kClang, "-gdwarf-5", "-O2", c, "-o", exe});
    BOOST_TEST_REQUIRE(cc_native.status == 0, cc_native);
    const std::string what = "Invalid read of size 4";
    for (const bool jitted : {false, true}) {
        BOOST_TEST_CONTEXT((jitted ? "lli" : "executable")) {
            const Result r =
                jitted ? run_valgrind({"--tool=memcheck", "--read-inline-info=yes"}, {kLli, bc})
                       : run_valgrind({"--tool=memcheck", "--read-inline-info=yes"}, {exe});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const auto frames = error_frames(r.err, what);
            BOOST_TEST_REQUIRE(frames.size() >= 2u, r.err);
            BOOST_TEST(frames[0] == "peek (inlined.c:5)", r.err);
            BOOST_TEST(frames[1] == "get (inlined.c:10)", r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(lli_race_and_heap_profile_name_jitted_frames_in_helgrind_drd_and_dhat,
                     *boost::unit_test::precondition(llvm_available)) {
    // Two threads bump a counter without a lock (bump, race.c:9, from
    // worker and main), then main allocates in make_block (race.c:21).
    TempDir dir;
    const std::string bc = bitcode(dir, "race", kRaceC);
    BOOST_TEST_CONTEXT("helgrind") {
        const Result r = run_valgrind({"--tool=helgrind"}, {kLli, bc});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        static const std::regex race(
            R"(Possible data race during (read|write) of size \d+ at 0x[0-9A-F]+ by thread #\d+\n)"
            R"(==\d+== Locks held: none\n)"
            R"(==\d+==    at 0x[0-9A-F]+: bump \(race\.c:9\)\n)"
            R"(==\d+==    by 0x[0-9A-F]+: (main \(race\.c:30\)|worker \(race\.c:15\))\n)");
        BOOST_TEST(std::regex_search(r.err, race), r.err);
        BOOST_TEST(contains(r.err, ": worker (race.c:15)"), r.err);
    }
    BOOST_TEST_CONTEXT("drd") {
        const Result r = run_valgrind({"--tool=drd"}, {kLli, bc});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        static const std::regex race(
            R"(Conflicting (load|store) by thread \d+ at 0x[0-9a-f]+ size \d+\n)"
            R"(==\d+==    at 0x[0-9A-F]+: bump \(race\.c:9\)\n)");
        BOOST_TEST(std::regex_search(r.err, race), r.err);
    }
    BOOST_TEST_CONTEXT("dhat") {
        // DHAT describes its stacks at exit, after lli unregistered the
        // code: --keep-debuginfo=yes keeps the names for that.
        const std::string out = dir.file("dhat.out");
        const Result r = run_valgrind(
            {"--tool=dhat", "--keep-debuginfo=yes", "--dhat-out-file=" + out}, {kLli, bc});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        const std::string json = read_file(out);
        static const std::regex frame(R"re("0x[0-9A-F]+: make_block \(race\.c:21\)")re");
        BOOST_TEST(std::regex_search(json, frame), "no make_block frame in " << out);
        BOOST_TEST(contains(json, ": main (race.c:34)\""), "no main frame in " << out);
    }
}

// Code that outlives its registration: tests/llvm_keep, an LLVM 14 MCJIT
// client whose memory manager keeps the code after the execution engine is
// disposed of (MCJIT then unregisters its object), calls keep_work 1000
// times before the disposal and 100000 times after it.

namespace {

const char* kKeepC = R"(static inline __attribute__((always_inline)) int peek(const int *p) {
    return *p;
}
__attribute__((noinline)) int keep_leaf(const int *p, int i) {
    return peek(p) + i;
}
int keep_work(const int *p, int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += keep_leaf(p, i) & 1;
    return s;
}
)";

std::string llvm_keep() { return tests_builddir() + "/llvm_keep"; }

boost::test_tools::assertion_result llvm_keep_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(executable(llvm_keep()) && executable(kClang));
    ok.message() << llvm_keep() << " and " << kClang
                 << " are needed (configure builds llvm_keep when it finds llvm-config-14;"
                    " build-aux/install-deps.sh installs llvm-14-dev and clang-14)";
    return ok;
}

/// tests/llvm_keep MODE on kKeepC compiled with clang-14 -O1 in `dir`.
std::vector<std::string> keep_program(const TempDir& dir, const std::string& mode) {
    const std::string c = dir.file("keep.c"), bc = dir.file("keep.bc");
    std::ofstream(c) << kKeepC;
    const Result r = run({kClang, "-g", "-O1", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return {llvm_keep(), mode, bc};
}

/// The counts of the -v line on functions kept after their unregistration:
/// kept, looked up, ended unmapped, reused, written, otherwise, kept at exit.
std::vector<std::uint64_t> kept_summary(const std::string& err) {
    static const std::regex line(
        R"(JIT: (\d+) unregistered functions kept their names while their code stayed mapped)"
        R"( and unchanged, (\d+) of them looked up after that \(their code ran or was)"
        R"( described\); ended: (\d+) unmapped, (\d+) reused, (\d+) written, (\d+))"
        R"( otherwise; (\d+) kept at exit)");
    std::smatch m;
    std::vector<std::uint64_t> out;
    if (!std::regex_search(err, m, line)) return out;
    for (std::size_t i = 1; i < m.size(); ++i) out.push_back(std::stoull(m[i].str()));
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(llvm_code_run_after_its_engine_is_disposed_keeps_names_costs_and_lines,
                     *boost::unit_test::precondition(llvm_keep_available)) {
    TempDir dir;
    const auto prog = keep_program(dir, "run");
    Result r;
    const cg::Profile p = callgrind(dir, prog, {"-v"}, &r);
    BOOST_TEST(contains(r.out, "before 500\nafter 50000\n"), r.out);
    // Every call, before and after the disposal, is charged to the names.
    BOOST_TEST(cg::calls_between_any_depth(p, "keep_work", "keep_leaf") == 101000u);
    const auto leaf = line_costs(p, "keep_leaf");
    BOOST_TEST(self_ir(p, "keep_leaf") == 3u * 101000);
    BOOST_TEST((leaf.count({"keep.c", 5}) ? leaf.at({"keep.c", 5}) : 0) == 2u * 101000);
    const auto work = line_costs(p, "keep_work");
    BOOST_TEST((work.count({"keep.c", 10}) ? work.at({"keep.c", 10}) : 0) >= 10u * 101000);
    // keep_work and keep_leaf: kept, run again, still kept at exit.
    BOOST_TEST(kept_summary(r.err) == (std::vector<std::uint64_t>{2, 2, 0, 0, 0, 0, 2}), r.err);
    BOOST_TEST(contains(r.err, "JIT: 2 registered, 2 unregistered, 0 replaced, 0 unmapped,"),
               r.err);
    // Cachegrind too.
    const cg::Profile c = cachegrind(dir, prog);
    BOOST_TEST(self_ir(c, "keep_leaf") == 3u * 101000);
}

BOOST_AUTO_TEST_CASE(memcheck_unwinds_llvm_code_run_after_its_engine_is_disposed,
                     *boost::unit_test::precondition(llvm_keep_available)) {
    TempDir dir;
    const Result r = run_valgrind({"--tool=memcheck"}, keep_program(dir, "memerr"));
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "memerr done"), r.out);
    const auto frames = error_frames(r.err, "Invalid read of size 4");
    BOOST_TEST_REQUIRE(frames.size() == 3u, r.err);
    // keep_leaf keeps no frame: its caller is found by the object's CFI.
    BOOST_TEST(frames[0] == "keep_leaf (keep.c:5)", r.err);
    BOOST_TEST(frames[1] == "keep_work (keep.c:10)", r.err);
    BOOST_TEST(frames[2].rfind("main (llvm_keep.cpp:", 0) == 0u, r.err);
}

BOOST_AUTO_TEST_CASE(kept_llvm_code_loses_its_name_when_its_bytes_are_written,
                     *boost::unit_test::precondition(llvm_keep_available)) {
    TempDir dir;
    Result run_r;
    const cg::Profile ran = callgrind(dir, keep_program(dir, "run"), {"-v"}, &run_r);
    const std::uint64_t work_cost = self_ir(ran, "keep_work");
    BOOST_TEST_REQUIRE(work_cost > 100000u);
    // rewrite: mprotect to writable, `mov eax, 7; ret` over keep_work,
    // executable again, 100000 calls (200000 instructions).  rwx: the same
    // bytes written into read-write-execute memory without any mprotect,
    // seen when Valgrind discards the changed code's translations.
    for (const std::string mode : {"rewrite", "rwx"}) {
        BOOST_TEST_CONTEXT("mode " << mode) {
            TempDir d;
            Result r;
            const cg::Profile p = callgrind(d, keep_program(d, mode), {"-v"}, &r);
            BOOST_TEST(contains(r.out, "rewritten 700000"), r.out);
            // keep_work has its own costs only, not those of the new code.
            BOOST_TEST(self_ir(p, "keep_work") == work_cost);
            const auto kept = kept_summary(r.err);
            BOOST_TEST_REQUIRE(kept.size() == 7u, r.err);
            // rewrite ends both (the mprotect covers keep_leaf too), rwx
            // keep_work only.
            BOOST_TEST(kept[4] == (mode == "rewrite" ? 2u : 1u), r.err);
            BOOST_TEST(kept[6] == (mode == "rewrite" ? 0u : 1u), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(kept_names_end_when_their_memory_is_unmapped_or_made_writable) {
    // gdbjit run: module A unregistered, then its code unmapped; reuse:
    // A unregistered, its code made writable and B loaded there.
    for (const std::string mode : {"run", "reuse"}) {
        BOOST_TEST_CONTEXT("mode " << mode) {
            const Result r = run_valgrind({"--tool=none", "-v"}, program(mode));
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const auto kept = kept_summary(r.err);
            BOOST_TEST_REQUIRE(kept.size() == 7u, r.err);
            BOOST_TEST(kept[0] > 0u);
            // run: A's functions end when its memory is unmapped.  reuse:
            // A's when its memory is made writable, then B's (unregistered
            // too) when it is unmapped.
            BOOST_TEST(kept[4] == (mode == "run" ? 0u : kept[0] - kept[2]), r.err);
            BOOST_TEST(kept[2] > 0u, r.err);
            BOOST_TEST(kept[2] + kept[4] == kept[0], r.err);
            BOOST_TEST(kept[6] == 0u, r.err);
        }
    }
}
