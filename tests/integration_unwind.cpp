// integration_unwind.cpp - unwinding through jitted code that keeps no
// frame pointer, end to end under the staged Memcheck.  tests/unwindjit
// emits jit_outer -> jit_middle -> jit_inner, each of which saves rbp,
// uses it as a scratch register and keeps zeros in its frame, so that only
// call frame information leads from jit_inner back to its callers (the
// unwinder's scan of the stack for return addresses, --jit-unwind-scan, is
// off in these cases, but for one that shows what it finds).  The frames
// are described by .eh_frame bytes in a VgJitCode, by a frame shape
// (VG_JIT_UNWIND_FIXED_FRAME), or by jitdump CODE_UNWINDING_INFO records;
// without a description the stack trace must stop inside the jitted code.
// Node.js (skipped without node) writes CODE_UNWINDING_INFO records under
// --perf-prof --perf-prof-unwinding-info.

#define BOOST_TEST_MODULE integration_unwind
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace vgjit::test;

namespace {

std::string unwindjit() { return env_or("VGJIT_UNWINDJIT", tests_builddir() + "/unwindjit"); }

/// The function names of the stack trace printed after the first line
/// containing `what` (at most 12 frames; file and line dropped).
std::vector<std::string> frames_after(const std::string& err, const std::string& what) {
    std::vector<std::string> frames;
    for (const StackFrame& f : stack_trace_after(err, what)) frames.push_back(f.function);
    return frames;
}

const std::vector<std::string> kJitFrames = {"jit_inner", "jit_middle", "jit_outer", "enter_jit"};

/// Whether frames start with every jitted frame and the C caller, and go
/// on to main (through the caller's inlined helpers).
bool reaches_main(const std::vector<std::string>& frames) {
    if (frames.size() <= kJitFrames.size()) return false;
    if (!std::equal(kJitFrames.begin(), kJitFrames.end(), frames.begin())) return false;
    return std::find(frames.begin(), frames.end(), "main") != frames.end();
}

/// What Memcheck reports for unwindjit HOW WHAT: the frames of the leak's
/// allocation stack (from malloc) or of the invalid read.  Without `scan`
/// the unwinder's stack scan through code without CFI is off
/// (--jit-unwind-scan=no), so that only the CFI under test leads to main.
std::vector<std::string> reported_frames(const std::string& how, const std::string& what,
                                         Result* out = nullptr, bool scan = false) {
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();  // jit-<pid>.dump goes there
    std::vector<std::string> args = {"--tool=memcheck", "--leak-check=full", "-v"};
    if (!scan) args.push_back("--jit-unwind-scan=no");
    const Result r = run_valgrind(args, {unwindjit(), how, what}, opt);
    if (out) *out = r;
    BOOST_TEST_REQUIRE(r.status == 0, r);
    if (what == "leak") {
        auto frames = frames_after(r.err, "40 bytes in 1 blocks are definitely lost");
        BOOST_TEST_REQUIRE(!frames.empty(), r.err);
        BOOST_TEST(frames.front() == "malloc", r.err);
        frames.erase(frames.begin());
        return frames;
    }
    return frames_after(r.err, "Invalid read of size 4");
}

}  // namespace

BOOST_AUTO_TEST_CASE(leak_and_invalid_read_in_frameless_jit_code_unwind_by_eh_frame_to_main) {
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            BOOST_TEST(reaches_main(reported_frames("cfi", what, &r)), r.err);
            static const std::regex summary(R"(JIT: unwind info: 3 added, 0 refused)");
            BOOST_TEST(std::regex_search(r.err, summary), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(eh_frame_addr_names_where_pc_relative_pointers_count_from) {
    // The bytes are built for the address after the code (where jitdump
    // producers put them), not for where they are in memory.
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            BOOST_TEST(reaches_main(reported_frames("cfi-after-code", what, &r)), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(cfi_of_functions_registered_back_to_back_is_all_kept) {
    // Each function starts on the byte after the one before it ends, as
    // JITs fill a code heap; each range touches the one registered just
    // before it (inner ends where middle starts, outer starts where middle
    // ends).  Ranges that touch do not overlap: all three CFIs stay, and
    // the trace leads through every jitted frame to main.
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            const auto frames = reported_frames("cfi-adjacent", what, &r);
            BOOST_TEST(reaches_main(frames), r.err);
            static const std::regex summary(
                R"(JIT: unwind info: 3 added, 0 refused, 3 ranges with CFI live at exit)");
            BOOST_TEST(std::regex_search(r.err, summary), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(without_unwind_information_the_trace_stops_in_the_jit_code) {
    // The same code registered with names only: the unwinder finds neither
    // CFI nor a frame pointer in jit_inner, so the callers are lost.  This
    // is what the other cases would print if the CFI were not used.
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            const auto frames = reported_frames("none", what, &r);
            BOOST_TEST_REQUIRE(!frames.empty(), r.err);
            BOOST_TEST(frames.front() == "jit_inner", r.err);
            BOOST_TEST(frames.size() < kJitFrames.size(), r.err);
            BOOST_TEST(!reaches_main(frames), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(without_unwind_information_the_stack_scan_reaches_main) {
    // The same code and no unwind information, with the unwinder's step
    // through code without CFI (--jit-unwind-scan=yes, the default): each
    // frame's return address is the first word on its stack that follows
    // a call instruction, so every jitted frame and main are found.
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            BOOST_TEST(reaches_main(reported_frames("none", what, &r, true)), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(cfi_goes_with_its_code_when_unregistered_or_replaced) {
    // The same code registered again without unwind information, after an
    // unregistration or over the old registration: the old CFI must not
    // describe it any more.
    for (const char* how : {"unregistered", "replaced"}) {
        BOOST_TEST_CONTEXT(how) {
            Result r;
            const auto frames = reported_frames(how, "memerr", &r);
            BOOST_TEST_REQUIRE(!frames.empty(), r.err);
            BOOST_TEST(frames.front() == "jit_inner", r.err);
            BOOST_TEST(!reaches_main(frames), r.err);
            static const std::regex summary(R"(JIT: unwind info: 3 added, 0 refused, 0 ranges)");
            BOOST_TEST(std::regex_search(r.err, summary), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_fixed_frame_shape_unwinds_to_main) {
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            BOOST_TEST(reaches_main(reported_frames("shape", what, &r)), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(jitdump_unwinding_info_applies_to_the_next_code_load) {
    // No client request: the CODE_UNWINDING_INFO before each CODE_LOAD
    // carries the function's .eh_frame, placed after the code as perf's
    // genelf places it (its FDE addresses are PC-relative to there).
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            BOOST_TEST(reaches_main(reported_frames("jitdump", what, &r)), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(code_moved_by_a_jitdump_code_move_keeps_its_cfi) {
    // Each function is loaded with its unwinding information at another
    // address, then moved (CODE_MOVE) to where it runs: the CFI moves with
    // it.  Without that, the trace would stop at jit_inner as in
    // without_unwind_information_the_trace_stops_in_the_jit_code.
    for (const char* what : {"leak", "memerr"}) {
        BOOST_TEST_CONTEXT(what) {
            Result r;
            const auto frames = reported_frames("jitdump-moved", what, &r);
            BOOST_TEST(reaches_main(frames), r.err);
            static const std::regex summary(R"(JIT: unwind info: 3 added, 0 refused)");
            BOOST_TEST(std::regex_search(r.err, summary), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(
    a_fault_in_the_first_instruction_of_a_frameless_leaf_names_it_and_its_callers) {
    // unwindjit's leaf mode: jit_inner is `mov rax, [rdi+40]; ret`, called
    // by jit_middle (`sub rsp, 8; call; add rsp, 8; ret`), both frameless
    // and described by CFI.  The superblock that starts at jit_outer
    // follows both calls, so the faulting load is the first instruction
    // of the third piece of code in it.  With default options the error
    // must be reported at jit_inner, not at jit_middle's call (which,
    // unwound with jit_middle's CFI after the push of the return address,
    // gives a stack address as the next frame).
    for (const char* how : {"cfi", "jitdump"}) {
        BOOST_TEST_CONTEXT(how) {
            TempDir dir;
            RunOptions opt;
            opt.cwd = dir.path();
            const Result r = run_valgrind({"--tool=memcheck", "--jit-unwind-scan=no"},
                                          {unwindjit(), how, "leaf"}, opt);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(reaches_main(frames_after(r.err, "Invalid read of size 8")), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_race_in_the_first_instruction_of_a_frameless_leaf_names_it_and_its_callers) {
    // The same leaf reads a word another thread wrote without
    // synchronisation: Helgrind and DRD report the read with its stack,
    // taken at the leaf's first instruction.
    // Helgrind prints the locks held between the report and its stack.
    struct Tool {
        const char* option;
        const char* report;
        const char* stack_after;
    };
    for (const Tool& t :
         {Tool{"--tool=helgrind", "Possible data race during read of size 8", "Locks held"},
          Tool{"--tool=drd", "Conflicting load by thread 1", ""}}) {
        BOOST_TEST_CONTEXT(t.option) {
            const Result r =
                run_valgrind({t.option, "--jit-unwind-scan=no"}, {unwindjit(), "cfi", "leafrace"});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const auto at = r.err.find(t.report);
            BOOST_TEST_REQUIRE(at != std::string::npos, r.err);
            const std::string from = r.err.substr(at);
            BOOST_TEST(reaches_main(frames_after(from, *t.stack_after ? t.stack_after : t.report)),
                       r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(hostile_unwind_information_is_refused_with_a_status_and_a_warning) {
    const Result r = run_valgrind({"--tool=memcheck", "-v"}, {unwindjit(), "hostile"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(!contains(r.err, "Assertion"), r.err);
    BOOST_TEST(!contains(r.err, "impossible"), r.err);
    // Every malformed description: not registered, VG_JIT_ERR_BAD_UNWIND.
    static const std::regex case_line(R"(^case (\S+) (\d+) (\d+)$)");
    std::istringstream in(r.err);
    int cases = 0;
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, case_line)) continue;
        ++cases;
        BOOST_TEST_CONTEXT(m[1].str()) {
            BOOST_TEST(m[2].str() == "0");
            BOOST_TEST(m[3].str() == "10");
        }
    }
    BOOST_TEST(cases == 15, r.err);
    // An undefined CFA expression fails its FDE in the reader itself (part
    // 1 of the series), not through the guard around it.
    {
        static const std::regex refusal(
            R"(bad unwind information: ([^\n]*)\ncase cfa_expression_empty )");
        std::smatch m;
        BOOST_TEST_REQUIRE(std::regex_search(r.err, m, refusal), r.err);
        BOOST_TEST(m[1].str() == "no FDE describes the code");
    }
    // Each refusal says why under -v.
    for (const char* why :
         {"a CFI record lies outside its section", "64-bit DWARF CFI records are not read",
          "a CIE uses a pointer encoding that is not read", "no FDE describes the code",
          "eh_frame (0x1000, 64 bytes) is not readable client memory\n",
          "eh_frame_size is 1048577 bytes, not 1 to 1048576 (VG_JIT_MAX_EH_FRAME)\n",
          "eh_frame_size is 0 bytes, not 1 to 1048576 (VG_JIT_MAX_EH_FRAME)\n",
          "unknown unwind_kind 99\n", "the frame's offsets are not multiples of 8"}) {
        BOOST_TEST(contains(r.err, std::string("bad unwind information: ") + why), why);
    }
    // A thousand random corruptions went through without harm, and the
    // correct CFI registered after them is used.
    static const std::regex fuzz(R"(fuzz (\d+) accepted (\d+) refused)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, fuzz), r.err);
    BOOST_TEST(std::stoi(m[1].str()) + std::stoi(m[2].str()) == 1000);
    BOOST_TEST(std::stoi(m[1].str()) > 0);  // corruptions of instructions only are read
    BOOST_TEST(std::stoi(m[2].str()) > 0);
    BOOST_TEST(reaches_main(frames_after(r.err, "Invalid read of size 4")), r.err);
}

BOOST_AUTO_TEST_CASE(node_perf_prof_unwinding_info_is_read_for_optimised_code,
                     *boost::unit_test::precondition(node_available)) {
    // tests/fixtures/node/alloc.js runs until V8 optimises `hot` and
    // `driver`; with --perf-prof-unwinding-info each optimised function's
    // CODE_UNWINDING_INFO carries an .eh_frame (the others only an
    // .eh_frame_hdr).  Every one must be read at the place perf's genelf
    // gives it (a wrong place leaves no FDE on the code: refused).  V8 keeps
    // rbp as frame pointer in JavaScript frames on x86-64, so stacks through
    // them reached the process's bottom before this CFI was read too; what
    // is checked of the stack is that it still does: V8's conservative stack
    // scan during the collection `driver` triggers reads uninitialised
    // stack words (a Memcheck error), its stack through JS:*driver must go
    // on to node::Start.  Whether that frame is named when Memcheck prints
    // the error depends on V8's 4 KiB buffer reaching the jitdump first,
    // which varies from run to run: the stack is checked when it is.
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    const Result r = run_valgrind({"--tool=memcheck", "-v", "--num-callers=60"},
                                  {node_binary(), "--perf-prof", "--perf-prof-unwinding-info",
                                   absolute(srcdir() + "/tests/fixtures/node/alloc.js")},
                                  opt);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "kept 60"), r.out);
    static const std::regex summary(R"(JIT: unwind info: ([1-9]\d*) added, 0 refused)");
    BOOST_TEST(std::regex_search(r.err, summary), r.err);
    std::istringstream in(r.err);
    bool in_js = false, saw_js = false, reached = false;
    for (std::string line; std::getline(in, line);) {
        // A frame of a stack ("==PID==    at 0x...: " or "by 0x...: "),
        // not a -v line, which may name the function "at 0x..." too.
        static const std::regex frame_line(R"(^==\d+== +(at|by) 0x[0-9A-Fa-f]+: )");
        const bool frame = std::regex_search(line, frame_line);
        if (frame && line.find("JS:*driver") != std::string::npos) in_js = saw_js = true;
        if (in_js && line.find("node::Start(") != std::string::npos) reached = true;
        if (in_js && line.find("    by ") == std::string::npos) {
            if (reached) break;
            in_js = false;
        }
    }
    if (saw_js)
        BOOST_TEST(reached, r.err);
    else
        BOOST_TEST_MESSAGE(
            "no error stack named JS:*driver in this run (its record "
            "was still in V8's buffer): the stack was not checked");
}

BOOST_AUTO_TEST_CASE(cpython_perf_jit_trampolines_bring_their_cfi,
                     *boost::unit_test::precondition(python313_available)) {
    // CPython 3.13's -X perf_jit writes /tmp/jit-<pid>.dump with a
    // CODE_UNWINDING_INFO (112-byte records) before each trampoline's
    // CODE_LOAD; all of them must be read, also those that straddle the
    // follower's reads of the file.
    TempDir dir;
    RunOptions opt;
    opt.cwd = dir.path();
    const Result r = run_valgrind(
        {"--tool=memcheck", "-v"},
        {python313(), "-X", "perf_jit", "-c",
         "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(15))"},
        opt);
    std::smatch file;
    static const std::regex follow(R"(JIT: following jitdump file (\S+))");
    if (std::regex_search(r.err, file, follow)) std::filesystem::remove(file[1].str());
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "610"), r.out);
    std::smatch m;
    static const std::regex summary(R"(JIT: unwind info: (\d+) added, (\d+) refused)");
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, summary), r.err);
    BOOST_TEST(std::stoi(m[1].str()) > 100, r.err);
    BOOST_TEST(m[2].str() == "0", r.err);
    BOOST_TEST(!contains(r.err, "CODE_UNWINDING_INFO"), r.err);  // no warning about one
}
