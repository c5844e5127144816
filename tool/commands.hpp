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

/// Options of `vg-jit check`.
struct CheckOptions {
    AnalyzeOptions analyze;
    bool strict = false;  ///< warnings count as problems
    bool quiet = false;   ///< no per-file summary line
};

/// `vg-jit check FILE...`: prints problems as FILE:WHERE: severity: text.
int run_check(const std::vector<std::string>& files, const CheckOptions& opts, std::ostream& out);

/// Options of `vg-jit dump`.
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

/// Options of `vg-jit export`.
struct ExportCmdOptions {
    std::vector<std::string> profiles;  ///< Callgrind/Cachegrind files of one run, in order
    std::string format = "firefox";     ///< "firefox" or "folded"
    std::string event = "Ir";           ///< the event whose counts are the weights
    std::string output;                 ///< output path; "" or "-": stdout
    bool verbose = false;               ///< a summary line on stderr
};

/// `vg-jit export`: converts the profiles into the Firefox Profiler's
/// processed format or folded stacks (profile_export.hpp).  A malformed or
/// truncated profile is reported with its line number and nothing is
/// written (kExitProblems).
int run_export(const ExportCmdOptions& opts);

/// Options of `vg-jit profiles`.
struct ProfilesOptions {
    std::vector<std::string> inputs;  ///< profiles, and directories holding them
    std::string event;                ///< "": the first event of the first profile
    bool json = false;
};

/// `vg-jit profiles`: lists the processes of the profiles (one per
/// "pid:") with their total cost and the part of it in JIT code (the
/// category of `vg-jit export`), by that part, as a table or JSON.  A
/// malformed or unreadable profile is reported and nothing is listed
/// (kExitProblems).
int run_profiles(const ProfilesOptions& opts, std::ostream& out);

/// Whether `path` starts with the ELF magic (an object of the GDB JIT
/// interface); false if it cannot be read.
bool is_elf_file(const std::string& path);

/// `vg-jit dump [--json] OBJECT`: the object's kind and machine, its
/// executable sections, its functions as the core registers them and what
/// debug data covers them, then its problems.  Returns kExitProblems if it
/// has errors, else kExitClean.
int dump_elf(const std::string& file, bool json, std::ostream& out);

/// `vg-jit check OBJECT`: prints the object's problems in the check format
/// and (unless quiet) a summary line; true if it is clean (no errors, and
/// with strict no warnings).
bool check_elf(const std::string& file, const CheckOptions& opts, std::ostream& out);

/// Formats a problem the way `check` prints it (without newline).
std::string format_problem(const std::string& file, const Problem& p);

}  // namespace vgjit
