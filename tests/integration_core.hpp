// integration_core.hpp - what the files of integration_core share:
// tests/testjit's command lines and the statuses it prints, Valgrind's
// options for each tool's output, and what a Callgrind profile says of
// functions and calls.  integration_core.cpp says what the program holds.

#ifndef VGJIT_TESTS_INTEGRATION_CORE_HPP
#define VGJIT_TESTS_INTEGRATION_CORE_HPP

#include "callgrind_profile.hpp"
#include "test_support.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace core_test {

namespace cg = vgjit::callgrind;
using vgjit::test::Result;
using vgjit::test::TempDir;

/// The object testjit registers its functions in.
inline const std::string kObject = "testjit-obj";

/// tests/fixtures/testjit.src, absolute: the source file testjit names.
std::string source();

/// testjit's arguments for `mode`, with the real source file.
std::vector<std::string> program(const std::string& mode);

/// "status WHAT RET ERR" lines that testjit writes to stderr.
struct Status {
    unsigned long ret = 0;
    int err = -1;
};
/// The status lines of `err`, by WHAT.
std::map<std::string, Status> statuses(const std::string& err);

/// Runs testjit under Callgrind and parses the profile.
cg::Profile callgrind_profile(const TempDir& dir, const std::string& mode,
                              std::vector<std::string> extra = {});

/// The first function of `p` named `name`; throws std::runtime_error if
/// there is none.
const cg::FunctionCosts& function(const cg::Profile& p, const std::string& name);

/// Valgrind options that make `tool` write its output file into `dir`.
std::vector<std::string> tool_args(const std::string& tool, const TempDir& dir,
                                   std::vector<std::string> extra = {});

/// Calls into functions named `name` (any recursion depth), by caller name.
std::map<std::string, std::uint64_t> calls_into_by_caller(const cg::Profile& p,
                                                          const std::string& name);

/// The sum of the values of `m`.
std::uint64_t sum(const std::map<std::string, std::uint64_t>& m);

/// The calls between functions of ELF objects (absolute paths; neither
/// side address-named), by (caller object, caller, callee object, callee).
std::map<std::vector<std::string>, std::uint64_t> elf_edges(const cg::Profile& p);

}  // namespace core_test

#endif
