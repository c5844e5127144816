// integration_runtimes.cpp - the runtimes of README.md's table that no
// other suite runs, run as their users run them under the staged
// Valgrind, each with the flag that makes it name its code: PHP 8.2's
// opcache JIT with a perf map (opcache.jit_debug=0x10, written while its
// JIT buffer is writable and not executable: the names wait for the
// mprotect that makes it executable, m_debuginfo/jitpending.c) and with a
// jitdump (0x20); PostgreSQL 15's LLVM JIT in a throw-away cluster, with
// a jitdump (jit_profiling_support, through LLVM's perf listener) and
// through the GDB JIT interface (jit_debugging_support).  And runtimes
// run without such a flag (Node, HotSpot, Chez Scheme, Guile, PyPy,
// Mono), whose code is named after its creator, against stock
// Callgrind.  Every file a producer writes goes to the case's own
// directory or is removed by it.

#define BOOST_TEST_MODULE integration_runtimes
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_profile.hpp"
#include "elfobject.hpp"
#include "test_support.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace vgjit::test;
using vgjit::callgrind::Profile;

namespace {

boost::test_tools::assertion_result php_available(boost::unit_test::test_unit_id) {
    Result r = run({"/bin/sh", "-c",
                    "php -d opcache.enable_cli=1 -r 'exit(function_exists(\"opcache_get_status\") "
                    "? 0 : 1);'"});
    boost::test_tools::assertion_result res(r.status == 0);
    res.message() << "php with opcache is missing: build-aux/install-deps.sh installs php8.2-cli";
    return res;
}

/// fib(n) makes this many calls of fib, the first included.
std::uint64_t fib_calls(unsigned n) {
    std::uint64_t a = 0, b = 1;  // fib(0), fib(1)
    for (unsigned i = 0; i < n + 1; ++i) {
        const std::uint64_t c = a + b;
        a = b;
        b = c;
    }
    return 2 * a - 1;  // 2 fib(n+1) - 1
}

/// Removes the producer files of process `pid` that PHP writes to /tmp.
void remove_producer_files(const std::string& pid) {
    std::remove(("/tmp/perf-" + pid + ".map").c_str());
    std::remove(("/tmp/jit-" + pid + ".dump").c_str());
}

/// The numbers of the -v line "JIT: N names waited for their code to
/// become executable: N became code, N replaced by newer names, N refused
/// then, N never became code"; empty if absent.
std::vector<unsigned long> waited_line(const std::string& err) {
    static const std::regex re(
        R"(JIT: (\d+) names waited for their code to become executable: (\d+) became code, )"
        R"((\d+) replaced by newer names, (\d+) refused then, (\d+) never became code)");
    std::smatch m;
    std::vector<unsigned long> v;
    if (std::regex_search(err, m, re))
        for (std::size_t i = 1; i < m.size(); ++i) v.push_back(std::stoul(m[i]));
    return v;
}

/// PHP running `script` with opcache's function JIT (compile every
/// function when the script loads: opcache.jit=1205) and
/// opcache.jit_debug=`debug`, under Callgrind with `extra` options.
struct PhpRun {
    Result vg;
    Profile profile;
    std::string pid;
};

PhpRun run_php(const TempDir& dir, const std::string& debug,
               const std::vector<std::string>& extra) {
    const std::string out = dir.file("callgrind.out");
    std::vector<std::string> args = {"--tool=callgrind", "-v", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    PhpRun r;
    r.vg =
        run_valgrind(args,
                     {find_on_path("php"), "-d", "opcache.enable_cli=1", "-d", "opcache.jit=1205",
                      "-d", "opcache.jit_buffer_size=32M", "-d", "opcache.jit_debug=" + debug,
                      // The script was just written: cache (and compile) it anyway.
                      "-d", "opcache.file_update_protection=0", dir.file("fib.php")},
                     RunOptions{600, dir.path(), {}});
    BOOST_TEST_REQUIRE(r.vg.status == 0, r.vg);
    r.profile = Profile::parse_file(out);
    r.pid = r.profile.header().at("pid");
    return r;
}

const unsigned kFibN = 20;

void write_fib_script(const TempDir& dir) {
    write_file(dir.file("fib.php"),
               "<?php\nfunction fib($n) { return $n < 2 ? $n : fib($n - 1) + fib($n - 2); }\n"
               "echo fib(" +
                   std::to_string(kFibN) + "), \"\\n\";\n");
}

}  // namespace

BOOST_AUTO_TEST_CASE(php_opcache_perf_map_names_jit_fib_exactly_under_w_xor_x,
                     *boost::unit_test::precondition(php_available)) {
    // PHP flips its JIT buffer between RW and RX around each compilation
    // and writes each perf map line while it is RW: every line waits for
    // the mprotect, then names its code.
    TempDir dir;
    write_fib_script(dir);
    PhpRun r = run_php(dir, "0x10", {"--jit-perf-map=yes"});
    const std::string map = read_file("/tmp/perf-" + r.pid + ".map");
    remove_producer_files(r.pid);
    BOOST_TEST(contains(r.vg.out, "6765"), r.vg);
    // That PHP compiled fib at all is PHP's business: the map says so.
    BOOST_TEST_REQUIRE(contains(map, " JIT$fib\n"), map);
    BOOST_TEST(calls_to_any_depth(r.profile, "JIT$fib") == fib_calls(kFibN));
    const auto fs = r.profile.functions_named("JIT$fib", true);
    BOOST_TEST_REQUIRE(!fs.empty());
    BOOST_TEST(fs.front()->key.object == "/tmp/perf-" + r.pid + ".map");
    // Every line waited (the buffer was RW when it was read) and became
    // code; none was refused.
    const auto waited = waited_line(r.vg.err);
    BOOST_TEST_REQUIRE(waited.size() == 5u, r.vg.err);
    BOOST_TEST(waited[0] == line_count(map));
    BOOST_TEST(waited[1] == waited[0]);
    BOOST_TEST(waited[4] == 0u);
    BOOST_TEST(!contains(r.vg.err, "refused: range is not executable"), r.vg.err);
}

BOOST_AUTO_TEST_CASE(php_opcache_jitdump_names_jit_fib_exactly,
                     *boost::unit_test::precondition(php_available)) {
    TempDir dir;
    write_fib_script(dir);
    PhpRun r = run_php(dir, "0x20", {});
    remove_producer_files(r.pid);
    BOOST_TEST(contains(r.vg.out, "6765"), r.vg);
    BOOST_TEST(calls_to_any_depth(r.profile, "JIT$fib") == fib_calls(kFibN));
    const auto fs = r.profile.functions_named("JIT$fib", true);
    BOOST_TEST_REQUIRE(!fs.empty(), r.vg.err);
    BOOST_TEST(fs.front()->key.object == "/tmp/jit-" + r.pid + ".dump");
    BOOST_TEST(contains(r.vg.err, "0 refused, 0 malformed"), r.vg.err);
}

namespace {

const std::string kPostgresBin = "/usr/lib/postgresql/15/bin";

boost::test_tools::assertion_result postgres_available(boost::unit_test::test_unit_id) {
    const bool have = access((kPostgresBin + "/postgres").c_str(), X_OK) == 0 &&
                      (getuid() != 0 || !find_on_path("runuser").empty());
    boost::test_tools::assertion_result res(have);
    res.message() << kPostgresBin
                  << "/postgres is missing: build-aux/install-deps.sh installs "
                     "postgresql-15";
    if (!have || getuid() != 0) return res;
    // As root, the server runs as the user postgres, which must reach the
    // staged Valgrind: a tree under /root (mode 0700) is closed to it.
    const Result r =
        run({find_on_path("runuser"), "-u", "postgres", "--", "/usr/bin/test", "-x", valgrind()});
    boost::test_tools::assertion_result reach(r.status == 0);
    reach.message() << "the user postgres cannot execute " << valgrind()
                    << " (a directory above it is closed to others, as /root is): run the "
                       "tests as another user, or from a tree the user postgres can read";
    return reach;
}

/// argv run as the user `postgres` when we are root (the server refuses
/// root), else as ourselves.
std::vector<std::string> as_server_user(std::vector<std::string> argv) {
    if (getuid() != 0) return argv;
    argv.insert(argv.begin(), {find_on_path("runuser"), "-u", "postgres", "--"});
    return argv;
}

/// A throw-away cluster in dir/data, owned by the server's user; the
/// query script dir/q.sql.  Returns false if initdb failed.
bool make_cluster(const TempDir& dir) {
    if (getuid() == 0) {
        const passwd* pw = getpwnam("postgres");
        if (pw == nullptr || chown(dir.path().c_str(), pw->pw_uid, pw->pw_gid) != 0) return false;
    }
    const Result r = run(as_server_user({kPostgresBin + "/initdb", "-D", dir.file("data"), "-A",
                                         "trust", "--no-sync", "-U", "postgres"}),
                         RunOptions{300, dir.path(), {}});
    BOOST_TEST(r.status == 0, r);
    return r.status == 0;
}

/// Runs the single-user server on `query` under Callgrind with the
/// server options `settings`; its producer files go to dir (JITDUMPDIR,
/// HOME), never to a shared place.
Result run_postgres(const TempDir& dir, const std::string& query,
                    const std::vector<std::string>& settings, const std::string& out) {
    write_file(dir.file("q.sql"), query);
    std::vector<std::string> argv = {valgrind(),
                                     "--tool=callgrind",
                                     "-v",
                                     "--callgrind-out-file=" + out,
                                     kPostgresBin + "/postgres",
                                     "--single",
                                     "-D",
                                     dir.file("data")};
    for (const auto& s : settings) {
        argv.push_back("-c");
        argv.push_back(s);
    }
    argv.push_back("postgres");
    // stdin is the script: a shell reads it for us.
    std::string cmd;
    for (const auto& a : as_server_user(argv)) cmd += "'" + a + "' ";
    cmd += "< '" + dir.file("q.sql") + "'";
    return run({"/bin/sh", "-c", cmd},
               RunOptions{600, dir.path(), {{"JITDUMPDIR", dir.path()}, {"HOME", dir.path()}}});
}

/// Calls of the functions named evalexpr_* in p, by name.
std::map<std::string, std::uint64_t> evalexpr_calls(const Profile& p) {
    std::map<std::string, std::uint64_t> n;
    for (const auto& [keys, edge] : p.calls())
        if (keys.second.name.rfind("evalexpr_", 0) == 0) n[keys.second.name] += edge.count;
    return n;
}

// 1000 rows, of which 334 pass the filter: the JIT-compiled filter runs
// once per row and the aggregate's transition once per passing row.
const std::string kQuery =
    "SET jit_above_cost = 0;\nSET jit_inline_above_cost = 0;\nSET jit_optimize_above_cost = 0;\n"
    "SELECT sum(g * 2 + 1) FROM generate_series(1, 1000) g WHERE g % 3 = 1;\n";

}  // namespace

BOOST_AUTO_TEST_CASE(postgresql_llvm_jit_named_exactly_from_jitdump_and_gdb_interface,
                     *boost::unit_test::precondition(postgres_available)) {
    TempDir dir("vgjit-pg");
    BOOST_TEST_REQUIRE(make_cluster(dir));
    for (const std::string how : {"jit_profiling_support=on", "jit_debugging_support=on"}) {
        BOOST_TEST_CONTEXT(how) {
            const std::string out = dir.file("callgrind.out." + how.substr(0, 6));
            const Result r = run_postgres(dir, kQuery, {how}, out);
            BOOST_TEST_REQUIRE(r.status == 0, r);
            BOOST_TEST(contains(r.out, "sum = \"334668\""), r);
            const Profile p = Profile::parse_file(out);
            const auto calls = evalexpr_calls(p);
            std::vector<std::uint64_t> counts;
            for (const auto& [name, n] : calls) counts.push_back(n);
            std::sort(counts.begin(), counts.end());
            BOOST_TEST_REQUIRE(!counts.empty(), r.err);
            // The filter once per row, the transition once per passing row.
            BOOST_TEST(std::count(counts.begin(), counts.end(), 1000u) == 1, r.err);
            BOOST_TEST(std::count(counts.begin(), counts.end(), 334u) == 1, r.err);
            BOOST_TEST(!contains(r.err, " refused: "), r.err);
        }
    }
    // The producer wrote under the test's directory, nowhere shared.
    BOOST_TEST(std::filesystem::exists(dir.file(".debug/jit")));
}
boost::test_tools::assertion_result rakudo_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result res(!find_on_path("rakudo").empty());
    res.message() << "rakudo is missing: build-aux/install-deps.sh installs rakudo";
    return res;
}

BOOST_AUTO_TEST_CASE(moarvm_perf_map_names_jit_compiled_raku_code,
                     *boost::unit_test::precondition(rakudo_available)) {
    // MoarVM compiles a routine once its specializer has seen it called
    // often enough, on a thread of its own, which Valgrind runs in turns
    // with the program's: how soon it gets its turn varies (one run in CI
    // ended before fib was compiled).  MVM_SPESH_BLOCKING=1, MoarVM's own
    // switch for deterministic runs, makes the program wait for each
    // specialization: fib is then compiled early in every run, and the JIT
    // runs nearly every call.  MoarVM writes its map to /tmp/perf-PID.map
    // whatever TMPDIR says.
    TempDir dir;
    const unsigned rounds = 300, n = 15;
    write_file(dir.file("fib.raku"),
               "sub fib(int $n --> int) { $n < 2 ?? $n !! fib($n - 1) + fib($n - 2) }\n"
               "my $t = 0;\nfor ^" +
                   std::to_string(rounds) + " { $t += fib(" + std::to_string(n) + ") }\nsay $t;\n");
    const std::string out = dir.file("callgrind.out");
    const Result r = run_valgrind(
        {"--tool=callgrind", "-v", "--jit-perf-map=yes", "--callgrind-out-file=" + out},
        {find_on_path("rakudo"), "fib.raku"},
        RunOptions{600, dir.path(), {{"MVM_JIT_PERF_MAP", "1"}, {"MVM_SPESH_BLOCKING", "1"}}});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const Profile profile = Profile::parse_file(out);
    const std::string pid = profile.header().at("pid");
    const std::string map_path = "/tmp/perf-" + pid + ".map";
    const std::string map = read_file(map_path);
    std::remove(map_path.c_str());
    BOOST_TEST(contains(r.out, std::to_string(rounds * 610)), r);
    // That MoarVM compiled fib is MoarVM's business: the map says so.
    BOOST_TEST_REQUIRE(contains(map, " fib(fib.raku:1)\n"), map);
    const auto fs = profile.functions_named("fib(fib.raku:1)", true);
    BOOST_TEST_REQUIRE(!fs.empty(), r.err);
    for (const auto* f : fs) BOOST_TEST(f->key.object == map_path);
    // MoarVM's JIT code goes back to its interpreter loop for each call
    // and is entered again after it, so Callgrind counts more entries
    // than fib has calls; what is counted is that the named code ran
    // for at least half of fib's calls, and not for more than three
    // entries a call (its start and its two returns).
    const std::uint64_t fib_runs = rounds * fib_calls(n);
    const std::uint64_t entries = calls_to_any_depth(profile, "fib(fib.raku:1)");
    BOOST_TEST(2 * entries >= fib_runs, entries << " entries for " << fib_runs << " calls");
    BOOST_TEST(entries <= 3 * fib_runs, entries << " entries for " << fib_runs << " calls");
    BOOST_TEST(!contains(r.err, " refused: "), r.err);
}

// Runtimes run without the flag that would make them name their code:
// their JIT code is named after its creator.  Callgrind keeps stock
// Callgrind's structure (one function per address a call entered the
// code at, "[JIT code of CREATOR] 0xADDR") and the creator is the
// runtime's object, never its page allocator (jitcreatorname.c's
// is_memory_routine).

namespace {

struct Unannounced {
    std::string label;
    std::vector<std::string> argv;  ///< argv[0] looked up on PATH unless it has a '/'
    std::string creator;            ///< the expected "[JIT code of ...]"
    std::string script;             ///< file name, written into the case's directory
    std::string source;
    std::string output;  ///< what the program prints
    std::string hint;    ///< the runtime the exit hint names, "" if none
    /// Where the runtime places its code varies from run to run
    /// (SpiderMonkey picks random addresses; JavaScriptCore and HotSpot
    /// compile on threads of their own, so the order in which methods
    /// reach the code cache differs): the two runs' entries are compared
    /// by number only.
    bool random_addresses = false;
};

/// The runtimes of unannounced JIT code, each with its program, its output
/// and the creator its code is named after.  It is one function because
/// it is a table, one runtime after another, that reads best whole.
std::vector<Unannounced> unannounced_runtimes() {
    const std::string java = find_on_path("java");
    std::vector<Unannounced> v = {
        {"node",
         {node_binary(), "--single-threaded", "fib.js"},
         "[JIT code of node]",
         "fib.js",
         "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
         "let s = 0; for (let i = 0; i < 30; i++) s += fib(18); console.log(s);\n",
         "77520",
         "Node.js"},
        {"chezscheme",
         {"scheme", "--script", "fib.scm"},
         "[JIT code of chezscheme]",
         "fib.scm",
         "(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))\n"
         "(display (fib 20)) (newline)\n",
         "6765",
         ""},
        {"guile",
         {"guile", "--no-auto-compile", "fib.scm"},
         "[JIT code of libguile-3.0.so.1.5.0]",
         "fib.scm",
         "(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))\n"
         "(display (fib 20)) (newline)\n",
         "6765",
         ""},
        {"pypy3",
         {"pypy3", "fib.py"},
         "[JIT code of libpypy3.9-c.so]",
         "fib.py",
         "def fib(n): return n if n < 2 else fib(n-1) + fib(n-2)\n"
         "print(sum(fib(15) for i in range(200)))\n",
         "122000",
         ""},
    };
    // JavaScriptCore (WebKitGTK's shell) and SpiderMonkey (linked into
    // its shell): the object that made the code, by its file name.
    const std::string js =
        "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
        "let s = 0; for (let i = 0; i < 30; i++) s += fib(18); print(s);\n";
    std::error_code ec;
    const auto jsc_lib =
        std::filesystem::canonical("/usr/lib/x86_64-linux-gnu/libjavascriptcoregtk-4.0.so.18", ec);
    v.push_back({"jsc",
                 {"jsc", "fib.js"},
                 "[JIT code of " + jsc_lib.filename().string() + "]",
                 "fib.js",
                 js,
                 "77520",
                 "JavaScriptCore",
                 true});
    v.push_back(
        {"js102", {"js102", "fib.js"}, "[JIT code of js102]", "fib.js", js, "77520", "", true});
    // Racket CS, on Chez Scheme: its executable made the code.
    v.push_back({"racket",
                 {"racket", "fib.rkt"},
                 "[JIT code of racket]",
                 "fib.rkt",
                 "#lang racket/base\n"
                 "(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))\n"
                 "(display (fib 20)) (newline)\n",
                 "6765",
                 ""});
    v.push_back({"mono",
                 {"mono", "Hot.exe"},
                 "[JIT code of mono-sgen]",
                 "Hot.cs",
                 "class Hot { static int Fib(int n) { return n < 2 ? n : Fib(n-1) + Fib(n-2); }\n"
                 "  static void Main() { int s = 0; for (int i = 0; i < 50; i++) s += Fib(15);\n"
                 "    System.Console.WriteLine(s); } }\n",
                 "30500",
                 "Mono"});
    if (!java.empty()) {
        v.push_back({"hotspot",
                     {std::filesystem::canonical(java).string(), "-Xbatch", "-cp", ".", "JitWork"},
                     "[JIT code of libjvm.so]",
                     "JitWork.java",
                     "public class JitWork {\n"
                     "  static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
                     "  public static void main(String[] a) {\n"
                     "    int s = 0; for (int i = 0; i < 200; i++) s += fib(15);\n"
                     "    System.out.println(s); } }\n",
                     "122000",
                     "HotSpot",
                     true});
    }
    return v;
}

boost::test_tools::assertion_result unannounced_available(boost::unit_test::test_unit_id) {
    std::string missing;
    if (::access(node_binary().c_str(), X_OK) != 0) missing += " node";
    for (const char* p :
         {"scheme", "guile", "pypy3", "mono", "mcs", "java", "javac", "jsc", "js102", "racket"})
        if (find_on_path(p).empty()) missing += std::string(" ") + p;
    boost::test_tools::assertion_result res(missing.empty());
    res.message() << "missing:" << missing
                  << " (build-aux/install-deps.sh installs nodejs, chezscheme, guile-3.0, "
                     "pypy3, mono-runtime, mono-mcs, openjdk-17-jdk-headless, "
                     "libjavascriptcoregtk-4.0-bin, libmozjs-102-dev, racket)";
    return res;
}

/// The entry addresses of the functions of `p` named "CREATOR 0xADDR"
/// (recursion levels aside).
std::set<std::uint64_t> creator_entries(const Profile& p, const std::string& creator) {
    static const std::regex entry(R"( 0x([0-9a-f]+)$)");
    std::set<std::uint64_t> out;
    for (const auto& [key, f] : p.functions()) {
        const std::string name = vgjit::callgrind::strip_recursion_suffix(key.name);
        std::smatch m;
        const std::string rest = name.substr(std::min(name.size(), creator.size()));
        if (name.rfind(creator, 0) == 0 && std::regex_match(rest, m, entry))
            out.insert(std::stoull(m[1], nullptr, 16));
    }
    return out;
}

/// The addresses of the address-named functions of `p` in no object
/// ("0x..." in "???").
std::set<std::uint64_t> address_named_entries(const Profile& p) {
    std::set<std::uint64_t> out;
    for (const auto& [key, f] : p.functions())
        if ((key.object.empty() || key.object == "???") && vgjit::test::address_named(key.name))
            out.insert(
                std::stoull(vgjit::callgrind::strip_recursion_suffix(key.name), nullptr, 16));
    return out;
}

/// Where section ".fini" of the preloaded core object of the Valgrind
/// `valgrind` (its bin/valgrind) starts, relative to the object's base;
/// 0 if unknown.  Its _fini is address-named, and it moves between the
/// patched and the stock build (the patched object holds one more
/// function), at the same base.
std::uint64_t preload_fini(const std::string& valgrind) {
    const auto prefix = std::filesystem::path(valgrind).parent_path().parent_path();
    const auto info = vgjit::read_elf_object_file(
        (prefix / "libexec/valgrind/vgpreload_core-amd64-linux.so").string());
    for (const auto& section : info.code_sections)
        if (section.name == ".fini") return section.addr;
    return 0;
}

/// Every "[JIT code of X]" name of `p`, without the entry address.
std::set<std::string> creator_names(const Profile& p) {
    static const std::regex name(R"((\[JIT code of .*\])( 0x[0-9a-f]+)?('\d+)?$)");
    std::set<std::string> out;
    for (const auto& [key, f] : p.functions()) {
        std::smatch m;
        if (std::regex_match(key.name, m, name)) out.insert(m[1]);
    }
    return out;
}

/// A runtime's program under the patched and the stock Callgrind.
struct BothRuns {
    Profile patched, stock;
    /// The ranges the patched run gave a creator ("JIT: creator A-B" of
    /// --trace-jit), first and last address.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> creator_ranges;
};

/// Runs rt's program (compiled first if it is Java or C#) under both
/// Callgrinds in `dir`, and checks the patched run's exit hint.
BothRuns run_both(const Unannounced& rt, const TempDir& dir) {
    write_file(dir.file(rt.script), rt.source);
    const std::string ext = std::filesystem::path(rt.script).extension().string();
    if (ext == ".java" || ext == ".cs") {
        const Result c = run({find_on_path(ext == ".java" ? "javac" : "mcs"), rt.script},
                             RunOptions{300, dir.path(), {}});
        BOOST_TEST_REQUIRE(c.status == 0, c);
    }
    std::vector<std::string> argv = rt.argv;
    if (argv[0].find('/') == std::string::npos) argv[0] = find_on_path(argv[0]);
    BothRuns both;
    for (int stock = 0; stock < 2; ++stock) {
        const std::string out = dir.file(stock ? "stock.out" : "patched.out");
        std::vector<std::string> cmd = {stock ? stock_valgrind() : valgrind(), "--tool=callgrind",
                                        "--callgrind-out-file=" + out};
        if (!stock) cmd.push_back("--trace-jit=yes");
        cmd.insert(cmd.end(), argv.begin(), argv.end());
        const Result r = run(cmd, RunOptions{600, dir.path(), {}});
        BOOST_TEST_REQUIRE(r.status == 0, r);
        BOOST_TEST_REQUIRE(contains(r.out, rt.output), r);
        (stock ? both.stock : both.patched) = Profile::parse_file(out);
        if (stock) continue;
        static const std::regex range(R"(JIT: creator 0x([0-9a-f]+)-0x([0-9a-f]+) )");
        for (std::sregex_iterator m(r.err.begin(), r.err.end(), range), end; m != end; ++m)
            both.creator_ranges.emplace_back(std::stoull((*m)[1], nullptr, 16),
                                             std::stoull((*m)[2], nullptr, 16));
        // A runtime that names its code when asked: the flag, once.
        if (rt.hint.empty())
            BOOST_TEST(!contains(r.err, "code ran without names"), r.err);
        else
            BOOST_TEST(count_of(r.err, "JIT: " + rt.hint + "'s code ran without names") == 1u,
                       r.err);
    }
    return both;
}

/// Nothing of the JIT code is left named by its address: no
/// address-named function of the patched run is in a range that got a
/// creator, and what is left (PLT stubs of objects without symbols for
/// them, the preloaded core object's _fini) is so in stock's run too.
void check_nothing_left_by_address(const BothRuns& both) {
    const auto stock_split = address_named_entries(both.stock);
    // The same two objects for every runtime: read once.
    static const std::uint64_t fini = preload_fini(valgrind()),
                               stock_fini = preload_fini(stock_valgrind());
    std::ostringstream left, in_jit_code;
    for (const std::uint64_t a : address_named_entries(both.patched)) {
        if (!stock_split.count(a) && !stock_split.count(a - fini + stock_fini))
            left << " " << std::hex << a;
        for (const auto& [first, last] : both.creator_ranges)
            if (a >= first && a <= last) in_jit_code << " " << std::hex << a;
    }
    BOOST_TEST(left.str().empty(), "address-named here only:" << left.str());
    BOOST_TEST(in_jit_code.str().empty(), "address-named in JIT code:" << in_jit_code.str());
}

/// Stock's structure kept: one function per entry, named after the
/// runtime, as many as stock split.
void check_stock_structure(const Unannounced& rt, const BothRuns& both) {
    const auto entries = creator_entries(both.patched, rt.creator);
    const auto stock_split = address_named_entries(both.stock);
    auto kept = address_named_entries(both.patched);  // PLT stubs: address-named in both
    kept.insert(entries.begin(), entries.end());
    // One creator, the runtime's object: no memory routine.
    BOOST_TEST(creator_names(both.patched) == std::set<std::string>{rt.creator});
    BOOST_TEST(entries.size() >= 2u);
    // The code at the addresses stock named: the same JIT code, within
    // the noise of two runs of a runtime with threads (a method compiled
    // in one run and not the other).
    std::size_t same = 0;
    for (const std::uint64_t a : entries) same += stock_split.count(a);
    if (!rt.random_addresses)
        BOOST_TEST(10 * same >= 9 * entries.size(), same << " of " << entries.size());
    // As many functions as stock's split, but for Node: V8's baseline
    // code calls a prologue builtin that returns below its caller's
    // frame; stock Callgrind takes the return for a second call and
    // splits there, Callgrind here counts one call (jitret.c).
    const std::size_t tenths = rt.label == "node" ? 7 : 9;
    BOOST_TEST(10 * kept.size() >= tenths * stock_split.size(),
               kept.size() << " of stock's " << stock_split.size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(unannounced_runtime_code_keeps_stock_structure_named_after_the_runtime,
                     *boost::unit_test::precondition(unannounced_available) *
                         boost::unit_test::precondition(stock_valgrind_available)) {
    for (const Unannounced& rt : unannounced_runtimes()) {
        BOOST_TEST_CONTEXT(rt.label) {
            TempDir dir;
            const BothRuns both = run_both(rt, dir);
            check_nothing_left_by_address(both);
            check_stock_structure(rt, both);
        }
    }
}

BOOST_AUTO_TEST_CASE(bun_jitdump_mapped_before_its_header_names_its_code,
                     *boost::unit_test::precondition(bun_available)) {
    // JavaScriptCore writes DIR/jit-<tid>-<pid>.dump, mapped executable
    // while still empty: followed once its header is there.  Bun's records
    // name thunks and inline caches ("JSC-Thunk: ...").
    TempDir dir;
    write_file(dir.file("fib.js"),
               "function fib(n){return n<2?n:fib(n-1)+fib(n-2)}\n"
               "let s=0; for(let i=0;i<20;i++) s+=fib(18); console.log(s)\n");
    const std::string out = dir.file("callgrind.out");
    const Result r = run_valgrind(
        {"--tool=callgrind", "-v", "--callgrind-out-file=" + out},
        {bun_binary(), dir.file("fib.js")},
        RunOptions{600,
                   dir.path(),
                   {{"BUN_JSC_useJITDump", "1"}, {"BUN_JSC_jitDumpDirectory", dir.path()}}});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "51680"), r);
    static const std::regex followed(
        R"(JIT: jitdump file (\S+/jit-\d+-\d+\.dump): (\d+) records read: (\d+) loaded, 0 moved, 0 refused, 0 malformed)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, followed), r.err);
    BOOST_TEST(std::stoul(m[3]) > 0u);
    const std::string dump = m[1];
    const Profile p = Profile::parse_file(out);
    std::size_t named = 0;
    for (const auto& [key, f] : p.functions())
        if (key.object == dump && key.name.rfind("JSC-", 0) == 0) ++named;
    BOOST_TEST(named > 0u, r.err);
}

BOOST_AUTO_TEST_CASE(javascriptcore_jitdump_names_each_tier_of_fib,
                     *boost::unit_test::precondition(unannounced_available)) {
    // WebKitGTK's jsc with JSC_useJITDump=1: JavaScriptCore writes
    // DIR/jit-PID.dump from a thread of its own and maps it, so it is
    // followed with no Valgrind option.  That thread runs in turns with
    // the program's under Valgrind: a program this long (300 rounds of
    // fib(18)) lets it write every tier's code.
    TempDir dir;
    write_file(dir.file("fib.js"),
               "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
               "let s = 0; for (let i = 0; i < 300; i++) s += fib(18); print(s);\n");
    const std::string out = dir.file("callgrind.out");
    const Result r = run_valgrind(
        {"--tool=callgrind", "-v", "--callgrind-out-file=" + out}, {find_on_path("jsc"), "fib.js"},
        RunOptions{
            600, dir.path(), {{"JSC_useJITDump", "1"}, {"JSC_jitDumpDirectory", dir.path()}}});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.out, "775200"), r);
    static const std::regex followed(
        R"(JIT: jitdump file (\S+/jit-\d+\.dump): (\d+) records read: (\d+) loaded, 0 moved, 0 refused, 0 malformed)");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.err, m, followed), r.err);
    const std::string dump = m[1];
    // fib at each tier that ran it ("JSC-Baseline: fib#HASH",
    // "JSC-DFG: ...", "JSC-FTL: ..."), holding most of the run.
    static const std::regex tier(R"(JSC-(\w+): fib#\w+('\d+)?)");
    const Profile p = Profile::parse_file(out);
    std::set<std::string> tiers;
    std::uint64_t fib_ir = 0;
    for (const auto& [key, f] : p.functions()) {
        std::smatch t;
        if (key.object != dump || !std::regex_match(key.name, t, tier)) continue;
        tiers.insert(t[1]);
        fib_ir += f.self.at(0);
    }
    BOOST_TEST(tiers.size() >= 2u, r.err);
    BOOST_TEST(tiers.count("Baseline") == 1u);
    BOOST_TEST(10 * fib_ir >= 4 * p.totals().at(0), fib_ir << " of " << p.totals().at(0));
}
