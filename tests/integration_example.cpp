// integration_example.cpp - end-to-end tests of the example JIT (minijit):
// natively, and under the staged (patched) Valgrind's Memcheck, Callgrind and
// Cachegrind, including what the profiles attribute to the jitted code.
//
// Environment (defaults compiled in by tests/Makefile.am):
//   VGJIT_STAGE    the staged Valgrind (bin/valgrind inside)
//   VGJIT_SRCDIR   the source tree (examples/*.mj, examples/expected/)
//   VGJIT_BUILDDIR the build tree (examples/minijit)
//   VGJIT_MINIJIT  overrides the minijit binary
//   VGJIT_KEEP_TMP if set, the temporary directory (profiles) is kept

#define BOOST_TEST_MODULE integration_example
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>

#include <sys/stat.h>

namespace cg = vgjit::callgrind;
using vgjit::test::absolute;
using vgjit::test::builddir;
using vgjit::test::contains;
using vgjit::test::env_or;
using vgjit::test::line_count;
using vgjit::test::minijit;
using vgjit::test::read_file;
using vgjit::test::Result;
using vgjit::test::run_checked;
using vgjit::test::RunOptions;
using vgjit::test::srcdir;
using vgjit::test::StackFrame;
using vgjit::test::stage;
using vgjit::test::TempDir;
using vgjit::test::valgrind;

namespace {

std::string example(const std::string& name) { return srcdir() + "/examples/" + name; }

/// The scratch directory for this test program's profiles.
const TempDir& tmp() {
    static TempDir dir("vgjit-example");
    return dir;
}

/// The profiling samples (tens of millions of instructions each).
const std::vector<std::string> kSamples = {"fib", "sieve", "calls"};
/// Programs whose output is checked: the samples and the feature test.
const std::vector<std::string> kPrograms = {"fib", "sieve", "calls", "features"};

/// Functions defined in a MiniJit source ("fn NAME(").
std::vector<std::string> defined_functions(const std::string& source) {
    std::vector<std::string> out;
    std::regex re(R"(^\s*fn\s+([A-Za-z_][A-Za-z0-9_]*)\s*\()");
    std::istringstream in(source);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, re)) out.push_back(m[1]);
    }
    return out;
}

bool require_stage() {
    struct stat st;
    if (stat(valgrind().c_str(), &st) != 0) {
        BOOST_ERROR("no staged Valgrind at " << valgrind() << " (set VGJIT_STAGE)");
        return false;
    }
    return true;
}

/// One code version as logged by `minijit --verbose`.
struct CodeRange {
    std::string function;
    int tier;
    std::uint64_t start, size;
};

std::vector<CodeRange> compiled_ranges(const std::string& verbose_log) {
    std::vector<CodeRange> out;
    std::regex re(R"(minijit: compiled '([^']+)' \(tier (\d)\) at 0x([0-9a-f]+), (\d+) bytes)");
    for (std::sregex_iterator it(verbose_log.begin(), verbose_log.end(), re), end; it != end; ++it)
        out.push_back({(*it)[1], std::stoi((*it)[2]), std::stoull((*it)[3], nullptr, 16),
                       std::stoull((*it)[4])});
    return out;
}

bool is_fib(const cg::FunctionKey& k, const std::string& object, const std::string& file) {
    return k.object == object && k.file == file && cg::strip_recursion_suffix(k.name) == "fib";
}

/// The costs of `key` summed over all its recursion depths (NAME, NAME'2...).
cg::FunctionCosts merge_recursion(const cg::Profile& p, const cg::FunctionKey& key) {
    cg::FunctionCosts out;
    out.key = key;
    out.self.assign(p.events().size(), 0);
    for (const auto& f : p.functions()) {
        if (f.first.object != key.object || f.first.file != key.file ||
            cg::strip_recursion_suffix(f.first.name) != key.name)
            continue;
        for (std::size_t i = 0; i < out.self.size(); ++i) out.self[i] += f.second.self[i];
        for (const auto& l : f.second.lines) {
            auto& c = out.lines[l.first];
            c.resize(out.self.size());
            for (std::size_t i = 0; i < c.size(); ++i) c[i] += l.second[i];
        }
        for (const auto& a : f.second.instrs) {
            auto& c = out.instrs[a.first];
            c.resize(out.self.size());
            for (std::size_t i = 0; i < c.size(); ++i) c[i] += a.second[i];
        }
    }
    return out;
}

std::uint64_t cost_in(const cg::FunctionCosts& f, const CodeRange& r, std::size_t ev) {
    std::uint64_t sum = 0;
    for (auto it = f.instrs.lower_bound(r.start);
         it != f.instrs.end() && it->first < r.start + r.size; ++it)
        sum += it->second[ev];
    return sum;
}

}  // namespace

// ------------------------------------------------------------- native --

BOOST_AUTO_TEST_CASE(native_programs_print_expected_output) {
    for (const auto& s : kPrograms) {
        BOOST_TEST_CONTEXT("sample " << s) {
            const std::string expected = read_file(example("expected/" + s + ".out"));
            for (const auto& opts : std::vector<std::vector<std::string>>{
                     {}, {"--no-tier1"}, {"--tier-threshold", "1"}, {"--no-register"}}) {
                std::vector<std::string> argv{minijit()};
                argv.insert(argv.end(), opts.begin(), opts.end());
                argv.push_back(example(s + ".mj"));
                Result r = run_checked(argv);
                BOOST_TEST(r.status == 0, r);
                BOOST_TEST(r.out == expected, r);
                BOOST_TEST(r.err.empty(), r);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(native_error_programs_report_file_and_line) {
    const std::string dir = example("errors");
    std::vector<std::string> files;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 3 && n.compare(n.size() - 3, 3, ".mj") == 0) files.push_back(n);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    BOOST_TEST_REQUIRE(files.size() >= 8u);
    for (const auto& f : files) {
        BOOST_TEST_CONTEXT("program " << f) {
            const std::string path = dir + "/" + f;
            const std::string src = read_file(path);
            const std::string tag = "// expect: ";
            BOOST_TEST_REQUIRE(src.compare(0, tag.size(), tag) == 0);
            const std::string expect = src.substr(tag.size(), src.find('\n') - tag.size());
            for (const auto& opt : {"--tier-threshold=1000", "--no-tier1", "--tier-threshold=1"}) {
                Result r = run_checked({minijit(), opt, path});
                BOOST_TEST(r.status == 1, r);
                BOOST_TEST(r.err == path + ":" + expect + "\n", r);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(native_command_line) {
    Result help = run_checked({minijit(), "--help"});
    BOOST_TEST(help.status == 0);
    BOOST_TEST(help.out.find("usage: minijit") == 0u, help);

    Result none = run_checked({minijit()});
    BOOST_TEST(none.status == 2, none);
    BOOST_TEST(none.err.find("no program file given") != std::string::npos, none);

    Result bad = run_checked({minijit(), "--tier-threshold", "0", example("fib.mj")});
    BOOST_TEST(bad.status == 2, bad);
    BOOST_TEST(bad.err.find("invalid --tier-threshold '0'") != std::string::npos, bad);

    Result unknown = run_checked({minijit(), "--fast", example("fib.mj")});
    BOOST_TEST(unknown.status == 2, unknown);

    Result missing = run_checked({minijit(), tmp().path() + "/nope.mj"});
    BOOST_TEST(missing.status == 1, missing);
    BOOST_TEST(missing.err.find("cannot open") != std::string::npos, missing);

    // main's parameters come from the command line.
    const std::string prog = tmp().path() + "/args.mj";
    std::ofstream(prog) << "fn main(a, b) {\n    print a * b, \" \", a / b;\n}\n";
    Result args = run_checked({minijit(), prog, "-6", "4"});
    BOOST_TEST(args.status == 0, args);
    BOOST_TEST(args.out == "-24 -1\n", args);
    Result not_int = run_checked({minijit(), prog, "6", "x"});
    BOOST_TEST(not_int.status == 2, not_int);
    BOOST_TEST(
        not_int.err.find("program argument 'x' is not a 64-bit integer") != std::string::npos,
        not_int);
    Result div_zero = run_checked({minijit(), prog, "6", "0"});
    BOOST_TEST(div_zero.status == 1, div_zero);
    BOOST_TEST(div_zero.err == prog + ":2: runtime error: division by zero\n", div_zero);

    Result arity = run_checked({minijit(), example("fib.mj"), "7"});
    BOOST_TEST(arity.status == 1, arity);
    BOOST_TEST(arity.err ==
                   example("fib.mj") +
                       ":12: error: 'main' takes 0 arguments but 1 was given on the command line\n",
               arity);
}

// ----------------------------------------------------------- Memcheck --

BOOST_AUTO_TEST_CASE(memcheck_finds_no_errors_or_leaks) {
    if (!require_stage()) return;
    for (const auto& s : kSamples) {
        BOOST_TEST_CONTEXT("sample " << s) {
            Result r = run_checked({valgrind(), "--tool=memcheck", "--leak-check=full",
                                    "--error-exitcode=99", minijit(), example(s + ".mj")});
            BOOST_TEST(r.status == 0, r);
            BOOST_TEST(r.out == read_file(example("expected/" + s + ".out")), r);
            BOOST_TEST(r.err.find("ERROR SUMMARY: 0 errors from 0 contexts") != std::string::npos,
                       r);
            BOOST_TEST(r.err.find("definitely lost") == std::string::npos, r);
            BOOST_TEST(r.err.find("minijit: warning") == std::string::npos, r);
            BOOST_TEST(r.err.find("minijit: note") == std::string::npos, r);
        }
    }
    // Every construct, with tier-up on the first call.
    Result f =
        run_checked({valgrind(), "--tool=memcheck", "--leak-check=full", "--error-exitcode=99",
                     minijit(), "--tier-threshold", "1", example("features.mj")});
    BOOST_TEST(f.status == 0, f);
    BOOST_TEST(f.out == read_file(example("expected/features.out")), f);
    BOOST_TEST(f.err.find("ERROR SUMMARY: 0 errors from 0 contexts") != std::string::npos, f);
    // A runtime error leaves through longjmp past jitted frames: still clean.
    const std::string so = example("errors/stack_overflow.mj");
    Result r = run_checked(
        {valgrind(), "--tool=memcheck", "--leak-check=full", "--error-exitcode=99", minijit(), so});
    BOOST_TEST(r.status == 1, r);
    BOOST_TEST(r.err.find(so + ":5: runtime error: stack overflow in function 'down'") !=
                   std::string::npos,
               r);
    BOOST_TEST(r.err.find("ERROR SUMMARY: 0 errors from 0 contexts") != std::string::npos, r);
    BOOST_TEST(r.err.find("definitely lost") == std::string::npos, r);
}

namespace {

/// One run of errors/bounds_tier1.mj without bounds checks under the staged
/// Memcheck (-v, minijit --verbose --tier-names): the run, and the frames of
/// the stack trace of its invalid read.
struct InvalidRead {
    Result result;
    std::vector<StackFrame> frames;
};

/// Runs it with `minijit_options` added.
InvalidRead invalid_read_in_nested_calls(const std::vector<std::string>& minijit_options) {
    std::vector<std::string> argv{valgrind(),         "--tool=memcheck",   "-v",
                                  "--num-callers=20", minijit(),           "--verbose",
                                  "--tier-names",     "--no-bounds-checks"};
    argv.insert(argv.end(), minijit_options.begin(), minijit_options.end());
    argv.push_back(example("errors/bounds_tier1.mj"));
    InvalidRead out;
    out.result = run_checked(argv);
    out.frames = vgjit::test::stack_trace_after(out.result.err, "Invalid read of size 8", 20);
    return out;
}

/// The source line of the error an errors/ program expects ("// expect:
/// LINE: ...").
std::string expected_error_line(const std::string& source) {
    std::smatch m;
    static const std::regex expect(R"(^// expect: (\d+):)");
    return std::regex_search(source, m, expect) ? m[1].str() : "";
}

/// The names of the frames in `file` ("lookup.tier1", ...), innermost first,
/// up to the first frame that is not.
std::vector<std::string> leading_frames_in(const std::vector<StackFrame>& frames,
                                           const std::string& file) {
    std::vector<std::string> names;
    for (const auto& f : frames) {
        if (f.where.compare(0, file.size() + 1, file + ":") != 0) break;
        names.push_back(f.function);
    }
    return names;
}

}  // namespace

BOOST_AUTO_TEST_CASE(memcheck_stack_through_tier1_code_reaches_main) {
    // errors/bounds_tier1.mj: main (called once: tier 0) calls check, which
    // calls scale, which calls lookup, 2001 times; the last call reads one
    // past the end of an array, after all three were recompiled at tier 1,
    // which keeps no frame pointer (rbp holds a variable or the caller's
    // value).  Without bounds checks, Memcheck reports the read; only the
    // CFI that minijit registers with tier-1 code leads from lookup back to
    // main and into the engine.
    if (!require_stage()) return;
    const std::string file = "bounds_tier1.mj";
    // The program's call chain, innermost first.
    const std::vector<std::string> chain{"lookup", "scale", "check", "main"};
    const std::string line = expected_error_line(read_file(example("errors/" + file)));
    BOOST_TEST_REQUIRE(!line.empty());

    // With the CFI: every MiniJit frame, at its tier, then the engine and
    // minijit's own main.
    InvalidRead with_cfi = invalid_read_in_nested_calls({});
    const Result& r = with_cfi.result;
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(!with_cfi.frames.empty(), r.err);
    std::vector<std::string> expected;
    for (const auto& name : chain)
        expected.push_back(name + (name == "main" ? ".tier0" : ".tier1"));
    BOOST_TEST(leading_frames_in(with_cfi.frames, file) == expected,
               boost::test_tools::per_element());
    BOOST_TEST(with_cfi.frames.front().where == file + ":" + line, r.err);
    bool reached_main = false;
    for (std::size_t i = expected.size(); i < with_cfi.frames.size(); ++i)
        reached_main = reached_main || (with_cfi.frames[i].function == "main" &&
                                        with_cfi.frames[i].where.compare(0, 9, "main.cpp:") == 0);
    BOOST_TEST(reached_main, r.err);
    // Each registration came with unwind information, all of it taken:
    // the compiled versions and the retire stub.
    static const std::regex compiled(R"(minijit: compiled .*, registered\n)");
    const auto registered = static_cast<unsigned long>(std::distance(
        std::sregex_iterator(r.err.begin(), r.err.end(), compiled), std::sregex_iterator()));
    BOOST_TEST(registered >= chain.size() + 3, r.err);
    std::smatch m;
    static const std::regex summary(R"(JIT: unwind info: (\d+) added, (\d+) refused)");
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, summary), r.err);
    BOOST_TEST(std::stoul(m[1].str()) == registered + 1, r.err);
    BOOST_TEST(m[2].str() == "0");
    BOOST_TEST(!contains(r.err, "minijit: warning"), r.err);

    // Without it the trace loses frames: from lookup, the unwinder finds no
    // CFI and follows rbp, which is not a frame pointer in tier-1 code (here
    // it still points at main's frame, so the trace goes on in the engine).
    InvalidRead without_cfi = invalid_read_in_nested_calls({"--no-unwind-info"});
    BOOST_TEST_REQUIRE(without_cfi.result.status == 0, without_cfi.result);
    BOOST_TEST_REQUIRE(!without_cfi.frames.empty(), without_cfi.result.err);
    BOOST_TEST(without_cfi.frames.front().function == "lookup.tier1", without_cfi.result.err);
    BOOST_TEST(leading_frames_in(without_cfi.frames, file).size() < expected.size(),
               without_cfi.result.err);
    BOOST_TEST(!contains(without_cfi.result.err, "JIT: unwind info:"), without_cfi.result.err);

    // Tier 0 keeps its frame pointer: there the trace is whole either way.
    for (bool unwind_info : {true, false}) {
        BOOST_TEST_CONTEXT("--no-tier1, unwind information " << unwind_info) {
            std::vector<std::string> opts{"--no-tier1"};
            if (!unwind_info) opts.push_back("--no-unwind-info");
            InvalidRead t0 = invalid_read_in_nested_calls(opts);
            BOOST_TEST_REQUIRE(t0.result.status == 0, t0.result);
            std::vector<std::string> tier0;
            for (const auto& name : chain) tier0.push_back(name + ".tier0");
            BOOST_TEST(leading_frames_in(t0.frames, file) == tier0, t0.result.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(memcheck_shows_the_call_tier1_inlined_as_its_own_frame) {
    // With --inline, tier 1 compiles lookup's body into scale (lookup is
    // `return table[i];`, called with a variable) and registers where
    // (VgJitCode's inline table): the read past the array is reported at
    // lookup's line, inlined at scale's line 14, both at one address, then
    // check and main.  The sample's results do not change.
    if (!require_stage()) return;
    const std::string file = "bounds_tier1.mj";
    InvalidRead r = invalid_read_in_nested_calls({"--inline"});
    BOOST_TEST_REQUIRE(r.result.status == 0, r.result);
    BOOST_TEST_REQUIRE(r.frames.size() >= 4u, r.result.err);
    const std::vector<std::string> expected{"lookup", "scale.tier1", "check.tier1", "main.tier0"};
    BOOST_TEST(leading_frames_in(r.frames, file) == expected, boost::test_tools::per_element());
    BOOST_TEST(r.frames[0].where == file + ":10", r.result.err);
    BOOST_TEST(r.frames[1].where == file + ":14", r.result.err);
    static const std::regex pair(R"(at (0x[0-9A-F]+): lookup \(.*\n.*by (0x[0-9A-F]+): scale)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.result.err, m, pair), r.result.err);
    BOOST_TEST(m[1].str() == m[2].str(), r.result.err);
    BOOST_TEST(!contains(r.result.err, "minijit: warning"), r.result.err);
    for (const auto& sample : kSamples) {
        BOOST_TEST_CONTEXT("sample " << sample) {
            const Result native = run_checked({minijit(), "--inline", example(sample + ".mj")});
            BOOST_TEST(native.out == read_file(example("expected/" + sample + ".out")), native);
        }
    }
}

// ---------------------------------------------------------- Callgrind --

BOOST_AUTO_TEST_CASE(callgrind_attributes_jitted_code_to_named_functions) {
    if (!require_stage()) return;
    for (const auto& s : kSamples) {
        BOOST_TEST_CONTEXT("sample " << s) {
            const std::string src = example(s + ".mj");
            const std::string abs_src = absolute(src);
            const std::string object = "minijit:" + s + ".mj";
            const std::string profile = tmp().path() + "/callgrind." + s + ".out";
            Result r =
                run_checked({valgrind(), "--tool=callgrind", "--dump-instr=yes",
                             "--callgrind-out-file=" + profile, minijit(), "--verbose", src});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(r.out == read_file(example("expected/" + s + ".out")), r);
            BOOST_TEST(r.err.find("minijit: warning") == std::string::npos, r);

            const cg::Profile p = cg::Profile::parse_file(profile);
            const std::size_t ir = p.event_index("Ir");

            // >= 99% of the instructions executed in jitted code (the JIT's
            // object plus anonymous "???" code) are in named JIT functions.
            std::uint64_t named = 0, anonymous = 0;
            for (const auto& f : p.functions()) {
                if (f.first.object == object)
                    named += f.second.self[ir];
                else if (f.first.object == "???")
                    anonymous += f.second.self[ir];
            }
            BOOST_TEST_MESSAGE(s << ": " << named << " Ir in named JIT functions, " << anonymous
                                 << " Ir in anonymous code, " << p.totals()[ir] << " Ir in total");
            BOOST_TEST(named > 0u);
            BOOST_TEST(named >= 0.99 * static_cast<double>(named + anonymous),
                       named << " named vs " << anonymous << " anonymous");
            // The samples spend most of their time in jitted code.
            BOOST_TEST(named >= 0.5 * static_cast<double>(p.totals()[ir]));

            // Every function of the program appears under its name, in the
            // source file, with all its cost on real lines of that file.
            const std::string text = read_file(src);
            const std::size_t nlines = line_count(text);
            for (const auto& name : defined_functions(text)) {
                BOOST_TEST_CONTEXT("function " << name) {
                    auto it = p.functions().find(cg::FunctionKey{object, abs_src, name});
                    BOOST_TEST_REQUIRE((it != p.functions().end()));
                    const cg::FunctionCosts& f = it->second;
                    BOOST_TEST(f.self[ir] > 0u);
                    std::uint64_t on_lines = 0;
                    for (const auto& l : f.lines) {
                        BOOST_TEST(l.first.first == abs_src);
                        BOOST_TEST((l.first.second >= 1 && l.first.second <= nlines),
                                   "line " << l.first.second);
                        on_lines += l.second[ir];
                    }
                    BOOST_TEST(on_lines == f.self[ir]);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(callgrind_fib_lines_calls_and_tier_replacement) {
    if (!require_stage()) return;
    const std::string src = example("fib.mj");
    const std::string abs_src = absolute(src);
    const std::string object = "minijit:fib.mj";
    const std::string profile = tmp().path() + "/callgrind.fib-tiers.out";
    Result r = run_checked({valgrind(), "--tool=callgrind", "--dump-instr=yes",
                            "--callgrind-out-file=" + profile, minijit(), "--verbose", src});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(profile);
    const std::size_t ir = p.event_index("Ir");
    const cg::FunctionKey main_key{object, abs_src, "main"};
    // Callgrind names recursive activations fib'2 (--separate-recs=2):
    // merge all depths of fib.
    cg::FunctionCosts fib = merge_recursion(p, cg::FunctionKey{object, abs_src, "fib"});
    BOOST_TEST_REQUIRE(fib.self[ir] > 0u);

    // Lines of fib.mj: 5 `fn fib(n) {`, 6 `if (n < 2) {`, 7 `return n;`,
    // 9 `return fib(n - 1) + fib(n - 2);`, 10 `}`.
    auto line_cost = [&](std::uint64_t line) {
        auto it = fib.lines.find({abs_src, line});
        return it == fib.lines.end() ? std::uint64_t(0) : it->second[ir];
    };
    for (std::uint64_t l : {5, 6, 7, 9}) BOOST_TEST(line_cost(l) > 0u, "line " << l);
    BOOST_TEST(line_cost(8) == 0u);  // `}` of the if: no code
    BOOST_TEST(line_cost(9) > line_cost(7));

    // fib(20) + fib(25) + fib(30): 2*F(n+1)-1 calls each, 3 of them from
    // main, the rest recursive - across both tiers, which share the name.
    std::uint64_t from_main = 0, recursive = 0;
    for (const auto& c : p.calls()) {
        if (!is_fib(c.first.second, object, abs_src)) continue;
        if (c.first.first == main_key)
            from_main += c.second.count;
        else if (is_fib(c.first.first, object, abs_src))
            recursive += c.second.count;
    }
    BOOST_TEST(from_main == 3u);
    BOOST_TEST(recursive == (2u * 10946 - 1) + (2u * 121393 - 1) + (2u * 1346269 - 1) - 3);

    // Tier-up: fib was compiled at tier 0 and tier 1, the tier-0 code was
    // freed once no frame used it, and both versions executed.
    std::vector<CodeRange> ranges = compiled_ranges(r.err);
    const CodeRange* t0 = nullptr;
    const CodeRange* t1 = nullptr;
    for (const auto& c : ranges) {
        if (c.function == "fib" && c.tier == 0) t0 = &c;
        if (c.function == "fib" && c.tier == 1) t1 = &c;
    }
    BOOST_TEST_REQUIRE(t0 != nullptr, r.err);
    BOOST_TEST_REQUIRE(t1 != nullptr, r.err);
    BOOST_TEST(r.err.find("minijit: freeing 'fib' (tier 0)") != std::string::npos, r.err);
    const std::uint64_t in_t0 = cost_in(fib, *t0, ir), in_t1 = cost_in(fib, *t1, ir);
    BOOST_TEST_MESSAGE("fib: " << in_t0 << " Ir in tier 0, " << in_t1 << " Ir in tier 1");
    BOOST_TEST(in_t0 > 0u);
    BOOST_TEST(in_t1 > 0u);
    BOOST_TEST(in_t0 + in_t1 == fib.self[ir]);
    BOOST_TEST(in_t1 > 10 * in_t0);  // the threshold is 1000 calls of ~3 million
    auto stub = p.functions().find(cg::FunctionKey{object, "???", "minijit_retire_stub"});
    BOOST_TEST_REQUIRE((stub != p.functions().end()));
    BOOST_TEST(stub->second.self[ir] > 0u);
}

BOOST_AUTO_TEST_CASE(callgrind_tier_names_split_the_tiers) {
    if (!require_stage()) return;
    const std::string src = example("fib.mj");
    const std::string abs_src = absolute(src);
    const std::string profile = tmp().path() + "/callgrind.fib-names.out";
    Result r = run_checked({valgrind(), "--tool=callgrind", "--callgrind-out-file=" + profile,
                            minijit(), "--tier-names", "--tier-threshold", "5000", src});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(profile);
    const std::size_t ir = p.event_index("Ir");
    const std::string object = "minijit:fib.mj";
    auto self = [&](const std::string& name) -> std::uint64_t {
        return merge_recursion(p, cg::FunctionKey{object, abs_src, name}).self[ir];
    };
    BOOST_TEST(self("fib.tier0") > 0u);
    BOOST_TEST(self("fib.tier1") > self("fib.tier0"));
    BOOST_TEST(self("main.tier0") > 0u);
    BOOST_TEST(self("main.tier1") == 0u);  // main runs once: never tiers up
    BOOST_TEST(self("fib") == 0u);
}

// --------------------------------------------------------- Cachegrind --

BOOST_AUTO_TEST_CASE(cachegrind_names_jitted_code) {
    if (!require_stage()) return;
    const std::string src = example("sieve.mj");
    const std::string abs_src = absolute(src);
    const std::string profile = tmp().path() + "/cachegrind.sieve.out";
    Result r = run_checked({valgrind(), "--tool=cachegrind", "--cache-sim=yes",
                            "--cachegrind-out-file=" + profile, minijit(), src});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out == read_file(example("expected/sieve.out")), r);
    const cg::Profile p = cg::Profile::parse_file(profile);
    const std::size_t ir = p.event_index("Ir");
    const std::size_t d1mw = p.event_index("D1mw");
    std::uint64_t jit_ir = 0;
    for (const auto& f : p.functions())
        if (f.first.file == abs_src) jit_ir += f.second.self[ir];
    BOOST_TEST(jit_ir >= 0.5 * static_cast<double>(p.totals()[ir]));
    // Cachegrind has no ob=: functions are keyed by file and name.
    auto mark = p.functions().find(cg::FunctionKey{"", abs_src, "mark_multiples"});
    BOOST_TEST_REQUIRE((mark != p.functions().end()));
    // The store `composite[m] = 1;` (line 9) misses D1 on a 8 MB array.
    auto l9 = mark->second.lines.find({abs_src, 9});
    BOOST_TEST_REQUIRE((l9 != mark->second.lines.end()));
    BOOST_TEST(l9->second[d1mw] > 10000u);
}
