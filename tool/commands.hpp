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

/// Options of `vg-jit annotate`.
struct AnnotateOptions {
    std::vector<std::string> maps;  ///< jitdump files / perf maps, in order
    std::string profile;            ///< the Callgrind profile to rewrite
    std::string output;             ///< output path; "" or "-": stdout
    bool verbose = false;           ///< statistics on stderr
};

/// `vg-jit annotate`: rewrites the address-named pseudo-functions of a
/// Callgrind profile (unpatched Valgrind) that lie in ranges named by the
/// maps (see the manual text in main.cpp).  Diagnostics go to stderr.
int run_annotate(const AnnotateOptions& opts);

/// Formats a problem the way `check` prints it (without newline).
std::string format_problem(const std::string& file, const Problem& p);

}  // namespace vgjit
