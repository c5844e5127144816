// integration_arm64.cpp - the patched Valgrind cross-built for arm64
// (build/cross-arm64, `make check-arm64`) run under QEMU user mode on
// arm64 JITs: tests/arm64jit (A64 code named through the client API, a
// perf map, a jitdump, early and late) and tests/gdbjit cross-built with
// the modules of fixtures/gdbjit (the GDB JIT interface), under Callgrind,
// Cachegrind and Memcheck.  The tests parse the profiles and logs those
// write, with the exact counts the code implies (arm64jit.cpp's header:
// loop(n) executes 3n + 3 instructions).
//
// QEMU runs the tool itself (<cross>/.in_place/TOOL-arm64-linux): without
// binfmt_misc the launcher could not exec it, so VALGRIND_LAUNCHER and
// VALGRIND_LIB are set as the launcher would set them, and --tool=TOOL
// passed as the launcher passes it (without it the core takes the tool
// for Memcheck and preloads Memcheck's malloc replacement, whose calls
// into the tool find no functions: "VG_USERREQ__CLIENT_CALL1: func=0x0",
// and every malloc returns NULL).  The CPU model is
// cortex-a72: QEMU's default ("max") reports 32-byte cache lines in
// CTR_EL0, which upstream Valgrind refuses at start (README, "Platforms").
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
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;

namespace {

std::string tree() { return env_or("VGJIT_ARM64_TREE", builddir() + "/build/cross-arm64"); }
std::string programs() { return env_or("VGJIT_ARM64_TESTS", tests_builddir() + "/arm64"); }
std::string qemu() { return env_or("VGJIT_QEMU_AARCH64", find_on_path("qemu-aarch64")); }
std::string arm64jit() { return programs() + "/arm64jit"; }
std::string gdbjit() { return programs() + "/gdbjit"; }
std::string lli() {
    return env_or("VGJIT_LLI_ARM64", builddir() + "/download/lli-arm64/usr/lib/llvm-14/bin/lli");
}
const std::string kClang = "/usr/bin/clang-14";

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

boost::test_tools::assertion_result arm64_available(boost::unit_test::test_unit_id) {
    const std::string tool = tree() + "/.in_place/memcheck-arm64-linux";
    boost::test_tools::assertion_result ok(!qemu().empty() && executable(qemu()) &&
                                           executable(tool) && executable(arm64jit()));
    if (!ok)
        ok.message() << "needs qemu-aarch64 (" << qemu() << "), the arm64 Valgrind (" << tool
                     << ") and the arm64 test programs (" << arm64jit()
                     << "): `make check-arm64` builds them after build-aux/install-deps.sh";
    return ok;
}

/// Runs `tool` of the arm64 Valgrind under QEMU (CPU model `cpu`) on
/// `prog` in `cwd`.
Result run_arm64(const std::string& tool, const std::vector<std::string>& args,
                 const std::vector<std::string>& prog, const std::string& cwd,
                 const std::string& cpu = "cortex-a72") {
    std::vector<std::string> argv{qemu(), "-cpu", cpu,
                                  tree() + "/.in_place/" + tool + "-arm64-linux", "--tool=" + tool};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), prog.begin(), prog.end());
    RunOptions o;
    o.cwd = cwd;
    o.timeout_seconds = 600;
    o.env["VALGRIND_LIB"] = tree() + "/.in_place";
    o.env["VALGRIND_LAUNCHER"] = tree() + "/coregrind/valgrind";
    const Result r = run(argv, o);
    if (r.timed_out) BOOST_ERROR("timed out: " << r);
    return r;
}

const std::uint64_t kN = 10, kCalls = 1000;
const std::uint64_t kLoopIr = kCalls * (3 * kN + 3);

std::vector<std::string> client(const std::string& mode) {
    return {arm64jit(), mode, std::to_string(kN), std::to_string(kCalls)};
}

/// Runs `mode` under Callgrind (or Cachegrind) and parses the profile.
cg::Profile profile(const TempDir& dir, const std::string& tool, const std::string& mode,
                    std::vector<std::string> extra = {}) {
    const std::string out = dir.file(tool + ".out");
    std::vector<std::string> args{"--" + tool + "-out-file=" + out};
    if (tool == "cachegrind") args.push_back("--cache-sim=no");
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_arm64(tool, args, client(mode), dir.path());
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "loop(10) = 10"), r);
    cg::Profile p = cg::Profile::parse_file(out);
    // The client's perf map, if it wrote one, goes with the run.
    if (p.header().count("pid"))
        std::remove(("/tmp/perf-" + p.header().at("pid") + ".map").c_str());
    return p;
}

std::uint64_t self_ir(const cg::Profile& p, const std::string& name) {
    std::uint64_t n = 0;
    for (const auto* f : p.functions_named(name, true)) n += f->self.at(0);
    return n;
}

std::uint64_t calls_to(const cg::Profile& p, const std::string& callee) {
    std::uint64_t n = 0;
    for (const auto& [keys, edge] : p.calls())
        if (cg::strip_recursion_suffix(keys.second.name) == callee) n += edge.count;
    return n;
}

/// Runs `prog` (any program) under Callgrind or Cachegrind in `dir` and
/// parses the profile.
cg::Profile profile_of(const TempDir& dir, const std::string& tool,
                       const std::vector<std::string>& prog, const std::string& name) {
    const std::string out = dir.file(name + "." + tool + ".out");
    std::vector<std::string> args{"--" + tool + "-out-file=" + out};
    if (tool == "cachegrind") args.push_back("--cache-sim=no");
    const Result r = run_arm64(tool, args, prog, dir.path());
    BOOST_TEST_REQUIRE(r.status == 0, r);
    return cg::Profile::parse_file(out);
}

/// Number of calls fib(n) makes of itself, the first call included.
std::uint64_t fib_calls(int n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }

/// Calls of `callee` from `caller` (any recursion levels).
std::uint64_t calls(const cg::Profile& p, const std::string& caller, const std::string& callee) {
    std::uint64_t n = 0;
    for (const auto& [keys, edge] : p.calls())
        if (cg::strip_recursion_suffix(keys.first.name) == caller &&
            cg::strip_recursion_suffix(keys.second.name) == callee)
            n += edge.count;
    return n;
}

/// Self Ir per line of `name`, by the file's last path component.
std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> line_ir(const cg::Profile& p,
                                                                       const std::string& name) {
    std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> out;
    for (const auto* f : p.functions_named(name, true))
        for (const auto& [pos, costs] : f->lines)
            out[{std::filesystem::path(pos.first).filename().string(), pos.second}] += costs.at(0);
    return out;
}

/// The per-line Ir of loop (one line per instruction, lines 10..15).
std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> loop_lines(const std::string& file) {
    return {{{file, 10}, kCalls},      {{file, 11}, kCalls * kN}, {{file, 12}, kCalls * kN},
            {{file, 13}, kCalls * kN}, {{file, 14}, kCalls},      {{file, 15}, kCalls}};
}

/// Callgrind names loop and frame `prefix`_loop / `prefix`_frame with the
/// exact calls and instruction counts.
void check_named(const cg::Profile& p, const std::string& prefix) {
    BOOST_TEST(calls_to(p, prefix + "_loop") == kCalls);
    BOOST_TEST(self_ir(p, prefix + "_loop") == kLoopIr);
    BOOST_TEST(calls_to(p, prefix + "_frame") == 1u);
    BOOST_TEST(self_ir(p, prefix + "_frame") == 5u);
}

/// Function names of the stack trace after "Invalid read of size 8".
std::vector<std::string> invalid_read_trace(const Result& r) {
    std::vector<std::string> names;
    for (const auto& f : stack_trace_after(r.err, "Invalid read of size 8", 6))
        names.push_back(f.function + (f.where.empty() ? "" : " (" + f.where + ")"));
    return names;
}

/// Memcheck on `mode`: one invalid read, in frame, reported with `top`
/// (the innermost frames, "function (where)") and then the C++ caller.
Result memcheck(const TempDir& dir, const std::string& mode, const std::vector<std::string>& top) {
    const Result r = run_arm64("memcheck", {"--error-exitcode=9"}, client(mode), dir.path());
    BOOST_TEST(r.status == 9, r);
    BOOST_TEST(contains(r.err, "ERROR SUMMARY: 1 errors from 1 contexts"), r);
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(trace.size() >= top.size() + 1, r);
    // Each of `top` is the frame's "function (where)", or its function
    // alone when the where part is a path of the run ("in .../jit-N.dump").
    for (std::size_t i = 0; i < top.size(); ++i)
        BOOST_TEST((trace[i] == top[i] || trace[i].rfind(top[i] + " (in /", 0) == 0), trace[i]);
    BOOST_TEST(contains(trace[top.size()], "run("), r);
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(arm64, *boost::unit_test::precondition(arm64_available))

BOOST_AUTO_TEST_CASE(api_callgrind_names_lines_and_counts) {
    TempDir dir;
    const cg::Profile p = profile(dir, "callgrind", "api");
    check_named(p, "arm64_api");
    BOOST_TEST(line_ir(p, "arm64_api_loop") == loop_lines("arm64_api.jit"));
}

BOOST_AUTO_TEST_CASE(api_cachegrind_counts) {
    TempDir dir;
    const cg::Profile p = profile(dir, "cachegrind", "api");
    BOOST_TEST(self_ir(p, "arm64_api_loop") == kLoopIr);
    BOOST_TEST(line_ir(p, "arm64_api_loop") == loop_lines("arm64_api.jit"));
    BOOST_TEST(self_ir(p, "arm64_api_frame") == 5u);
}

// The read inside frame's inlined range: the inlined function at its line,
// frame at the call site, and (through frame's CFI) the C++ caller.
BOOST_AUTO_TEST_CASE(api_memcheck_inlines_and_cfi) {
    TempDir dir;
    memcheck(dir, "api",
             {"arm64_inlined_load (arm64_api.jit:31)", "arm64_api_frame (arm64_api.jit:22)"});
}

// Without CFI the caller of frame is not found: the trace ends in frame
// or goes wrong, so the CFI of the case above is what finds it.
BOOST_AUTO_TEST_CASE(api_memcheck_without_cfi_loses_the_caller) {
    TempDir dir;
    const Result r = run_arm64("memcheck", {"--error-exitcode=9"}, client("api-nocfi"), dir.path());
    BOOST_TEST(r.status == 9, r);
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(trace.size() >= 2u, r);
    BOOST_TEST(trace[0] == "arm64_inlined_load (arm64_api.jit:31)");
    BOOST_TEST(trace[1] == "arm64_api_frame (arm64_api.jit:22)");
    bool caller = false;
    for (std::size_t i = 2; i < trace.size(); ++i) caller = caller || contains(trace[i], "run(");
    BOOST_TEST(!caller, r);
}

BOOST_AUTO_TEST_CASE(perfmap_callgrind_and_memcheck) {
    TempDir dir;
    check_named(profile(dir, "callgrind", "perfmap", {"--jit-perf-map=yes"}), "arm64_perfmap");
    const Result r = run_arm64("memcheck", {"--jit-perf-map=yes"}, client("perfmap"), dir.path());
    std::smatch pid;
    if (std::regex_search(r.err, pid, std::regex("==(\\d+)== Memcheck")))
        std::remove(("/tmp/perf-" + pid[1].str() + ".map").c_str());
    BOOST_TEST(contains(r.err, "at 0x"), r);
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(!trace.empty(), r);
    BOOST_TEST(contains(trace[0], "arm64_perfmap_frame"), r);
}

BOOST_AUTO_TEST_CASE(late_perfmap_names_the_profile) {
    TempDir dir;
    check_named(profile(dir, "callgrind", "late", {"--jit-perf-map=yes"}), "arm64_perfmap");
}

BOOST_AUTO_TEST_CASE(jitdump_callgrind_lines_and_counts) {
    TempDir dir;
    const cg::Profile p = profile(dir, "callgrind", "jitdump");
    check_named(p, "arm64_jitdump");
    BOOST_TEST(line_ir(p, "arm64_jitdump_loop") == loop_lines("arm64_jitdump.jit"));
}

BOOST_AUTO_TEST_CASE(jitdump_late_names_the_profile) {
    TempDir dir;
    const cg::Profile p = profile(dir, "callgrind", "jitdump-late");
    check_named(p, "arm64_jitdump");
    BOOST_TEST(line_ir(p, "arm64_jitdump_loop") == loop_lines("arm64_jitdump.jit"));
}

// CODE_UNWINDING_INFO gives frame's CFI: the trace reaches the C++ caller.
BOOST_AUTO_TEST_CASE(jitdump_memcheck_unwinding_info) {
    TempDir dir;
    memcheck(dir, "jitdump", {"arm64_jitdump_frame"});
}

// The frame shapes on arm64 unwind to the caller as the CFI does:
// VG_JIT_UNWIND_FRAME_POINTER (stp x29, x30; mov x29, sp) and
// VG_JIT_UNWIND_FIXED_FRAME (the return address at sp + 8 after the stp).
BOOST_AUTO_TEST_CASE(api_memcheck_frame_pointer_shape) {
    TempDir dir;
    memcheck(dir, "api-shape",
             {"arm64_inlined_load (arm64_api.jit:31)", "arm64_api_frame (arm64_api.jit:22)"});
}

BOOST_AUTO_TEST_CASE(api_memcheck_fixed_frame_shape) {
    TempDir dir;
    memcheck(dir, "api-fixed",
             {"arm64_inlined_load (arm64_api.jit:31)", "arm64_api_frame (arm64_api.jit:22)"});
}

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
            BOOST_TEST(calls_to(p, "arm64_api_loop") == kCalls);
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
                BOOST_TEST(calls_to(p, "gj_run_a") == calls_to(n, "gj_run_a"));
                BOOST_TEST(calls_to(p, "gj_fib") == calls_to(n, "gj_fib"));
                BOOST_TEST(calls_to(p, "gj_fib") >= fib_calls(20));
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
    const Result r = run_arm64(
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
    const Result jd = run({qemu(), "-cpu", "cortex-a72", arm64jit(), "jitdump", "10", "10"}, o);
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

boost::test_tools::assertion_result lli_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(executable(lli()) && executable(kClang));
    if (!ok)
        ok.message() << "needs the arm64 lli (" << lli() << ", build-aux/fetch-lli-arm64.sh) and "
                     << kClang;
    return ok;
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
    BOOST_TEST(calls(p, "main", "lj_loop") == 100u);
    BOOST_TEST(calls(p, "lj_loop", "lj_square") == 1000u);
    const auto lines = line_ir(p, "lj_square");
    BOOST_TEST_REQUIRE(!lines.empty());
    for (const auto& [pos, cost] : lines) {
        BOOST_TEST(pos.first == "lj.c");
        BOOST_TEST((pos.second >= 1 && pos.second <= 3), pos.second);
    }
    BOOST_TEST(line_ir(p, "lj_loop").count({"lj.c", 6}) == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
