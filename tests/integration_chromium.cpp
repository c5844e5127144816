// integration_chromium.cpp - Debian's Chromium end to end (`make
// check-producers`; not part of `make check`): headless Chromium renders
// a page whose script computes fib(20), counts its own calls of fib and
// writes the count into the DOM (printed by --dump-dom).  V8 names its code
// in a perf map (--js-flags=--perf-basic-prof) or a jitdump
// (--js-flags=--perf-prof); the renderer's profile must name the page's
// fib ("JS:~fib file:///DIR/page.html:5:13" and its other tiers) and count
// exactly as many calls as the page did.  A last case runs Memcheck on the
// renderers, where a page's out-of-bounds WebAssembly read is reported
// with a stack of JS: frames.
//
// V8 also runs --interpreted-frames-native-stack: without it an
// interpreted function runs in the one InterpreterEntryTrampoline builtin,
// and only the tiers above the interpreter have code of their own (V8
// optimises fib concurrently: in one run all 21,891 calls were
// interpreted, in another 21,481 ran as Maglev's JS:+'fib), so no function
// counted them all.  With it every interpreted function gets a copy of the
// trampoline, named JS:~NAME, and the calls of all functions named
// JS:*fib* (every tier, every recursion depth) are the page's count.
//
// The cases run the browser's binary (VGJIT_CHROMIUM, default
// /usr/lib/chromium/chromium) rather than Debian's wrapper script
// /usr/bin/chromium, which under --trace-children=yes would add sh, grep,
// findmnt and more processes, with HOME set to the case's directory (the
// crash handler's database and anything else Chromium keeps under $HOME)
// and, when the browser runs under Valgrind too, with
// tests/chromium_keep_children.so preloaded (see
// fixtures/chromium/keep_children.c: Chromium kills its children 2 s
// after asking them to end, which cut the renderer's profile mid-write).
// Each case removes what Chromium leaves in /tmp: the perf maps of every
// process Valgrind ran (pids from their --log-file logs).

#define BOOST_TEST_MODULE integration_chromium
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace cg = vgjit::callgrind;
namespace fs = std::filesystem;
using namespace vgjit::test;

namespace {

std::string chromium() { return env_or("VGJIT_CHROMIUM", "/usr/lib/chromium/chromium"); }
std::string keep_children() { return tests_builddir() + "/chromium_keep_children.so"; }

boost::test_tools::assertion_result chromium_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(::access(chromium().c_str(), X_OK) == 0 &&
                                           ::access(keep_children().c_str(), R_OK) == 0);
    ok.message() << "needs " << chromium()
                 << " (Debian's chromium; build-aux/install-deps.sh --producers installs it, "
                    "or set VGJIT_CHROMIUM) and tests/chromium_keep_children.so";
    return ok;
}

/// The page: fib(20) by a recursive function that counts its calls, then
/// `filler` functions made by the Function constructor and called once
/// each.
std::string page_text(int filler) {
    return R"(<!DOCTYPE html>
<html><body><p id="out">pending</p>
<script>
var calls = 0;
function fib(n) { calls++; return n < 2 ? n : fib(n - 1) + fib(n - 2); }
var r = fib(20);
for (var i = 0; i < )" +
           std::to_string(filler) + R"(; i++) new Function("return " + i)();
document.getElementById("out").textContent = "fib(20)=" + r + " calls=" + calls;
</script></body></html>
)";
}

/// V8 writes its jitdump through a stdio buffer of 2 MB (kLogBufferSize
/// in v8/src/diagnostics/perf-jit.h), flushed when full and when the last
/// isolate's logger closes the file; a renderer ended by SIGTERM never
/// closes it, so its last records (fib's among them) never reached the
/// file.  With --interpreted-frames-native-stack each function run once
/// adds about 1.5 KB of records: 2,500 of them push fib's out.
constexpr int kJitdumpFiller = 2500;

/// Seconds a case waits for the profiles after the browser exits.
constexpr int kProfileWaitSeconds = 300;

/// The case's directory with the page in it.
struct Scene {
    TempDir dir{"vgjit-chromium"};
    std::string page = dir.file("page.html");
    std::string url = "file://" + page;
    explicit Scene(int filler = 0) { write_file(page, page_text(filler)); }
};

/// Chromium's command line for `scene`, V8 run with `js_flags`, then `extra`.
std::vector<std::string> chromium_command(const Scene& scene, const std::string& js_flags,
                                          const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {
        chromium(),
        "--headless",
        "--no-sandbox",
        "--no-zygote",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--user-data-dir=" + scene.dir.file("profile"),
        "--js-flags=" + js_flags + " --interpreted-frames-native-stack"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--dump-dom");
    argv.push_back(scene.url);
    return argv;
}

/// `keep`: preload chromium_keep_children.so (the browser under Valgrind
/// too: its shutdown outlasts the 2 s it gives its children).
RunOptions options_for(const Scene& scene, bool keep) {
    RunOptions opt;
    opt.cwd = scene.dir.path();
    opt.timeout_seconds = 900;
    opt.env["HOME"] = scene.dir.path();
    if (keep) opt.env["LD_PRELOAD"] = keep_children();
    return opt;
}

/// The count of fib's calls the page wrote into the DOM; 0 if absent.
std::uint64_t page_calls(const std::string& dom) {
    static const std::regex line(R"(fib\(20\)=6765 calls=(\d+))");
    std::smatch m;
    return std::regex_search(dom, m, line) ? std::stoull(m[1].str()) : 0;
}

/// The pids of the logs DIR/PREFIX.PID.log that Valgrind wrote (one per
/// process it ran: --log-file=DIR/PREFIX.%p.log).
std::set<pid_t> logged_pids(const std::string& dir, const std::string& prefix) {
    std::set<pid_t> pids;
    const std::regex name(prefix + R"(\.(\d+)\.log)");
    for (const auto& e : fs::directory_iterator(dir)) {
        std::smatch m;
        const std::string f = e.path().filename().string();
        if (std::regex_match(f, m, name)) pids.insert(static_cast<pid_t>(std::stol(m[1].str())));
    }
    return pids;
}

/// Whether the profile at `path` is complete (Callgrind writes its
/// "totals:" line last).
bool profile_complete(const std::string& path) {
    if (::access(path.c_str(), R_OK) != 0) return false;
    const std::string text = read_file(path);
    return text.find("\ntotals: ") != std::string::npos && !text.empty() && text.back() == '\n';
}

/// Waits until the profile `profile_of(pid)` of each of `pids` is complete,
/// at most kProfileWaitSeconds; the pids whose profile is not.
template <typename F>
std::vector<pid_t> wait_for_profiles(const std::set<pid_t>& pids, F profile_of) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(kProfileWaitSeconds);
    while (true) {
        std::vector<pid_t> missing;
        for (const pid_t pid : pids)
            if (!profile_complete(profile_of(pid))) missing.push_back(pid);
        if (missing.empty() || std::chrono::steady_clock::now() > deadline) return missing;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

/// The page's fib in a profile: calls of the functions named JS:*fib* and
/// the page's URL, at every tier and recursion depth, and their names.
struct FibCalls {
    std::uint64_t calls = 0;
    std::set<std::string> names;
    std::set<std::string> objects;
};

FibCalls fib_calls(const cg::Profile& p, const std::string& url) {
    FibCalls fc;
    for (const auto& [key, edge] : p.calls()) {
        const std::string name = cg::strip_recursion_suffix(key.second.name);
        if (name.rfind("JS:", 0) != 0 || !contains(name, "fib") || !contains(name, url)) continue;
        fc.calls += edge.count;
        fc.names.insert(name);
        fc.objects.insert(key.second.object);
    }
    return fc;
}

std::string joined(const std::set<std::string>& s) {
    std::ostringstream os;
    for (const auto& x : s) os << (os.tellp() > 0 ? ", " : "") << x;
    return os.str();
}

/// Removes the files every process of `pids` may have left in /tmp.
void clean_tmp(const std::set<pid_t>& pids) {
    for (const pid_t pid : pids) remove_tmp_files_of(pid);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Chromium with every process under the staged Callgrind
/// (--trace-children=yes), V8 run with `js_flags`, Valgrind with
/// `vg_extra`: the page renders, every process Valgrind ran writes a
/// complete callgrind.out.PID, and exactly one of them, a renderer's,
/// names the page's fib with the page's count of calls.  `producer`
/// matches the object Callgrind gives fib (the perf map or the jitdump).
void check_traced(const std::string& js_flags, const std::vector<std::string>& vg_extra,
                  const std::regex& producer, int filler) {
    Scene scene(filler);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> vg_args = {"--tool=callgrind", "--trace-children=yes",
                                        "--log-file=" + scene.dir.file("vg.%p.log")};
    vg_args.insert(vg_args.end(), vg_extra.begin(), vg_extra.end());
    const Result r =
        run_valgrind(vg_args, chromium_command(scene, js_flags), options_for(scene, true));
    const double browser_s = seconds_since(start);
    const std::set<pid_t> pids = logged_pids(scene.dir.path(), "vg");
    const auto profile_of = [&](pid_t pid) {
        return scene.dir.file("callgrind.out." + std::to_string(pid));
    };
    const std::vector<pid_t> incomplete = wait_for_profiles(pids, profile_of);
    const double all_s = seconds_since(start);
    clean_tmp(pids);
    BOOST_TEST_REQUIRE(!r.timed_out, r);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const std::uint64_t calls = page_calls(r.out);
    BOOST_TEST_REQUIRE(calls > 0u, "the page did not render: " << r.out);
    BOOST_TEST_MESSAGE(js_flags << ": " << pids.size() << " processes; the browser exited after "
                                << browser_s << " s, the last profile after " << all_s
                                << " s; the page counted " << calls << " calls of fib");
    BOOST_TEST(pids.size() >= 4u, "expected the browser, a GPU, a utility and a renderer process");
    for (const pid_t pid : incomplete)
        BOOST_ERROR("no complete "
                    << profile_of(pid) << " after " << kProfileWaitSeconds << " s; its log:\n"
                    << read_file(scene.dir.file("vg." + std::to_string(pid) + ".log")));
    BOOST_TEST_REQUIRE(incomplete.empty());
    // One profile per process: none but those of the logged pids.
    std::size_t profiles = 0;
    for (const auto& e : fs::directory_iterator(scene.dir.path()))
        if (e.path().filename().string().rfind("callgrind.out.", 0) == 0) ++profiles;
    BOOST_TEST(profiles == pids.size());

    std::vector<pid_t> naming;
    for (const pid_t pid : pids) {
        const cg::Profile p = cg::Profile::parse_file(profile_of(pid));
        const FibCalls fc = fib_calls(p, scene.url);
        if (fc.names.empty()) continue;
        naming.push_back(pid);
        BOOST_TEST_MESSAGE("pid " << pid << ": " << fc.calls << " calls of " << joined(fc.names)
                                  << " in " << joined(fc.objects));
        BOOST_TEST(contains(p.header().at("cmd"), "--type=renderer"), p.header().at("cmd"));
        BOOST_TEST(fc.calls == calls);
        for (const auto& o : fc.objects)
            BOOST_TEST(std::regex_search(o, producer), o << " is not the producer's file");
    }
    BOOST_TEST(naming.size() == 1u, naming.size() << " profiles name the page's fib");
}

}  // namespace

BOOST_AUTO_TEST_CASE(chromium_perf_map_names_the_page_in_every_process,
                     *boost::unit_test::precondition(chromium_available)) {
    check_traced("--perf-basic-prof", {"--jit-perf-map=yes"},
                 std::regex("^/tmp/perf-[0-9]+\\.map$"), 0);
}

BOOST_AUTO_TEST_CASE(chromium_jitdump_names_the_page_in_every_process,
                     *boost::unit_test::precondition(chromium_available)) {
    check_traced("--perf-prof", {}, std::regex("/jit-[0-9]+\\.dump$"), kJitdumpFiller);
}

// Chromium's own wrapper for renderers, without --trace-children: the
// browser runs natively, and starts each renderer as the prefix's command
// followed by its own.  The browser, native, ends before its 2 s
// deadline: nothing is preloaded.
BOOST_AUTO_TEST_CASE(chromium_renderer_cmd_prefix_names_the_page,
                     *boost::unit_test::precondition(chromium_available)) {
    Scene scene;
    const auto start = std::chrono::steady_clock::now();
    const std::string prefix =
        "--renderer-cmd-prefix=" + valgrind() +
        " --tool=callgrind --jit-perf-map=yes --log-file=" + scene.dir.file("renderer.%p.log") +
        " --callgrind-out-file=" + scene.dir.file("renderer.%p.out");
    const Result r =
        run(chromium_command(scene, "--perf-basic-prof", {prefix}), options_for(scene, false));
    const double browser_s = seconds_since(start);
    const std::set<pid_t> pids = logged_pids(scene.dir.path(), "renderer");
    const auto profile_of = [&](pid_t pid) {
        return scene.dir.file("renderer." + std::to_string(pid) + ".out");
    };
    const std::vector<pid_t> incomplete = wait_for_profiles(pids, profile_of);
    const double all_s = seconds_since(start);
    clean_tmp(pids);
    BOOST_TEST_REQUIRE(!r.timed_out, r);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const std::uint64_t calls = page_calls(r.out);
    BOOST_TEST_REQUIRE(calls > 0u, "the page did not render: " << r.out);
    BOOST_TEST_MESSAGE("--renderer-cmd-prefix: "
                       << pids.size() << " renderers; the browser exited after " << browser_s
                       << " s, the last profile after " << all_s << " s");
    BOOST_TEST_REQUIRE(!pids.empty(), "no renderer ran under Valgrind: " << r.err);
    for (const pid_t pid : incomplete)
        BOOST_ERROR("no complete "
                    << profile_of(pid) << " after " << kProfileWaitSeconds << " s; its log:\n"
                    << read_file(scene.dir.file("renderer." + std::to_string(pid) + ".log")));
    BOOST_TEST_REQUIRE(incomplete.empty());
    std::vector<pid_t> naming;
    for (const pid_t pid : pids) {
        const cg::Profile p = cg::Profile::parse_file(profile_of(pid));
        BOOST_TEST(contains(p.header().at("cmd"), "--type=renderer"), p.header().at("cmd"));
        const FibCalls fc = fib_calls(p, scene.url);
        if (fc.names.empty()) continue;
        naming.push_back(pid);
        BOOST_TEST_MESSAGE("pid " << pid << ": " << fc.calls << " calls of " << joined(fc.names));
        BOOST_TEST(fc.calls == calls);
    }
    BOOST_TEST(naming.size() == 1u, naming.size() << " profiles name the page's fib");
}

/// A page that reads its WebAssembly memory in bounds and past its end
/// (which throws a RuntimeError); prints "in=read 0 out=RuntimeError".
const char* const kWasmPage = R"(<!DOCTYPE html>
<html><body><p id="out">pending</p>
<script>
var bytes = new Uint8Array([0x00,0x61,0x73,0x6d,0x01,0x00,0x00,0x00,
  0x01,0x06,0x01,0x60,0x01,0x7f,0x01,0x7f, 0x03,0x02,0x01,0x00,
  0x05,0x03,0x01,0x00,0x01, 0x07,0x08,0x01,0x04,0x6c,0x6f,0x61,0x64,0x00,0x00,
  0x0a,0x09,0x01,0x07,0x00,0x20,0x00,0x28,0x02,0x00,0x0b]);
var inst = new WebAssembly.Instance(new WebAssembly.Module(bytes));
function probe(i) { try { return "read " + inst.exports.load(i); } catch (e) { return e.constructor.name; } }
document.getElementById("out").textContent = "in=" + probe(8) + " out=" + probe(70000);
</script></body></html>
)";

// Memcheck on the renderers through --renderer-cmd-prefix.  The page's
// WebAssembly function (one i32.load from a memory of one page) reads
// 70,000, past the memory's end: V8 compiles the load without a bounds
// check and lets the access fault in the guard region it reserved behind
// the memory (PROT_NONE), where its SIGSEGV handler turns it into a
// RuntimeError.  Memcheck reports the read, the one error a page
// provokes in code that JavaScript calls, and its stack must name the
// WebAssembly function and the page's JavaScript caller.
//
// Chromium exports its own allocator (malloc, free, operator new, ...
// from PartitionAlloc); Memcheck replacing some of them and not others
// made every renderer read address 0x9 in its IO thread, and the crash
// handler's re-raise of that SIGSEGV (rt_tgsigqueueinfo with the fault's
// siginfo) then ended Valgrind with "Valgrind received a signal 11".
// --soname-synonyms=somalloc=nouserintercepts leaves Chromium's allocator
// alone (Memcheck then sees none of its heap blocks).
BOOST_AUTO_TEST_CASE(chromium_memcheck_names_js_frames,
                     *boost::unit_test::precondition(chromium_available)) {
    Scene scene;
    write_file(scene.page, kWasmPage);
    const auto start = std::chrono::steady_clock::now();
    const std::string prefix = "--renderer-cmd-prefix=" + valgrind() +
                               " --tool=memcheck --jit-perf-map=yes"
                               " --soname-synonyms=somalloc=nouserintercepts --log-file=" +
                               scene.dir.file("renderer.%p.log");
    const Result r =
        run(chromium_command(scene, "--perf-basic-prof", {prefix}), options_for(scene, false));
    const std::set<pid_t> pids = logged_pids(scene.dir.path(), "renderer");
    const auto log_of = [&](pid_t pid) {
        return scene.dir.file("renderer." + std::to_string(pid) + ".log");
    };
    // Memcheck's log is complete when it has its error summary.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(kProfileWaitSeconds);
    std::vector<pid_t> incomplete;
    do {
        incomplete.clear();
        for (const pid_t pid : pids)
            if (!contains(read_file(log_of(pid)), "ERROR SUMMARY:")) incomplete.push_back(pid);
        if (!incomplete.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    } while (!incomplete.empty() && std::chrono::steady_clock::now() < deadline);
    const double all_s = seconds_since(start);
    clean_tmp(pids);
    BOOST_TEST_REQUIRE(!r.timed_out, r);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST_REQUIRE(contains(r.out, "in=read 0 out=RuntimeError"), r.out);
    BOOST_TEST_MESSAGE("Memcheck: " << pids.size() << " renderers, the last log complete after "
                                    << all_s << " s");
    BOOST_TEST_REQUIRE(!pids.empty(), "no renderer ran under Valgrind: " << r.err);
    for (const pid_t pid : incomplete)
        BOOST_ERROR("no error summary in " << log_of(pid) << ":\n" << read_file(log_of(pid)));
    std::size_t reporting = 0;
    for (const pid_t pid : pids) {
        const std::string log = read_file(log_of(pid));
        BOOST_TEST(!contains(log, "Valgrind received a signal"), log);
        const std::vector<StackFrame> frames = stack_trace_after(log, "Invalid read of size 4");
        if (frames.empty()) continue;
        ++reporting;
        std::ostringstream trace;
        for (const auto& f : frames) trace << "\n  " << f.function << " (" << f.where << ")";
        BOOST_TEST_MESSAGE("pid " << pid << ": Invalid read of size 4" << trace.str());
        BOOST_TEST(frames[0].function.rfind("JS:wasm-function[0]", 0) == 0, trace.str());
        BOOST_TEST(contains(frames[0].where, "/tmp/perf-" + std::to_string(pid) + ".map"),
                   trace.str());
        bool caller = false;
        for (const auto& f : frames)
            caller = caller || (f.function.rfind("JS:", 0) == 0 && contains(f.function, "probe") &&
                                contains(f.function, scene.url));
        BOOST_TEST(caller, "no JS:*probe " << scene.url << " frame:" << trace.str());
    }
    BOOST_TEST(reporting == 1u, reporting << " renderers report the read");
}
