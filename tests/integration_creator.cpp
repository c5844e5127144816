// integration_creator.cpp - JIT code that nobody announces, named after the
// code that made its memory executable ("[JIT code of F]" in "OBJECT[jit]",
// m_debuginfo/jitcreator.c) and unwound through the return addresses on
// its stack (jitunwind.c), end to end under the staged Valgrind: a JIT of
// the suite's own (tests/creatorjit, every way memory becomes executable)
// and the real PCRE2 JIT as GNU grep -P, a C program, GLib's GRegex and
// PHP's preg_match run it.  Announced names, early or late, still win.

#define BOOST_TEST_MODULE integration_creator
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace vgjit::test;
using vgjit::callgrind::Profile;

namespace {

const std::string kMakeCode = "[JIT code of make_code]";
const std::string kPcre = "[JIT code of pcre2_jit_compile_8]";

std::string creatorjit() { return env_or("VGJIT_CREATORJIT", tests_builddir() + "/creatorjit"); }

/// The function names of the stack trace after the first line holding
/// `what`.
std::vector<std::string> names(const std::vector<StackFrame>& frames) {
    std::vector<std::string> out;
    for (const StackFrame& f : frames) out.push_back(f.function);
    return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

/// Memcheck's report of creatorjit HOW: its stderr.
Result memcheck_creatorjit(const std::string& how, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--tool=memcheck"};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = run_valgrind(args, {creatorjit(), how, "3"});
    BOOST_TEST(r.status == 0, r);
    BOOST_TEST(contains(r.out, "result "), r);
    return r;
}

/// Compiles the fixture tests/fixtures/creator/NAME.c with the flags
/// pkg-config gives for `package` into dir; "" if that is not possible.
std::string compile_fixture(const TempDir& dir, const std::string& name,
                            const std::string& package) {
    const std::string src = srcdir() + "/tests/fixtures/creator/" + name + ".c";
    const std::string exe = dir.file(name);
    Result r = run(
        {"/bin/sh", "-c",
         "cc -O1 -g -o '" + exe + "' '" + src + "' $(pkg-config --cflags --libs " + package + ")"});
    BOOST_TEST(r.status == 0, r);
    return r.status == 0 ? exe : "";
}

boost::test_tools::assertion_result pkg_available(const std::string& package) {
    Result r = run({"/bin/sh", "-c", "pkg-config --exists " + package + " && command -v cc"});
    boost::test_tools::assertion_result res(r.status == 0);
    res.message() << package << " (pkg-config) or cc is missing: build-aux/install-deps.sh";
    return res;
}

boost::test_tools::assertion_result pcre2_available(boost::unit_test::test_unit_id) {
    return pkg_available("libpcre2-8");
}
boost::test_tools::assertion_result glib_available(boost::unit_test::test_unit_id) {
    return pkg_available("glib-2.0");
}
boost::test_tools::assertion_result grep_p_available(boost::unit_test::test_unit_id) {
    Result r = run({"/bin/sh", "-c", "echo a=b1 | grep -qP '(\\w+)=(\\w+)\\d'"});
    boost::test_tools::assertion_result res(r.status == 0);
    res.message() << "grep -P does not work here";
    return res;
}
boost::test_tools::assertion_result php_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result res(!find_on_path("php").empty());
    res.message() << "php is missing: build-aux/install-deps.sh installs php8.2-cli";
    return res;
}

/// Whether a function named `fn` (a recursion suffix aside) is the
/// creator-named code `creator`: that name (Cachegrind, Memcheck), or
/// Callgrind's "CREATOR 0xADDR", one function per address the code was
/// entered at.
bool is_creator_fn(const std::string& fn, const std::string& creator) {
    const std::string name = vgjit::callgrind::strip_recursion_suffix(fn);
    if (name == creator) return true;
    static const std::regex entry(R"( 0x[0-9a-f]+$)");
    return name.size() > creator.size() && name.compare(0, creator.size(), creator) == 0 &&
           std::regex_match(name.substr(creator.size()), entry);
}

/// The functions of `p` that are the creator-named code `creator`.
std::vector<const vgjit::callgrind::FunctionCosts*> creator_fns(const Profile& p,
                                                                const std::string& creator) {
    std::vector<const vgjit::callgrind::FunctionCosts*> out;
    for (const auto& [key, f] : p.functions())
        if (is_creator_fn(key.name, creator)) out.push_back(&f);
    return out;
}

/// Self Ir of the creator-named code `creator` in `p`.
std::uint64_t creator_self_ir(const Profile& p, const std::string& creator) {
    std::uint64_t ir = 0;
    const std::size_t col = p.event_index("Ir");
    for (const auto* f : creator_fns(p, creator))
        if (col < f->self.size()) ir += f->self[col];
    return ir;
}

/// Calls into the creator-named code `callee` from functions named
/// `caller`.
std::uint64_t calls(const Profile& p, const std::string& caller, const std::string& callee) {
    std::uint64_t n = 0;
    for (const auto& [keys, edge] : p.calls())
        if (keys.first.name == caller && is_creator_fn(keys.second.name, callee)) n += edge.count;
    return n;
}

/// The object of the first function of the creator-named code
/// `creator`, "" if none.
std::string object_of(const Profile& p, const std::string& creator) {
    const auto fs = creator_fns(p, creator);
    return fs.empty() ? "" : fs.front()->key.object;
}

}  // namespace

BOOST_AUTO_TEST_CASE(memcheck_names_the_code_after_its_creator_and_unwinds_to_main) {
    // Every way the memory becomes executable names it after make_code,
    // in the object of the executable with "[jit]", and the trace goes
    // from the frameless leaf through jit_outer (rbp zeroed) to main.
    for (const char* how : {"mmap", "mprotect", "mremap", "memfd"}) {
        BOOST_TEST_CONTEXT(how) {
            Result r = memcheck_creatorjit(how);
            const auto frames = stack_trace_after(r.err, "depends on uninitialised value");
            BOOST_TEST_REQUIRE(frames.size() >= 4u, r.err);
            BOOST_TEST(frames[0].function == kMakeCode, r.err);
            BOOST_TEST(frames[1].function == kMakeCode, r.err);
            BOOST_TEST(frames[2].function == "call_jit", r.err);
            BOOST_TEST(frames[0].where.find("creatorjit[jit]") != std::string::npos, r.err);
            BOOST_TEST(has(names(frames), "main"), r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(without_the_options_it_is_stock_valgrind) {
    Result r = memcheck_creatorjit("mmap", {"--jit-creator-names=no", "--jit-unwind-scan=no"});
    const auto frames = names(stack_trace_after(r.err, "depends on uninitialised value"));
    BOOST_TEST_REQUIRE(!frames.empty(), r.err);
    BOOST_TEST(frames[0] == "???", r.err);
    BOOST_TEST(!has(frames, "main"), r.err);
    BOOST_TEST(!contains(r.err, "JIT code of"), r.err);

    // Names without the scan: the trace stops in the JIT code.
    r = memcheck_creatorjit("mmap", {"--jit-unwind-scan=no"});
    const auto named = names(stack_trace_after(r.err, "depends on uninitialised value"));
    BOOST_TEST_REQUIRE(!named.empty(), r.err);
    BOOST_TEST(named[0] == kMakeCode, r.err);
    BOOST_TEST(!has(named, "main"), r.err);
}

// A C++ creator is named demangled, as Memcheck names ELF code, both when
// the creator is new and each time it is found again (by its raw name).
BOOST_AUTO_TEST_CASE(a_cxx_creator_is_named_demangled_each_time) {
    const Result r =
        run_valgrind({"--tool=none", "--trace-jit=yes"}, {tests_builddir() + "/creator_cxx"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const std::string name = "[JIT code of jit::Emitter::make(int)]";
    std::size_t n = 0;
    for (std::size_t at = r.err.find(name); at != std::string::npos; at = r.err.find(name, at + 1))
        ++n;
    BOOST_TEST(n == 3u, r.err);
    BOOST_TEST(!contains(r.err, "JIT code of _Z"), r.err);
}

// Two functions that call mmap themselves are two creators, although
// both reach the kernel through the same instruction of the C library
// (jitcreatorname.c remembers a creator by the two innermost frames).
BOOST_AUTO_TEST_CASE(two_call_sites_of_mmap_are_two_creators) {
    const Result r = run_valgrind({"--tool=none", "--trace-jit=yes"},
                                  {tests_builddir() + "/creatorjit", "two-sites", "1"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    for (const char* site : {"[JIT code of first_site]", "[JIT code of second_site]"})
        BOOST_TEST(count_of(r.err, site) == 1u, site << "\n" << r.err);
}

BOOST_AUTO_TEST_CASE(announced_names_win) {
    Result r = memcheck_creatorjit("announce");
    const auto frames = names(stack_trace_after(r.err, "depends on uninitialised value"));
    BOOST_TEST_REQUIRE(frames.size() >= 3u, r.err);
    BOOST_TEST(frames[0] == "jit_leaf", r.err);
    BOOST_TEST(frames[1] == "jit_outer", r.err);
    BOOST_TEST(has(frames, "main"), r.err);
    BOOST_TEST(!contains(r.err, "JIT code of"), r.err);
}

BOOST_AUTO_TEST_CASE(a_suppression_for_the_creating_object_matches) {
    TempDir dir;
    write_file(dir.file("obj.supp"),
               "{\n  jit-by-object\n  Memcheck:Cond\n  obj:*creatorjit*\n}\n");
    Result r = memcheck_creatorjit("mmap", {"--suppressions=" + dir.file("obj.supp")});
    BOOST_TEST(contains(r.err, "ERROR SUMMARY: 0 errors"), r.err);

    write_file(dir.file("fun.supp"),
               "{\n  jit-by-name\n  Memcheck:Cond\n  fun:" + kMakeCode + "\n}\n");
    r = memcheck_creatorjit("mmap", {"--suppressions=" + dir.file("fun.supp")});
    BOOST_TEST(contains(r.err, "ERROR SUMMARY: 0 errors"), r.err);
}

BOOST_AUTO_TEST_CASE(callgrind_counts_calls_into_the_creator_named_code) {
    // With creator names the JIT code is named "[JIT code of make_code]
    // 0xADDR", one function for each address-named function it has
    // without them (where stock Callgrind splits it), called exactly as
    // often as call_jit called it; without them its Ir is spread over
    // address-named functions in no object, exactly as much.
    TempDir dir;
    std::uint64_t unnamed[2] = {0, 0}, named = 0, n_unnamed[2] = {0, 0}, n_named = 0;
    for (int off = 0; off < 2; ++off) {
        const std::string out = dir.file("callgrind.out." + std::to_string(off));
        std::vector<std::string> args = {"--tool=callgrind", "--callgrind-out-file=" + out};
        if (off) args.push_back("--jit-creator-names=no");
        Result r = run_valgrind(args, {creatorjit(), "mprotect", "250"});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        const Profile p = Profile::parse_file(out);
        for (const auto& [key, f] : p.functions())
            if ((key.object.empty() || key.object == "???") && address_named(key.name)) {
                unnamed[off] += f.self.at(p.event_index("Ir"));
                n_unnamed[off]++;
            }
        if (off) {
            BOOST_TEST(creator_self_ir(p, kMakeCode) == 0u);
            continue;
        }
        named = creator_self_ir(p, kMakeCode);
        n_named = creator_fns(p, kMakeCode).size();
        BOOST_TEST(calls(p, "call_jit", kMakeCode) == 250u);
        BOOST_TEST(named > 250u * 10);
        BOOST_TEST(object_of(p, kMakeCode).find("creatorjit[jit]") != std::string::npos);
    }
    BOOST_TEST(unnamed[1] - unnamed[0] == named);
    BOOST_TEST(n_named == n_unnamed[1] - n_unnamed[0]);
}

BOOST_AUTO_TEST_CASE(late_perf_map_names_bind_over_the_creator) {
    // The perf map is written after the code ran: Callgrind and
    // Cachegrind bind its names, never the creator's.
    for (const char* tool : {"callgrind", "cachegrind"}) {
        BOOST_TEST_CONTEXT(tool) {
            TempDir dir;
            const std::string out = dir.file("profile.out");
            Result r = run_valgrind({std::string("--tool=") + tool, "--jit-perf-map=yes",
                                     std::string("--") + tool + "-out-file=" + out},
                                    {creatorjit(), "perfmap", "40"});
            remove_tmp_files_of(r.pid);  // creatorjit's /tmp/perf-PID.map
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const Profile p = Profile::parse_file(out);
            BOOST_TEST(creator_self_ir(p, "jit_leaf") > 0u);
            BOOST_TEST(creator_self_ir(p, "jit_outer") > 0u);
            BOOST_TEST(creator_self_ir(p, kMakeCode) == 0u);
            if (std::string(tool) == "callgrind")
                BOOST_TEST(calls(p, "call_jit", "jit_outer") == 40u);
        }
    }
}

BOOST_AUTO_TEST_CASE(every_tool_names_the_code) {
    // Cachegrind binds at exit; Helgrind, DRD, Massif and DHAT describe
    // stacks; -v counts the ranges.
    TempDir dir;
    const std::string out = dir.file("cachegrind.out");
    Result r = run_valgrind({"--tool=cachegrind", "--cachegrind-out-file=" + out, "-v"},
                            {creatorjit(), "mmap", "20"});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(creator_self_ir(Profile::parse_file(out), kMakeCode) > 0u);
    BOOST_TEST(
        std::regex_search(
            r.err, std::regex(R"(JIT: 1 ranges of unannounced code named after their creator)")),
        r.err);

    // DHAT and Massif keep allocation stacks: none goes through JIT code
    // here, but they must run it unharmed; Helgrind and DRD describe the
    // code only in races: they run it too.
    for (const char* tool : {"helgrind", "drd", "massif", "dhat", "none"}) {
        BOOST_TEST_CONTEXT(tool) {
            TempDir d;
            RunOptions opt;
            opt.cwd = d.path();
            Result t =
                run_valgrind({std::string("--tool=") + tool}, {creatorjit(), "mremap", "5"}, opt);
            BOOST_TEST(t.status == 0, t);
            BOOST_TEST(contains(t.out, "result "), t);
        }
    }
}

BOOST_AUTO_TEST_CASE(pcre2_errors_are_named_suppressible_and_reach_main,
                     *boost::unit_test::precondition(pcre2_available)) {
    TempDir dir;
    const std::string exe = compile_fixture(dir, "pcre_client", "libpcre2-8");
    BOOST_TEST_REQUIRE(!exe.empty());
    Result r = run_valgrind({"--tool=memcheck", "--gen-suppressions=all"}, {exe});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const auto frames = stack_trace_after(r.err, "uninitialised value");
    BOOST_TEST_REQUIRE(!frames.empty(), r.err);
    BOOST_TEST(frames[0].function == kPcre, r.err);
    BOOST_TEST(frames[0].where.find("libpcre2-8.so") != std::string::npos, r.err);
    BOOST_TEST(frames[0].where.find("[jit]") != std::string::npos, r.err);
    BOOST_TEST(has(names(frames), "match"), r.err);
    BOOST_TEST(has(names(frames), "main"), r.err);

    // The library's suppression, as users write it, matches the JIT code.
    write_file(dir.file("lib.supp"),
               "{\n  pcre2-jit-cond\n  Memcheck:Cond\n  obj:*libpcre2-8.so*\n}\n"
               "{\n  pcre2-jit-value\n  Memcheck:Value8\n  obj:*libpcre2-8.so*\n}\n");
    Result s = run_valgrind({"--tool=memcheck", "--suppressions=" + dir.file("lib.supp")}, {exe});
    BOOST_TEST(contains(s.err, "ERROR SUMMARY: 0 errors"), s.err);

    // --gen-suppressions' own output suppresses them in the next run.
    std::string supp, line;
    std::istringstream lines(r.err);
    bool in_block = false;
    while (std::getline(lines, line)) {
        if (line == "{") in_block = true;
        if (!in_block) continue;
        supp += (contains(line, "<insert_a_suppression_name_here>") ? "   generated" : line) + "\n";
        if (line == "}") in_block = false;
    }
    BOOST_TEST_REQUIRE(contains(supp, "fun:" + kPcre), r.err);
    write_file(dir.file("gen.supp"), supp);
    s = run_valgrind({"--tool=memcheck", "--suppressions=" + dir.file("gen.supp")}, {exe});
    BOOST_TEST(contains(s.err, "ERROR SUMMARY: 0 errors"), s.err);
}

BOOST_AUTO_TEST_CASE(grep_p_under_callgrind_and_cachegrind,
                     *boost::unit_test::precondition(grep_p_available)) {
    TempDir dir;
    std::string text;
    for (int i = 0; i < 2000; ++i)
        text += "key" + std::to_string(i) + "=val" + std::to_string(i) + " x\n";
    write_file(dir.file("words.txt"), text);
    const std::string grep = find_on_path("grep");
    for (const char* tool : {"callgrind", "cachegrind"}) {
        BOOST_TEST_CONTEXT(tool) {
            const std::string out = dir.file(std::string(tool) + ".out");
            Result r = run_valgrind(
                {std::string("--tool=") + tool, std::string("--") + tool + "-out-file=" + out},
                {grep, "-cP", "(\\w+)=(\\w+)\\d", dir.file("words.txt")});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(contains(r.out, "2000"), r);
            const Profile p = Profile::parse_file(out);
            const std::uint64_t total = p.totals().at(p.event_index("Ir"));
            // The matcher is the JIT code: a fifth of the run at least.
            BOOST_TEST(creator_self_ir(p, kPcre) * 5 > total, creator_self_ir(p, kPcre)
                                                                  << " of " << total);
        }
    }
}

BOOST_AUTO_TEST_CASE(gregex_and_php_preg_match_under_callgrind,
                     *boost::unit_test::precondition(glib_available) *
                         boost::unit_test::precondition(php_available)) {
    TempDir dir;
    const std::string exe = compile_fixture(dir, "gregex_client", "glib-2.0");
    BOOST_TEST_REQUIRE(!exe.empty());
    write_file(dir.file("m.php"),
               "<?php $n = 0; for ($i = 0; $i < 2000; $i++) { if "
               "(preg_match('/(\\w+)=(\\w+)\\d/', \"key$i=value$i x\")) $n++; } echo \"matches "
               "$n\\n\";\n");
    const std::vector<std::vector<std::string>> programs = {
        {exe}, {find_on_path("php"), "-n", "-d", "pcre.jit=1", dir.file("m.php")}};
    for (const auto& prog : programs) {
        BOOST_TEST_CONTEXT(prog.front()) {
            const std::string out = dir.file("callgrind.out");
            Result r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out}, prog);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(contains(r.out, "matches 2000"), r);
            const Profile p = Profile::parse_file(out);
            BOOST_TEST(creator_self_ir(p, kPcre) > 100000u, creator_self_ir(p, kPcre));
            BOOST_TEST(object_of(p, kPcre).find("libpcre2-8.so") != std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(code_mapped_from_a_file_of_code_keeps_the_file_name) {
    // A file of compiled code the program did not write (as SBCL's
    // sbcl.core), mapped executable, also over an anonymous reservation:
    // named after the file, in the file's object, in Memcheck and
    // Callgrind; a file the program wrote itself is JIT code.
    TempDir dir;
    const std::string image = dir.file("image.bin");
    Result w = run({creatorjit(), "write-image", image});
    BOOST_TEST_REQUIRE(w.status == 0, w);
    // Older than the run by more than a second of file time stamps.
    std::filesystem::last_write_time(
        image, std::filesystem::last_write_time(image) - std::chrono::seconds(5));
    for (const std::string how : {"image:", "image-over:"}) {
        BOOST_TEST_CONTEXT(how) {
            Result r = memcheck_creatorjit(how + image);
            const auto frames = stack_trace_after(r.err, "depends on uninitialised value");
            BOOST_TEST_REQUIRE(frames.size() >= 2u, r.err);
            BOOST_TEST(frames[0].function == "[code of image.bin]", r.err);
            BOOST_TEST(frames[0].where == "in " + image, r.err);
            const std::string out = dir.file("callgrind.out");
            r = run_valgrind({"--tool=callgrind", "--callgrind-out-file=" + out},
                             {creatorjit(), how + image, "5"});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const Profile p = Profile::parse_file(out);
            BOOST_TEST(calls(p, "call_jit", "[code of image.bin]") == 5u);
            BOOST_TEST(object_of(p, "[code of image.bin]") == image);
        }
    }
    const std::string fresh = dir.file("fresh.bin");
    Result r = memcheck_creatorjit("image-new:" + fresh);
    const auto frames = stack_trace_after(r.err, "depends on uninitialised value");
    BOOST_TEST_REQUIRE(!frames.empty(), r.err);
    // The function that mapped it made it.
    BOOST_TEST(frames[0].function == "[JIT code of map_image]", r.err);
}
