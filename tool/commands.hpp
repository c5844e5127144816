// commands.hpp: the vg-jit subcommands.  Each takes the arguments after
// its name and returns the process exit status (0 clean, 1 problems found,
// 2 usage error); usage errors are reported by the caller's parser.
#pragma once

#include "analyze.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace vgjit {

/// Exit statuses shared by every subcommand.
enum ExitStatus { kExitClean = 0, kExitProblems = 1, kExitUsage = 2 };

struct CheckOptions {
    AnalyzeOptions analyze;
    bool strict = false;  ///< warnings count as problems
    bool quiet = false;   ///< no per-file summary line
};

/// `vg-jit check FILE...`: prints problems as FILE:WHERE: severity: text.
int run_check(const std::vector<std::string>& files, const CheckOptions& opts, std::ostream& out);

struct DumpOptions {
    AnalyzeOptions analyze;
    bool json = false;
};

/// `vg-jit dump FILE`: lists every record / entry (text or JSON).
int run_dump(const std::string& file, const DumpOptions& opts, std::ostream& out);

/// Formats a problem the way `check` prints it (without newline).
std::string format_problem(const std::string& file, const Problem& p);

}  // namespace vgjit
