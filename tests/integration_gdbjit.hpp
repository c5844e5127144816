// integration_gdbjit.hpp - what the files of integration_gdbjit share:
// tests/gdbjit and its modules, Callgrind's and Cachegrind's profiles of
// a program with their functions and lines, clang-14, and the frames of a
// Memcheck error.  integration_gdbjit.cpp says what the program holds.

#ifndef VGJIT_TESTS_INTEGRATION_GDBJIT_HPP
#define VGJIT_TESTS_INTEGRATION_GDBJIT_HPP

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gdbjit_test {

namespace cg = vgjit::callgrind;
using vgjit::test::Result;
using vgjit::test::TempDir;

/// tests/gdbjit, the JIT that registers the module objects.
std::string gdbjit();
/// tests/gdbjit_module_a.o.
std::string module_a();
/// tests/gdbjit_module_b.o.
std::string module_b();

/// tests/gdbjit MODE with both modules.
std::vector<std::string> program(const std::string& mode);

/// Runs `prog` under Callgrind (with `extra` options) and parses the profile.
cg::Profile callgrind(const TempDir& dir, const std::vector<std::string>& prog,
                      std::vector<std::string> extra = {}, Result* result = nullptr);

/// Functions named `name` (any recursion level), as (object, file) keys.
std::vector<cg::FunctionKey> named(const cg::Profile& p, const std::string& name);

/// Self cost (event 0) per (source file's last path component, line) of
/// the functions named `name` (any recursion level) in `p`.
std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> line_costs(const cg::Profile& p,
                                                                          const std::string& name);

/// Runs `prog` under Cachegrind (no cache simulation) and parses its output.
cg::Profile cachegrind(const TempDir& dir, const std::vector<std::string>& prog);

/// Number of calls fib(n) makes of itself, the first call included.
std::uint64_t fib_calls(int n);

/// Whether `path` is executable.
bool executable(const std::string& path);

/// Debian's clang-14.
inline const std::string kClang = "/usr/bin/clang-14";

/// The frames ("fn (file:line)", the file without its directory) of the
/// first Memcheck error in `err` whose first line contains `what`, down to
/// the first frame of `main`.
std::vector<std::string> error_frames(const std::string& err, const std::string& what);

}  // namespace gdbjit_test

#endif
