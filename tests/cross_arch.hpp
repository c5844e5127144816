// cross_arch.hpp - what the harnesses of the cross-built Valgrinds share
// (tests/integration_x86.cpp, `make check-x86`; tests/integration_arm64.cpp,
// `make check-arm64`): the helpers and the test cases that run the test JIT
// of tests/crossjit.cpp (x86/x86jit, arm64/arm64jit), which names its code
// through the client API (lines, inline tables, .eh_frame, both frame
// shapes), perf maps and jitdumps, early and late, under Callgrind,
// Cachegrind and Memcheck.  The cases parse the profiles and logs those
// write and assert the exact counts the code implies (crossjit.cpp's
// header):
//   - loop(n) executes 3n + 3 instructions: with N = 10 and 1,000 calls,
//     33,000 Ir and 1,000 calls of loop;
//   - per line of loop (lines 10..15, one per instruction): the three lines
//     of its body (from Arch::loop_body_line) 10,000 Ir each, the others
//     1,000;
//   - one call of frame, Arch::frame_ir instructions (6 on x86, 5 on arm64);
//   - Memcheck: one invalid read of Arch::word_size bytes, in the inlined
//     load at line 31 inside frame at line 22, and the C++ caller (run())
//     found through frame's CFI or frame shape, not without them.
//
// Included once by each harness, which first defines VGJIT_CROSS_ARCH (the
// architecture's name, x86 or arm64: the name of the test suite and the
// prefix of the names the test JIT gives, "x86_api_loop", "x86_api.jit")
// and then defines arch() and run_tool() below, and adds the
// cases only its architecture has to the same suite.

#ifndef VGJIT_TESTS_CROSS_ARCH_HPP
#define VGJIT_TESTS_CROSS_ARCH_HPP

#ifndef VGJIT_CROSS_ARCH
#error "define VGJIT_CROSS_ARCH (x86 or arm64) before including cross_arch.hpp"
#endif

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace vgjit {
namespace cross {

namespace cg = vgjit::callgrind;
using test::Result;
using test::TempDir;

/// What the shared cases need to know of the architecture.
struct Arch {
    std::string jit;                   ///< path of the test JIT (crossjit.cpp built for it)
    unsigned word_size = 0;            ///< bytes of frame's read ("Invalid read of size N")
    std::uint64_t frame_ir = 0;        ///< instructions of one call of frame
    std::uint64_t loop_body_line = 0;  ///< the first of loop's three lines run n times per call
    /// The executables the cases need, as (what, path): the Valgrind, the
    /// test JIT, an emulator.
    std::vector<std::pair<std::string, std::string>> needs;
    /// Debian packages of install-deps.sh's step for the architecture
    /// that only some cases need (their own preconditions check them).
    std::vector<std::string> case_packages;
};

/// The architecture's description (defined by the harness).
const Arch& arch();

/// Runs `tool` of the architecture's Valgrind with `args` on `prog` (a
/// program for the architecture and its arguments) in directory `cwd`;
/// a run that times out is also a test error (defined by the harness).
Result run_tool(const std::string& tool, const std::vector<std::string>& args,
                const std::vector<std::string>& prog, const std::string& cwd);

/// Runs `launcher` (the command that starts a tool of the architecture's
/// Valgrind, and its arguments) followed by `args` and `prog` in `cwd`,
/// with `env` added to the environment, killed after `timeout_seconds`
/// (a timeout is also a test error).
inline Result run_launched(std::vector<std::string> launcher, const std::vector<std::string>& args,
                           const std::vector<std::string>& prog, const std::string& cwd,
                           const std::map<std::string, std::string>& env, int timeout_seconds) {
    launcher.insert(launcher.end(), args.begin(), args.end());
    launcher.insert(launcher.end(), prog.begin(), prog.end());
    test::RunOptions o;
    o.cwd = cwd;
    o.timeout_seconds = timeout_seconds;
    o.env = env;
    const Result r = test::run(launcher, o);
    if (r.timed_out) BOOST_ERROR("timed out: " << r);
    return r;
}

/// The architecture's name ("x86", "arm64").
inline std::string name() { return BOOST_STRINGIZE(VGJIT_CROSS_ARCH); }
/// A name the test JIT gives: `what` after the architecture's name and an
/// underscore ("api_loop" -> "x86_api_loop").
inline std::string named(const std::string& what) { return name() + "_" + what; }

/// Whether `path` is an executable file.
inline bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

/// The Debian packages of build-aux/install-deps.sh's step for the
/// architecture that are not installed (its `--missing` list).
inline std::vector<std::string> missing_packages() {
    const Result r =
        test::run({"/bin/sh", test::srcdir() + "/build-aux/install-deps.sh", "--missing", name()});
    std::vector<std::string> missing;
    std::istringstream in(r.status == 0 ? r.out : "");
    for (std::string p; in >> p;) missing.push_back(p);
    return missing;
}

/// Boost.Test precondition of the suite: every one of Arch::needs is
/// executable and the Debian packages of the architecture are installed
/// (but Arch::case_packages), else a message naming what is missing and
/// saying how to build or install it.
inline boost::test_tools::assertion_result available(boost::unit_test::test_unit_id) {
    bool all = true;
    std::string list;
    const auto& needs = arch().needs;
    for (std::size_t i = 0; i < needs.size(); ++i) {
        all = all && executable(needs[i].second);
        if (i > 0) list += i + 1 < needs.size() ? ", " : " and ";
        list += needs[i].first + " (" + needs[i].second + ")";
    }
    std::string packages;
    for (const std::string& p : missing_packages()) {
        const auto& optional = arch().case_packages;
        all = all && std::find(optional.begin(), optional.end(), p) != optional.end();
        packages += (packages.empty() ? "" : " ") + p;
    }
    boost::test_tools::assertion_result ok(all);
    if (!ok) {
        if (!packages.empty())
            ok.message() << "the Debian packages " << packages
                         << " are not installed (build-aux/install-deps.sh installs them or says "
                            "why it cannot); ";
        ok.message() << "needs " << list << ": `make check-" << name()
                     << "` builds them after build-aux/install-deps.sh";
    }
    return ok;
}

/// Each run of the test JIT: loop(kN), kCalls times.
inline constexpr std::uint64_t kN = 10, kCalls = 1000;
/// loop's instructions in a run: 3n + 3 per call.
inline constexpr std::uint64_t kLoopIr = kCalls * (3 * kN + 3);

/// The test JIT in `mode` with kN and kCalls.
inline std::vector<std::string> client(const std::string& mode) {
    return {arch().jit, mode, std::to_string(kN), std::to_string(kCalls)};
}

/// Removes the perf map of the client of profile `p`, if it wrote one.
inline void remove_perf_map(const cg::Profile& p) {
    if (p.header().count("pid"))
        std::remove(("/tmp/perf-" + p.header().at("pid") + ".map").c_str());
}

/// Runs `prog` (any program) under Callgrind or Cachegrind (without its
/// cache simulation) with `extra` options in `dir`, requires a zero exit
/// status and parses the profile (dir/LABEL.TOOL.out); `r`, if given,
/// receives the run.
inline cg::Profile profile_of(const TempDir& dir, const std::string& tool,
                              const std::vector<std::string>& prog, const std::string& label,
                              const std::vector<std::string>& extra = {}, Result* r = nullptr) {
    const std::string out = dir.file(label + "." + tool + ".out");
    std::vector<std::string> args{"--" + tool + "-out-file=" + out};
    if (tool == "cachegrind") args.push_back("--cache-sim=no");
    args.insert(args.end(), extra.begin(), extra.end());
    const Result run = run_tool(tool, args, prog, dir.path());
    BOOST_TEST_REQUIRE(run.status == 0, run);
    if (r) *r = run;
    cg::Profile p = cg::Profile::parse_file(out);
    // The client's perf map, if it wrote one, goes with the run.
    remove_perf_map(p);
    return p;
}

/// Runs the test JIT in `mode` under Callgrind (or Cachegrind) and parses
/// the profile; the run printed loop's result.
inline cg::Profile profile(const TempDir& dir, const std::string& tool, const std::string& mode,
                           const std::vector<std::string>& extra = {}) {
    Result r;
    cg::Profile p = profile_of(dir, tool, client(mode), mode, extra, &r);
    BOOST_TEST(test::contains(r.out, "loop(10) = 10"), r);
    return p;
}

using test::self_ir;

/// Self Ir per line: (file's last path component, line) -> Ir.
using LineIr = std::map<std::pair<std::string, std::uint64_t>, std::uint64_t>;

/// Self Ir per line of `name`.
inline LineIr line_ir(const cg::Profile& p, const std::string& name) {
    LineIr out;
    for (const auto* f : p.functions_named(name, true))
        for (const auto& [pos, costs] : f->lines)
            out[{std::filesystem::path(pos.first).filename().string(), pos.second}] += costs.at(0);
    return out;
}

/// The per-line Ir of loop in `file` (lines 10..15, one per instruction):
/// kCalls * kN on the three lines of its body, kCalls on the others.
inline LineIr loop_lines(const std::string& file) {
    LineIr out;
    for (std::uint64_t line = 10; line <= 15; ++line) {
        const bool body = line >= arch().loop_body_line && line < arch().loop_body_line + 3;
        out[{file, line}] = body ? kCalls * kN : kCalls;
    }
    return out;
}

/// Callgrind names loop and frame `prefix`_loop / `prefix`_frame with the
/// exact calls and instruction counts.
inline void check_named(const cg::Profile& p, const std::string& prefix) {
    BOOST_TEST(cg::calls_to_any_depth(p, prefix + "_loop") == kCalls);
    BOOST_TEST(self_ir(p, prefix + "_loop") == kLoopIr);
    BOOST_TEST(cg::calls_to_any_depth(p, prefix + "_frame") == 1u);
    BOOST_TEST(self_ir(p, prefix + "_frame") == arch().frame_ir);
}

/// Function names ("function (where)") of the stack trace after "Invalid
/// read of size N" (N: the word size).
inline std::vector<std::string> invalid_read_trace(const Result& r) {
    std::vector<std::string> names;
    const std::string what = "Invalid read of size " + std::to_string(arch().word_size);
    for (const auto& f : test::stack_trace_after(r.err, what, 6))
        names.push_back(f.function + (f.where.empty() ? "" : " (" + f.where + ")"));
    return names;
}

/// The innermost frames of the read in api modes: the inlined load at its
/// line, then frame at the call site.
inline std::vector<std::string> api_read_frames() {
    const std::string file = named("api.jit");
    return {named("inlined_load") + " (" + file + ":31)",
            named("api_frame") + " (" + file + ":22)"};
}

/// Callgrind on `mode`: loop and frame named ARCH_`channel`_loop and
/// ARCH_`channel`_frame with the exact calls and instruction counts, and
/// loop's lines in ARCH_`channel`.jit.
inline void check_callgrind_lines(const std::string& mode, const std::string& channel) {
    TempDir dir;
    const cg::Profile p = profile(dir, "callgrind", mode);
    check_named(p, named(channel));
    BOOST_TEST(line_ir(p, named(channel + "_loop")) == loop_lines(named(channel + ".jit")));
}

/// Memcheck on `mode`: one invalid read, in frame, reported with `top`
/// (the innermost frames, "function (where)") and then the C++ caller.
inline void memcheck(const std::string& mode, const std::vector<std::string>& top) {
    TempDir dir;
    const Result r = run_tool("memcheck", {"--error-exitcode=9"}, client(mode), dir.path());
    BOOST_TEST(r.status == 9, r);
    BOOST_TEST(test::contains(r.err, "ERROR SUMMARY: 1 errors from 1 contexts"), r);
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(trace.size() >= top.size() + 1, r);
    // Each of `top` is the frame's "function (where)", or its function
    // alone when the where part is a path of the run ("in .../jit-N.dump").
    for (std::size_t i = 0; i < top.size(); ++i)
        BOOST_TEST((trace[i] == top[i] || trace[i].rfind(top[i] + " (in /", 0) == 0), trace[i]);
    BOOST_TEST(test::contains(trace[top.size()], "run("), r);
}

}  // namespace cross
}  // namespace vgjit

// The cases every architecture runs.
BOOST_AUTO_TEST_SUITE(VGJIT_CROSS_ARCH, *boost::unit_test::precondition(vgjit::cross::available))

using namespace vgjit::cross;

BOOST_AUTO_TEST_CASE(api_callgrind_names_lines_and_counts) { check_callgrind_lines("api", "api"); }

BOOST_AUTO_TEST_CASE(api_cachegrind_counts) {
    TempDir dir;
    const cg::Profile p = profile(dir, "cachegrind", "api");
    BOOST_TEST(self_ir(p, named("api_loop")) == kLoopIr);
    BOOST_TEST(line_ir(p, named("api_loop")) == loop_lines(named("api.jit")));
    BOOST_TEST(self_ir(p, named("api_frame")) == arch().frame_ir);
}

// The read inside frame's inlined range: the inlined function at its line,
// frame at the call site, and (through frame's CFI) the C++ caller.
BOOST_AUTO_TEST_CASE(api_memcheck_inlines_and_cfi) { memcheck("api", api_read_frames()); }

// Without CFI or a frame shape the caller of frame is not found (on x86
// %ebp is not frame's frame pointer at the read): the trace stops in frame
// or goes wrong, so the CFI or the shape of the other cases is what finds
// it.
BOOST_AUTO_TEST_CASE(api_memcheck_without_cfi_loses_the_caller) {
    TempDir dir;
    const Result r = run_tool("memcheck", {"--error-exitcode=9"}, client("api-nocfi"), dir.path());
    BOOST_TEST(r.status == 9, r);
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(trace.size() >= 2u, r);
    BOOST_TEST(trace[0] == api_read_frames()[0]);
    BOOST_TEST(trace[1] == api_read_frames()[1]);
    bool caller = false;
    for (std::size_t i = 2; i < trace.size(); ++i)
        caller = caller || vgjit::test::contains(trace[i], "run(");
    BOOST_TEST(!caller, r);
}

// The frame shapes unwind to the caller as the CFI does:
// VG_JIT_UNWIND_FRAME_POINTER (x86: push %ebp, the read, mov %esp,%ebp;
// arm64: stp x29, x30; mov x29, sp) and VG_JIT_UNWIND_FIXED_FRAME (the
// return address at %esp + 4 after the push; at sp + 8 after the stp).
BOOST_AUTO_TEST_CASE(api_memcheck_frame_pointer_shape) { memcheck("api-shape", api_read_frames()); }

BOOST_AUTO_TEST_CASE(api_memcheck_fixed_frame_shape) { memcheck("api-fixed", api_read_frames()); }

BOOST_AUTO_TEST_CASE(perfmap_callgrind_and_memcheck) {
    TempDir dir;
    check_named(profile(dir, "callgrind", "perfmap", {"--jit-perf-map=yes"}), named("perfmap"));
    const Result r = run_tool("memcheck", {"--jit-perf-map=yes"}, client("perfmap"), dir.path());
    std::smatch pid;
    if (std::regex_search(r.err, pid, std::regex("==(\\d+)== Memcheck")))
        std::remove(("/tmp/perf-" + pid[1].str() + ".map").c_str());
    BOOST_TEST(vgjit::test::contains(r.err, "at 0x"), r);
    const auto trace = invalid_read_trace(r);
    BOOST_TEST_REQUIRE(!trace.empty(), r);
    BOOST_TEST(vgjit::test::contains(trace[0], named("perfmap_frame")), r);
}

BOOST_AUTO_TEST_CASE(late_perfmap_names_the_profile) {
    TempDir dir;
    check_named(profile(dir, "callgrind", "late", {"--jit-perf-map=yes"}), named("perfmap"));
}

BOOST_AUTO_TEST_CASE(jitdump_callgrind_lines_and_counts) {
    check_callgrind_lines("jitdump", "jitdump");
}

BOOST_AUTO_TEST_CASE(jitdump_late_names_the_profile) {
    check_callgrind_lines("jitdump-late", "jitdump");
}

// CODE_UNWINDING_INFO gives frame's CFI: the trace reaches the C++ caller.
BOOST_AUTO_TEST_CASE(jitdump_memcheck_unwinding_info) {
    memcheck("jitdump", {named("jitdump_frame")});
}

BOOST_AUTO_TEST_SUITE_END()

#endif
