// integration_x86.cpp - the patched Valgrind built for x86 (32-bit;
// build/cross-x86, `make check-x86`) on tests/x86/x86jit (tests/crossjit.cpp
// built with g++ -m32: IA-32 code), under Callgrind, Cachegrind and
// Memcheck.  The cases shared with arm64, and the exact counts they assert,
// are in cross_arch.hpp (on x86 a call of frame executes 6 instructions and
// its read is 4 bytes); here are those of x86 alone: the tools are 32-bit
// programs; the perf maps and jitdumps also name loop 4 GiB above it, and
// those 64-bit addresses are refused, not truncated onto loop; what x86
// does not have is refused with a warning: --dump-jit-code (ELF files are
// written on 64-bit platforms only).
//
// The x86 Valgrind runs natively through its own launcher
// (<tree>/coregrind/valgrind) with VALGRIND_LIB=<tree>/.in_place.
//
// Environment: VGJIT_X86_TREE (default: the build tree's build/cross-x86),
// VGJIT_X86_TESTS (the x86 test programs, default: tests/x86 of the build
// tree).

#define BOOST_TEST_MODULE integration_x86
#define VGJIT_CROSS_ARCH x86
#include "cross_arch.hpp"

namespace vgjit {
namespace cross {
namespace {

std::string tree() { return test::env_or("VGJIT_X86_TREE", test::builddir() + "/build/cross-x86"); }
std::string programs() { return test::env_or("VGJIT_X86_TESTS", test::tests_builddir() + "/x86"); }

}  // namespace

const Arch& arch() {
    static const Arch a = [] {
        Arch x;
        x.jit = programs() + "/x86jit";
        x.word_size = 4;        // mov (%eax),%eax
        x.frame_ir = 6;         // push, mov, mov, mov, pop, ret
        x.loop_body_line = 12;  // inc, dec, jne: lines 12..14
        x.needs = {{"the x86 Valgrind", tree() + "/.in_place/memcheck-x86-linux"},
                   {"the x86 test programs", x.jit}};
        return x;
    }();
    return a;
}

Result run_tool(const std::string& tool, const std::vector<std::string>& args,
                const std::vector<std::string>& prog, const std::string& cwd) {
    return run_launched({tree() + "/coregrind/valgrind", "--tool=" + tool}, args, prog, cwd,
                        {{"VALGRIND_LIB", tree() + "/.in_place"}}, 300);
}

}  // namespace cross
}  // namespace vgjit

// The cases of x86 alone (the suite's precondition is set in
// cross_arch.hpp).
BOOST_AUTO_TEST_SUITE(x86)

using namespace vgjit::test;

// The x86 Valgrind is a 32-bit one: its tools are ELF32 i386 programs.
BOOST_AUTO_TEST_CASE(the_tools_are_32_bit_x86) {
    const std::string elf = read_file(tree() + "/.in_place/callgrind-x86-linux");
    BOOST_TEST_REQUIRE(elf.size() > 20u);
    BOOST_TEST(static_cast<unsigned char>(elf[4]) == 1u);   // ELFCLASS32
    BOOST_TEST(static_cast<unsigned char>(elf[18]) == 3u);  // e_machine EM_386
}

// The files' 64-bit addresses past 4 GiB (x86_high_loop, 4 GiB above
// loop) are refused with a warning under -v naming them; loop keeps its
// name and its lines, and nothing is named x86_high_loop.
BOOST_AUTO_TEST_CASE(addresses_past_4_gib_are_refused) {
    TempDir dir;
    for (const std::string mode : {"jitdump", "perfmap"}) {
        BOOST_TEST_CONTEXT(mode) {
            Result r;
            const cg::Profile p =
                profile_of(dir, "callgrind", client(mode), mode, {"-v", "--jit-perf-map=yes"}, &r);
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
    Result r;
    const cg::Profile p = profile_of(dir, "callgrind", client("api"), "api",
                                     {"--dump-instr=yes", "--dump-jit-code=yes"}, &r);
    BOOST_TEST(count_of(r.err, "--dump-jit-code=yes is not supported on this platform") == 1u, r);
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        BOOST_TEST(e.path().extension() != ".elf", e.path());
    check_named(p, "x86_api");
}

BOOST_AUTO_TEST_SUITE_END()
