// integration_x86.cpp - the patched Valgrind built for x86 (32-bit;
// build/cross-x86, `make check-x86`) on tests/x86jit, an IA-32 JIT that
// names its code through the client API (lines, inline tables, .eh_frame,
// both frame shapes), perf maps and jitdumps, early and late, under
// Callgrind, Cachegrind and Memcheck.  The tests parse the profiles and
// logs those write, with the exact counts the code implies (x86jit.cpp's
// header: loop(n) executes 3n + 3 instructions, frame 6).  The perf maps
// and jitdumps also name loop 4 GiB above it: those 64-bit addresses are
// refused, not truncated onto loop.  What x86 does not have is refused
// with a warning: --dump-jit-code (ELF files are written on 64-bit
// platforms only).
//
// The x86 Valgrind runs natively through its own launcher
// (<tree>/coregrind/valgrind) with VALGRIND_LIB=<tree>/.in_place.
//
// Environment: VGJIT_X86_TREE (default: the build tree's build/cross-x86),
// VGJIT_X86_TESTS (the x86 test programs, default: tests/x86 of the build
// tree).

#define BOOST_TEST_MODULE integration_x86
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

std::string tree() { return env_or("VGJIT_X86_TREE", builddir() + "/build/cross-x86"); }
std::string programs() { return env_or("VGJIT_X86_TESTS", tests_builddir() + "/x86"); }
std::string x86jit() { return programs() + "/x86jit"; }

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

boost::test_tools::assertion_result x86_available(boost::unit_test::test_unit_id) {
    const std::string tool = tree() + "/.in_place/memcheck-x86-linux";
    boost::test_tools::assertion_result ok(executable(tool) && executable(x86jit()));
    if (!ok)
        ok.message() << "needs the x86 Valgrind (" << tool << ") and the x86 test programs ("
                     << x86jit()
                     << "): `make check-x86` builds them after build-aux/install-deps.sh";
    return ok;
}

/// Runs `tool` of the x86 Valgrind on `prog` in `cwd`.
Result run_x86(const std::string& tool, const std::vector<std::string>& args,
               const std::vector<std::string>& prog, const std::string& cwd) {
    std::vector<std::string> argv{tree() + "/coregrind/valgrind", "--tool=" + tool};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), prog.begin(), prog.end());
    RunOptions o;
    o.cwd = cwd;
    o.timeout_seconds = 300;
    o.env["VALGRIND_LIB"] = tree() + "/.in_place";
    const Result r = run(argv, o);
    if (r.timed_out) BOOST_ERROR("timed out: " << r);
    return r;
}

/// Occurrences of `what` in `text`.
std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

const std::uint64_t kN = 10, kCalls = 1000;
const std::uint64_t kLoopIr = kCalls * (3 * kN + 3);

std::vector<std::string> client(const std::string& mode) {
    return {x86jit(), mode, std::to_string(kN), std::to_string(kCalls)};
}

/// Runs `mode` under Callgrind (or Cachegrind) and parses the profile.
cg::Profile profile(const TempDir& dir, const std::string& tool, const std::string& mode,
                    std::vector<std::string> extra = {}) {
    const std::string out = dir.file(tool + ".out");
    std::vector<std::string> args{"--" + tool + "-out-file=" + out};
    if (tool == "cachegrind") args.push_back("--cache-sim=no");
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_x86(tool, args, client(mode), dir.path());
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
    return {{{file, 10}, kCalls},      {{file, 11}, kCalls},      {{file, 12}, kCalls * kN},
            {{file, 13}, kCalls * kN}, {{file, 14}, kCalls * kN}, {{file, 15}, kCalls}};
}

/// Callgrind names loop and frame `prefix`_loop / `prefix`_frame with the
/// exact calls and instruction counts.
void check_named(const cg::Profile& p, const std::string& prefix) {
    BOOST_TEST(calls_to(p, prefix + "_loop") == kCalls);
    BOOST_TEST(self_ir(p, prefix + "_loop") == kLoopIr);
    BOOST_TEST(calls_to(p, prefix + "_frame") == 1u);
    BOOST_TEST(self_ir(p, prefix + "_frame") == 6u);
}

/// Function names of the stack trace after "Invalid read of size 4".
std::vector<std::string> invalid_read_trace(const Result& r) {
    std::vector<std::string> names;
    for (const auto& f : stack_trace_after(r.err, "Invalid read of size 4", 6))
        names.push_back(f.function + (f.where.empty() ? "" : " (" + f.where + ")"));
    return names;
}

/// Memcheck on `mode`: one invalid read, in frame, reported with `top`
/// (the innermost frames, "function (where)") and then the C++ caller.
Result memcheck(const TempDir& dir, const std::string& mode, const std::vector<std::string>& top) {
    const Result r = run_x86("memcheck", {"--error-exitcode=9"}, client(mode), dir.path());
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

BOOST_AUTO_TEST_SUITE(x86, *boost::unit_test::precondition(x86_available))

// The x86 Valgrind is a 32-bit one: its tools are ELF32 i386 programs.
BOOST_AUTO_TEST_CASE(the_tools_are_32_bit_x86) {
    const std::string elf = read_file(tree() + "/.in_place/callgrind-x86-linux");
    BOOST_TEST_REQUIRE(elf.size() > 20u);
    BOOST_TEST(static_cast<unsigned char>(elf[4]) == 1u);   // ELFCLASS32
    BOOST_TEST(static_cast<unsigned char>(elf[18]) == 3u);  // e_machine EM_386
}

BOOST_AUTO_TEST_CASE(api_callgrind_names_lines_and_counts) {
    TempDir dir;
    const cg::Profile p = profile(dir, "callgrind", "api");
    check_named(p, "x86_api");
    BOOST_TEST(line_ir(p, "x86_api_loop") == loop_lines("x86_api.jit"));
}

BOOST_AUTO_TEST_CASE(api_cachegrind_counts) {
    TempDir dir;
    const cg::Profile p = profile(dir, "cachegrind", "api");
    BOOST_TEST(self_ir(p, "x86_api_loop") == kLoopIr);
    BOOST_TEST(line_ir(p, "x86_api_loop") == loop_lines("x86_api.jit"));
    BOOST_TEST(self_ir(p, "x86_api_frame") == 6u);
}

// The read inside frame's inlined range: the inlined function at its line,
// frame at the call site, and (through frame's CFI) the C++ caller.
BOOST_AUTO_TEST_CASE(api_memcheck_inlines_and_cfi) {
    TempDir dir;
    memcheck(dir, "api", {"x86_inlined_load (x86_api.jit:31)", "x86_api_frame (x86_api.jit:22)"});
}

// Without CFI or a shape the caller of frame is not found (%ebp is not
// frame's frame pointer at the read): the trace stops in frame or goes
// wrong, so the CFI or the shape of the other cases is what finds it.
BOOST_AUTO_TEST_CASE(api_memcheck_without_cfi_loses_the_caller) {
    TempDir dir;
    const Result r = run_x86("memcheck", {"--error-exitcode=9"}, client("api-nocfi"), dir.path());
    BOOST_TEST(r.status == 9, r);
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(trace.size() >= 2u, r);
    BOOST_TEST(trace[0] == "x86_inlined_load (x86_api.jit:31)");
    BOOST_TEST(trace[1] == "x86_api_frame (x86_api.jit:22)");
    bool caller = false;
    for (std::size_t i = 2; i < trace.size(); ++i) caller = caller || contains(trace[i], "run(");
    BOOST_TEST(!caller, r);
}

// The frame shapes on x86 unwind to the caller as the CFI does:
// VG_JIT_UNWIND_FRAME_POINTER (push %ebp, the read, mov %esp,%ebp) and
// VG_JIT_UNWIND_FIXED_FRAME (the return address at %esp + 4 after the
// push).
BOOST_AUTO_TEST_CASE(api_memcheck_frame_pointer_shape) {
    TempDir dir;
    memcheck(dir, "api-shape",
             {"x86_inlined_load (x86_api.jit:31)", "x86_api_frame (x86_api.jit:22)"});
}

BOOST_AUTO_TEST_CASE(api_memcheck_fixed_frame_shape) {
    TempDir dir;
    memcheck(dir, "api-fixed",
             {"x86_inlined_load (x86_api.jit:31)", "x86_api_frame (x86_api.jit:22)"});
}

BOOST_AUTO_TEST_CASE(perfmap_callgrind_and_memcheck) {
    TempDir dir;
    check_named(profile(dir, "callgrind", "perfmap", {"--jit-perf-map=yes"}), "x86_perfmap");
    const Result r = run_x86("memcheck", {"--jit-perf-map=yes"}, client("perfmap"), dir.path());
    std::smatch pid;
    if (std::regex_search(r.err, pid, std::regex("==(\\d+)== Memcheck")))
        std::remove(("/tmp/perf-" + pid[1].str() + ".map").c_str());
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(!trace.empty(), r);
    BOOST_TEST(contains(trace[0], "x86_perfmap_frame"), r);
}

BOOST_AUTO_TEST_CASE(late_perfmap_names_the_profile) {
    TempDir dir;
    check_named(profile(dir, "callgrind", "late", {"--jit-perf-map=yes"}), "x86_perfmap");
}

BOOST_AUTO_TEST_CASE(jitdump_callgrind_lines_and_counts) {
    TempDir dir;
    const cg::Profile p = profile(dir, "callgrind", "jitdump");
    check_named(p, "x86_jitdump");
    BOOST_TEST(line_ir(p, "x86_jitdump_loop") == loop_lines("x86_jitdump.jit"));
}

BOOST_AUTO_TEST_CASE(jitdump_late_names_the_profile) {
    TempDir dir;
    const cg::Profile p = profile(dir, "callgrind", "jitdump-late");
    check_named(p, "x86_jitdump");
    BOOST_TEST(line_ir(p, "x86_jitdump_loop") == loop_lines("x86_jitdump.jit"));
}

// CODE_UNWINDING_INFO gives frame's CFI: the trace reaches the C++ caller.
BOOST_AUTO_TEST_CASE(jitdump_memcheck_unwinding_info) {
    TempDir dir;
    memcheck(dir, "jitdump", {"x86_jitdump_frame"});
}

// The files' 64-bit addresses past 4 GiB (x86_high_loop, 4 GiB above
// loop) are refused with a warning under -v naming them; loop keeps its
// name and its lines, and nothing is named x86_high_loop.
BOOST_AUTO_TEST_CASE(addresses_past_4_gib_are_refused) {
    TempDir dir;
    for (const std::string mode : {"jitdump", "perfmap"}) {
        BOOST_TEST_CONTEXT(mode) {
            const std::string out = dir.file(mode + ".callgrind.out");
            const Result r =
                run_x86("callgrind", {"-v", "--jit-perf-map=yes", "--callgrind-out-file=" + out},
                        client(mode), dir.path());
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const cg::Profile p = cg::Profile::parse_file(out);
            if (p.header().count("pid"))
                std::remove(("/tmp/perf-" + p.header().at("pid") + ".map").c_str());
            BOOST_TEST(p.functions_named("x86_high_loop", true).empty());
            const std::string loop = mode == "jitdump" ? "x86_jitdump_loop" : "x86_perfmap_loop";
            BOOST_TEST(self_ir(p, loop) == kLoopIr);
            if (mode == "jitdump") BOOST_TEST(line_ir(p, loop) == loop_lines("x86_jitdump.jit"));
            const std::regex warning(std::string(mode == "jitdump" ? "CODE_LOAD" : "entry") +
                                     " at 0x1[0-9a-f]{8}, 11 bytes, refused: beyond the 4 GiB "
                                     "address space of a 32-bit platform");
            BOOST_TEST(std::regex_search(r.err, warning), r);
        }
    }
}

// --dump-jit-code writes 64-bit ELF files only: on x86 it says so once
// and writes none; the profile is the same.
BOOST_AUTO_TEST_CASE(dump_jit_code_is_refused_with_a_warning) {
    TempDir dir;
    const std::string out = dir.file("callgrind.out");
    const Result r = run_x86(
        "callgrind", {"--callgrind-out-file=" + out, "--dump-instr=yes", "--dump-jit-code=yes"},
        client("api"), dir.path());
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(occurrences(r.err, "--dump-jit-code=yes is not supported on this platform") == 1u,
               r);
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        BOOST_TEST(e.path().extension() != ".elf", e.path());
    check_named(cg::Profile::parse_file(out), "x86_api");
}

BOOST_AUTO_TEST_SUITE_END()
