// integration_erlang.cpp - Erlang/OTP's JIT (BEAM) registers each module
// with the GDB JIT interface in a format of its own, not ELF.  The core
// reads it: every module's functions are named "module:function/arity"
// with no runtime flag, in every tool, and nothing is printed under -q.
// With OTP's perf map too (+JPperf map), each range keeps one name.
//
// Uses Debian's erlang-base (build-aux/install-deps.sh): `erl` is a script
// that execs erlexec, which execs beam.smp, so Valgrind follows children.
// Skipped, as a failed precondition, without erl and erlc.  BEAM writes
// its code through a second mapping of the same memory, which Valgrind
// does not see: --smc-check=all makes it check every block's bytes.

#define BOOST_TEST_MODULE integration_erlang
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using namespace vgjit::test;

namespace {

std::string erl_binary() { return env_or("VGJIT_ERL", "/usr/bin/erl"); }
std::string erlc_binary() { return env_or("VGJIT_ERLC", "/usr/bin/erlc"); }

boost::test_tools::assertion_result have_erlang(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(access(erl_binary().c_str(), X_OK) == 0 &&
                                           access(erlc_binary().c_str(), X_OK) == 0);
    if (!ok)
        ok.message() << erl_binary() << " or " << erlc_binary()
                     << " is not installed (Debian: erlang-base; or set VGJIT_ERL, VGJIT_ERLC)";
    return ok;
}

/// vgfib.beam compiled into dir.
void compile_vgfib(const TempDir& dir) {
    RunOptions opt;
    opt.cwd = dir.path();
    const Result r =
        run({erlc_binary(), absolute(srcdir() + "/tests/fixtures/erlang/vgfib.erl")}, opt);
    BOOST_TEST_REQUIRE(r.status == 0, r);
}

/// erl's arguments for vgfib: one scheduler, no shell.
std::vector<std::string> vgfib_program(const TempDir& dir, bool perf_map = false) {
    std::vector<std::string> p{erl_binary(), "+S", "1"};
    if (perf_map) {
        p.push_back("+JPperf");
        p.push_back("map");
    }
    for (const char* a : {"-noshell", "-pa"}) p.push_back(a);
    p.push_back(dir.path());
    for (const char* a : {"-run", "vgfib", "main"}) p.push_back(a);
    return p;
}

/// The profile of beam.smp among the files Callgrind wrote for erl's
/// process chain (out.<pid>): the one whose command is beam.smp.
cg::Profile beam_profile(const TempDir& dir) {
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
        const std::string f = e.path().filename().string();
        if (f.rfind("cg.out.", 0) != 0) continue;
        // beam.smp's helper erl_child_setup may still be writing its own
        // profile when beam.smp's Valgrind has returned: a file that does
        // not parse yet is not beam.smp's.
        cg::Profile p;
        try {
            p = cg::Profile::parse_file(e.path().string());
        } catch (const cg::ParseError&) {
            continue;
        }
        const auto cmd = p.header().find("cmd");
        if (cmd != p.header().end() && cmd->second.find("beam.smp") != std::string::npos) return p;
    }
    BOOST_FAIL("no Callgrind profile of beam.smp in " << dir.path());
    throw std::logic_error("unreachable");
}

struct ErlRun {
    Result vg;
    std::map<std::string, std::uint64_t> ir;     ///< by name, vgfib's functions
    std::map<std::string, std::uint64_t> calls;  ///< calls into them
    std::uint64_t fib_on_lines = 0;              ///< fib/1's Ir on lines 8..9
    std::uint64_t fib_on_line8 = 0;              ///< of which on line 8
    std::size_t dollar_names = 0;                ///< "$vgfib:..." functions
};

ErlRun callgrind_vgfib(bool perf_map) {
    TempDir dir;
    compile_vgfib(dir);
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 600;
    ErlRun r;
    std::vector<std::string> args{"--tool=callgrind", "--trace-children=yes", "--smc-check=all",
                                  "--callgrind-out-file=" + dir.path() + "/cg.out.%p", "-v"};
    if (perf_map) args.push_back("--jit-perf-map=yes");
    r.vg = run_valgrind(args, vgfib_program(dir, perf_map), opt);
    // erl execs erlexec, which execs beam.smp: the pid run() started writes
    // the map.
    if (perf_map) remove_tmp_files_of(r.vg.pid);
    BOOST_TEST_REQUIRE(r.vg.status == 0, r.vg);
    BOOST_TEST(contains(r.vg.out, "vgfib 6765"), r.vg.out);
    const cg::Profile p = beam_profile(dir);
    BOOST_TEST(p.header().at("pid") == std::to_string(r.vg.pid));
    for (const auto& [key, f] : p.functions()) {
        const std::string name = cg::strip_recursion_suffix(key.name);
        if (name.rfind("$vgfib:", 0) == 0) ++r.dollar_names;
        if (name.rfind("vgfib:", 0) != 0) continue;
        r.ir[name] += f.self.at(0);
        if (name == "vgfib:fib/1")
            for (const auto& [pos, c] : f.lines)
                // (Callgrind writes some of the recursive copies' lines
                // with the file "???".)
                if ((std::filesystem::path(pos.first).filename() == "vgfib.erl" ||
                     pos.first == "???") &&
                    pos.second >= 8 && pos.second <= 9) {
                    r.fib_on_lines += c.at(0);
                    if (pos.second == 8) r.fib_on_line8 += c.at(0);
                }
    }
    for (const auto& [key, e] : p.calls()) {
        const std::string name = cg::strip_recursion_suffix(key.second.name);
        if (name.rfind("vgfib:", 0) == 0) r.calls[name] += e.count;
    }
    return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(erlang_modules_are_named_with_no_flag_under_callgrind,
                     *boost::unit_test::precondition(have_erlang)) {
    const ErlRun r = callgrind_vgfib(false);
    BOOST_TEST(r.ir.count("vgfib:fib/1") == 1u, r.vg.err);
    BOOST_TEST(r.ir.count("vgfib:main/0") == 1u, r.vg.err);
    // fib(20) calls fib/1 21891 times; each call runs instructions of
    // fib/1's own code, on lines 8..9 of vgfib.erl, and BEAM's shared
    // code that fib/1 jumps to (no call: charged to fib/1, without lines).
    if (r.ir.count("vgfib:fib/1")) BOOST_TEST(r.ir.at("vgfib:fib/1") > 21891u * 10u);
    BOOST_TEST(r.fib_on_lines > 21891u * 5u);
    // OTP writes the line of fib/1's first instructions (8) before the
    // range starts: it is the line in effect there, run by every call.
    BOOST_TEST(r.fib_on_line8 >= 21891u);
    BOOST_TEST(std::regex_search(
                   r.vg.err, std::regex(R"(JIT GDB interface: .* [1-9]\d* Erlang/OTP modules)")),
               r.vg.err);
    BOOST_TEST(!contains(r.vg.err, "not an ELF object"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(erlang_gdb_entries_and_perf_map_give_one_name_per_range,
                     *boost::unit_test::precondition(have_erlang)) {
    const ErlRun plain = callgrind_vgfib(false);
    const ErlRun both = callgrind_vgfib(true);
    // The same functions, each once, with OTP's names (no '$'); the
    // calls of fib/1 are exact in both (BEAM's own work around them,
    // garbage collection, varies from run to run).
    BOOST_TEST(both.dollar_names == 0u);
    std::vector<std::string> names_plain, names_both;
    for (const auto& [n, ir] : plain.ir) names_plain.push_back(n);
    for (const auto& [n, ir] : both.ir) names_both.push_back(n);
    BOOST_TEST(names_both == names_plain, both.vg.err);
    if (both.calls.count("vgfib:fib/1") && plain.calls.count("vgfib:fib/1"))
        BOOST_TEST(both.calls.at("vgfib:fib/1") == plain.calls.at("vgfib:fib/1"));
}

BOOST_AUTO_TEST_CASE(erlang_under_memcheck_q_prints_nothing_and_names_errors,
                     *boost::unit_test::precondition(have_erlang)) {
    TempDir dir;
    compile_vgfib(dir);
    RunOptions opt;
    opt.cwd = dir.path();
    opt.timeout_seconds = 600;
    const Result native = run(vgfib_program(dir), opt);
    BOOST_TEST_REQUIRE(native.status == 0, native);
    const Result q =
        run_valgrind({"--tool=memcheck", "--trace-children=yes", "--smc-check=all", "-q"},
                     vgfib_program(dir), opt);
    BOOST_TEST_REQUIRE(q.status == 0, q);
    BOOST_TEST(q.out == native.out);
    // Memcheck reports what it finds in BEAM itself (its garbage
    // collector reads uninitialised stack words), but the GDB JIT
    // interface says nothing, and the traces name jitted frames as
    // module:function/arity (in the module).
    BOOST_TEST(!contains(q.err, "GDB JIT"), q.err.substr(0, 4000));
    BOOST_TEST(!contains(q.err, "not an ELF"), q.err.substr(0, 4000));
    BOOST_TEST(std::regex_search(q.err, std::regex(R"(: [a-z_]+::?[^ ]+ \(in [a-z_]+\))")),
               q.err.substr(0, 4000));
    // -v counts the modules read and the emulator's entry skipped.
    const Result v =
        run_valgrind({"--tool=memcheck", "--trace-children=yes", "--smc-check=all", "-v"},
                     vgfib_program(dir), opt);
    BOOST_TEST_REQUIRE(v.status == 0, v);
    BOOST_TEST(
        std::regex_search(
            v.err,
            std::regex(
                R"([1-9]\d* Erlang/OTP modules, [1-9]\d* other objects not ELF \(skipped\))")),
        v.err);
}
