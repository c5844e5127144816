// integration_export.hpp - what the files of integration_export share:
// minijit's profiles of examples/calls.mj taken once per test program,
// `vg-jit export` run on a profile, the functions a MiniJit source
// defines, and folded stacks read back.  integration_export.cpp says what
// the program holds.

#ifndef VGJIT_TESTS_INTEGRATION_EXPORT_HPP
#define VGJIT_TESTS_INTEGRATION_EXPORT_HPP

#include "test_support.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace export_test {

using vgjit::test::Result;
using vgjit::test::TempDir;

/// examples/NAME in the source tree.
std::string example(const std::string& name);

/// The object minijit gives the functions it compiles from `file`.
std::string jit_object(const std::string& file);

/// A scratch directory for the whole test program.
const TempDir& tmp();

/// Profiles calls.mj under the staged Callgrind with `extra` options,
/// once per distinct `name`; returns the profile's path.
std::string callgrind_profile(const std::string& name, const std::vector<std::string>& extra);

/// calls.mj's profile without contexts.
std::string plain_profile();
/// Contexts deep enough for the whole call chain of calls.mj's code
/// except its deepest recursions.
std::string context_profile();

/// Runs vg-jit export; returns the result.
Result export_profile(const std::vector<std::string>& args);

/// Functions defined in a MiniJit source ("fn NAME(").
std::vector<std::string> defined_functions(const std::string& source);

/// The frame that stands for callers a stack leaves out.
inline const std::string kUnknownCallers = "[unknown callers]";

/// Folded stacks: each line's frames (root first) and weight.
std::vector<std::pair<std::vector<std::string>, std::uint64_t>> folded(const std::string& text);

}  // namespace export_test

#endif
