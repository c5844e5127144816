// integration_arm64.cpp - the patched Valgrind cross-built for arm64
// (build/cross-arm64, `make check-arm64`) run under QEMU user mode on
// arm64 JITs: tests/arm64/arm64jit (tests/crossjit.cpp cross-built: A64
// code named through the client API, a perf map, a jitdump, early and
// late) and tests/gdbjit cross-built with the modules of fixtures/gdbjit
// (the GDB JIT interface), under Callgrind, Cachegrind and Memcheck.  The
// cases shared with x86, and the exact counts they assert, are in
// cross_arch.hpp (on arm64 a call of frame executes 5 instructions and its
// read is 8 bytes); here are those of arm64 alone: CPU models with other
// cache line sizes, the GDB JIT interface with AArch64 relocations,
// --dump-jit-code's AArch64 ELF files, vg-jit on arm64 files, and lli.
//
// QEMU runs the tool itself (<cross>/.in_place/TOOL-arm64-linux): without
// binfmt_misc the launcher could not exec it, so VALGRIND_LAUNCHER and
// VALGRIND_LIB are set as the launcher would set them, and --tool=TOOL
// passed as the launcher passes it (without it the core takes the tool
// for Memcheck and preloads Memcheck's malloc replacement, whose calls
// into the tool find no functions: "VG_USERREQ__CLIENT_CALL1: func=0x0",
// and every malloc returns NULL).  The CPU model is
// cortex-a72: QEMU's default ("max") reports 32-byte cache lines in
// CTR_EL0, which upstream Valgrind refuses at start (HACKING.md, patch
// 0009).
//
// A real arm64 JIT: Debian's arm64 lli-14 (build-aux/fetch-lli-arm64.sh;
// MCJIT, whose objects carry R_AARCH64_* relocations in their DWARF) runs
// bitcode clang-14 compiled for aarch64.  LLVM 14's default ORC JIT
// crashes in its own code under plain QEMU (without Valgrind), so lli runs
// with --jit-kind=mcjit.
//
// Environment: VGJIT_ARM64_TREE (default: the build tree's
// build/cross-arm64), VGJIT_ARM64_TESTS (the cross-built test programs,
// default: tests/arm64 of the build tree), VGJIT_QEMU_AARCH64 (default:
// qemu-aarch64 on $PATH), VGJIT_LLI_ARM64 (default: the build tree's
// download/lli-arm64/usr/lib/llvm-14/bin/lli).

#define BOOST_TEST_MODULE integration_arm64
#define VGJIT_CROSS_ARCH arm64
#include "cross_arch.hpp"

namespace vgjit {
namespace cross {
namespace {

std::string tree() {
    return test::env_or("VGJIT_ARM64_TREE", test::builddir() + "/build/cross-arm64");
}
std::string programs() {
    return test::env_or("VGJIT_ARM64_TESTS", test::tests_builddir() + "/arm64");
}
std::string qemu() {
    return test::env_or("VGJIT_QEMU_AARCH64", test::find_on_path("qemu-aarch64"));
}
std::string gdbjit() { return programs() + "/gdbjit"; }
std::string lli() {
    return test::env_or("VGJIT_LLI_ARM64",
                        test::builddir() + "/download/lli-arm64/usr/lib/llvm-14/bin/lli");
}
const std::string kClang = "/usr/bin/clang-14";

/// Runs `tool` of the arm64 Valgrind under QEMU (CPU model `cpu`) on
/// `prog` in `cwd`.
Result run_arm64(const std::string& tool, const std::vector<std::string>& args,
                 const std::vector<std::string>& prog, const std::string& cwd,
                 const std::string& cpu) {
    // JITDUMPDIR: lli's LLVM perf listener writes its jitdump under
    // DIR/.debug/jit, by default /tmp/.debug/jit (0750, its creator's),
    // which would keep every other user's LLVM JIT from writing there.
    return run_launched(
        {qemu(), "-cpu", cpu, tree() + "/.in_place/" + tool + "-arm64-linux", "--tool=" + tool},
        args, prog, cwd,
        {{"VALGRIND_LIB", tree() + "/.in_place"},
         {"VALGRIND_LAUNCHER", tree() + "/coregrind/valgrind"},
         {"JITDUMPDIR", cwd}},
        600);
}

/// Number of calls fib(n) makes of itself, the first call included.
std::uint64_t fib_calls(int n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }

boost::test_tools::assertion_result lli_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(executable(lli()) && executable(kClang));
    if (!ok)
        ok.message() << "needs the arm64 lli (" << lli() << ", build-aux/fetch-lli-arm64.sh) and "
                     << kClang;
    return ok;
}

}  // namespace

const Arch& arch() {
    static const Arch a = [] {
        Arch x;
        x.jit = programs() + "/arm64jit";
        x.word_size = 8;        // ldr x0, [x0]
        x.frame_ir = 5;         // stp, mov, ldr, ldp, ret
        x.loop_body_line = 11;  // add, subs, b.ne: lines 11..13
        x.needs = {{"qemu-aarch64", qemu()},
                   {"the arm64 Valgrind", tree() + "/.in_place/memcheck-arm64-linux"},
                   {"the arm64 test programs", x.jit}};
        x.case_packages = {"libllvm14:arm64"};  // lli_available
        return x;
    }();
    return a;
}

Result run_tool(const std::string& tool, const std::vector<std::string>& args,
                const std::vector<std::string>& prog, const std::string& cwd) {
    return run_arm64(tool, args, prog, cwd, "cortex-a72");
}

}  // namespace cross
}  // namespace vgjit

// The cases of arm64 alone (the suite's precondition is set in
// cross_arch.hpp).
BOOST_AUTO_TEST_SUITE(arm64)

using namespace vgjit::test;

// CPU models whose smallest data cache line is not 64 bytes: QEMU's
// default "max" (32 bytes, CTR_EL0 0x80038003) and Fujitsu's A64FX (256
// bytes, 0x86668006).  Upstream Valgrind stopped at its first translation
// on both ("Assertion 'cls == 64 || cls == 128' failed"); patch 0009.
BOOST_AUTO_TEST_CASE(cache_lines_of_32_and_256_bytes) {
    for (const std::string cpu : {"max", "a64fx"}) {
        BOOST_TEST_CONTEXT("-cpu " << cpu) {
            TempDir dir;
            const std::string out = dir.file("callgrind.out");
            const Result r = run_arm64("callgrind", {"--callgrind-out-file=" + out}, client("api"),
                                       dir.path(), cpu);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(!contains(r.err, "Assertion"), r);
            const cg::Profile p = cg::Profile::parse_file(out);
            BOOST_TEST(cg::calls_to_any_depth(p, "arm64_api_loop") == kCalls);
            BOOST_TEST(self_ir(p, "arm64_api_loop") == kLoopIr);
        }
    }
}

// The GDB JIT interface: gdbjit registers relocatable AArch64 objects
// (their DWARF needs R_AARCH64_ABS64 and _ABS32, their .eh_frame
// R_AARCH64_PREL32); the per-line costs equal those of the same objects
// linked into an ordinary executable.
BOOST_AUTO_TEST_CASE(gdbjit_names_calls_and_lines_equal_native) {
    TempDir dir;
    const std::vector<std::string> jit{gdbjit(), "run", programs() + "/gdbjit_module_a.o",
                                       programs() + "/gdbjit_module_b.o"};
    const std::vector<std::string> native{programs() + "/gdbjit_native"};
    for (const std::string tool : {"callgrind", "cachegrind"}) {
        BOOST_TEST_CONTEXT(tool) {
            const cg::Profile p = profile_of(dir, tool, jit, "jit");
            const cg::Profile n = profile_of(dir, tool, native, "native");
            if (tool == "callgrind") {
                // Callgrind's arm64 call detection counts gj_fib's leaf
                // activations twice (fib_calls(20) + fib(21) = 32837),
                // natively too: the counts equal the native ones.
                BOOST_TEST(cg::calls_to_any_depth(p, "gj_run_a") ==
                           cg::calls_to_any_depth(n, "gj_run_a"));
                BOOST_TEST(cg::calls_to_any_depth(p, "gj_fib") ==
                           cg::calls_to_any_depth(n, "gj_fib"));
                BOOST_TEST(cg::calls_to_any_depth(p, "gj_fib") >= fib_calls(20));
            }
            for (const std::string fn : {"gj_fib", "gj_run_a"}) {
                // The lines of module_a.c (Callgrind also gives the name
                // of the function returned from to a few instructions of
                // its caller's file, here gdbjit.cpp or gdbjit_native.cpp).
                const auto in_module = [](auto m) {
                    for (auto it = m.begin(); it != m.end();)
                        it = it->first.first == "module_a.c" ? std::next(it) : m.erase(it);
                    return m;
                };
                const auto jit_lines = in_module(line_ir(p, fn));
                BOOST_TEST_REQUIRE(!jit_lines.empty(), fn);
                BOOST_TEST(jit_lines == in_module(line_ir(n, fn)), fn);
            }
        }
    }
}

// gj_peek reads a freed block: its frame with its line, and through the
// object's .eh_frame the JIT's own function.
BOOST_AUTO_TEST_CASE(gdbjit_memcheck_lines_and_cfi) {
    TempDir dir;
    const Result r = run_tool(
        "memcheck", {},
        {gdbjit(), "memerr", programs() + "/gdbjit_module_a.o", programs() + "/gdbjit_module_b.o"},
        dir.path());
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const auto trace = stack_trace_after(r.err, "Invalid read of size 4", 4);
    BOOST_TEST_REQUIRE(trace.size() >= 2u, r);
    BOOST_TEST(trace[0].function == "gj_peek");
    BOOST_TEST(trace[0].where == "module_b.c:20");
    BOOST_TEST(contains(trace[1].where, "gdbjit.cpp:"), r);
}

// --dump-jit-code writes the code that ran into an ELF file of the
// host's machine: AArch64, holding loop's bytes at their address.
BOOST_AUTO_TEST_CASE(dump_jit_code_writes_aarch64_elf_files) {
    TempDir dir;
    profile(dir, "callgrind", "api", {"--dump-instr=yes", "--dump-jit-code=yes"});
    std::vector<std::string> elfs;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        if (e.path().extension() == ".elf") elfs.push_back(e.path().string());
    BOOST_TEST_REQUIRE(elfs.size() == 1u);
    const std::string elf = read_file(elfs[0]);
    BOOST_TEST_REQUIRE(elf.size() > 64u);
    BOOST_TEST(elf.compare(0, 4,
                           "\x7f"
                           "ELF") == 0);
    BOOST_TEST(static_cast<unsigned char>(elf[18]) == 183u);  // e_machine EM_AARCH64
    BOOST_TEST(static_cast<unsigned char>(elf[19]) == 0u);
    // loop's first words (movz x1, #0; add x1, x1, #1), little-endian.
    BOOST_TEST(contains(elf, std::string("\x01\x00\x80\xd2\x21\x04\x00\x91", 8)));
}

// vg-jit (an amd64 program) reads what arm64 JITs write: the jitdump of
// arm64jit and the objects gdbjit registers (saved as handed in), with
// their lines and CFI.  The programs run under plain QEMU.
BOOST_AUTO_TEST_CASE(vg_jit_reads_arm64_jitdumps_and_objects) {
    TempDir dir;
    RunOptions o;
    o.cwd = dir.path();
    const Result jd = run({qemu(), "-cpu", "cortex-a72", arch().jit, "jitdump", "10", "10"}, o);
    BOOST_TEST_REQUIRE(jd.status == 0, jd);
    std::string dump;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        if (e.path().extension() == ".dump") dump = e.path().string();
    BOOST_TEST_REQUIRE(!dump.empty());
    const Result check = run({vg_jit(), "check", dump});
    BOOST_TEST(check.status == 0, check);
    BOOST_TEST(contains(check.out, "jitdump, 4 records, 0 errors, 0 warnings"), check);
    const Result d = run({vg_jit(), "dump", dump});
    BOOST_TEST(contains(d.out, "AArch64 (e_machine 183)"), d);
    BOOST_TEST(contains(d.out, "'arm64_jitdump_frame'"), d);

    const Result save =
        run({qemu(), "-cpu", "cortex-a72", gdbjit(), "save", programs() + "/gdbjit_module_a.o",
             programs() + "/gdbjit_module_b.o", dir.path()});
    BOOST_TEST_REQUIRE(save.status == 0, save);
    const Result obj = run({vg_jit(), "check", dir.file("module_a.o")});
    BOOST_TEST(obj.status == 0, obj);
    BOOST_TEST(contains(obj.out, "ELF object, 2 functions, 0 errors, 0 warnings"), obj);
    const Result od = run({vg_jit(), "dump", dir.file("module_a.o")});
    BOOST_TEST(contains(od.out, "AArch64 (e_machine 183)"), od);
    BOOST_TEST(contains(od.out, "'gj_fib' section 1 lines yes cfi yes"), od);
}

// A real arm64 JIT: lli-14 (MCJIT) registers each module through the GDB
// JIT interface; Callgrind names its functions with the exact calls and
// the lines of the C source.
BOOST_AUTO_TEST_CASE(lli_names_functions_with_calls_and_lines,
                     *boost::unit_test::precondition(lli_available)) {
    TempDir dir;
    const std::string c = dir.file("lj.c"), bc = dir.file("lj.bc");
    write_file(c,
               "int lj_square(int x) {\n"  // line 1
               "    return x * x;\n"       // line 2
               "}\n"
               "int lj_loop(int n) {\n"  // line 4
               "    int s = 0;\n"
               "    for (int i = 0; i < n; i++) s += lj_square(i);\n"  // line 6
               "    return s;\n"
               "}\n"
               "int main(void) {\n"
               "    int s = 0;\n"
               "    for (int k = 0; k < 100; k++) s += lj_loop(10);\n"
               "    return s == 28500 ? 0 : 1;\n"
               "}\n");
    const Result cc =
        run({kClang, "--target=aarch64-linux-gnu", "-g", "-O0", "-emit-llvm", "-c", c, "-o", bc});
    BOOST_TEST_REQUIRE(cc.status == 0, cc);
    const cg::Profile p = profile_of(dir, "callgrind", {lli(), "--jit-kind=mcjit", bc}, "lli");
    // Callgrind on arm64 also counts each return from lj_square into
    // lj_loop as a call of lj_loop (as it counts one per leaf activation
    // of gdbjit's gj_fib natively): the edges are exact.
    BOOST_TEST(cg::calls_between_any_depth(p, "main", "lj_loop") == 100u);
    BOOST_TEST(cg::calls_between_any_depth(p, "lj_loop", "lj_square") == 1000u);
    const auto lines = line_ir(p, "lj_square");
    BOOST_TEST_REQUIRE(!lines.empty());
    for (const auto& [pos, cost] : lines) {
        BOOST_TEST(pos.first == "lj.c");
        BOOST_TEST((pos.second >= 1 && pos.second <= 3), pos.second);
    }
    BOOST_TEST(line_ir(p, "lj_loop").count({"lj.c", 6}) == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
