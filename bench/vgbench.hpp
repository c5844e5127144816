// vgbench.hpp: what the files of vgbench, the driver of `make bench`, share:
// its options, the commands it runs and their samples (measure.cpp), the
// statistics, the table being built (table.cpp), and each row of the table
// (row_*.cpp, called by vgbench.cpp's main in the order of the table).
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace vgbench {

/// The command line (see vgbench.cpp).
struct Options {
    std::string patched, stock, jitbench, bzip2, workdir;
    std::string inner_stock, inner_patched;  // self-hosting vg-in-place; "" = skip the counted rows
    std::string vg_jit, python, node;        // row 9 ("" = none)
    int repeats = 5;
    int invocations = 3;  // whole runs of the chosen rows, combined in one table
    unsigned long lookup_max = 1000000;
    unsigned long stock_lookup_max = 100000;
    std::set<int> only;   // empty: all rows
    std::string commit;   // what was measured (for the table's header)
    std::string results;  // results file to merge this run's rows into; "" = none
    std::string flags;    // the BENCH_FLAGS of this run, quoted in the results file
};

/// One command to time.  Its stdout is parsed for key=value lines unless
/// discard_stdout is set; its stderr goes to WORKDIR/<log>.log.
struct Cmd {
    std::string log;
    std::vector<std::string> argv;
    bool discard_stdout = false;
};

/// One run: whole-process wall time and the key=value lines it printed.
struct Sample {
    double wall_s = 0;
    double cpu_s = 0;      // user + system time of the process and its children
    double maxrss_kb = 0;  // peak resident set of the process (wait4)
    std::map<std::string, double> kv;
};

/// One line of the table.
struct Row {
    std::string id, what, runs, base, patched, result, target, verdict;
};

/// The options of this run (set by main).
extern const Options* g_opt;
/// The lines of the table being built, in order.
extern std::vector<Row> g_rows;
/// The notes under the table.
extern std::vector<std::string> g_notes;

/// Whether row `row` is to run (--only).
bool wanted(int row);

// Running commands (measure.cpp).

/// The monotonic clock, in seconds.
double now_s();
/// WORKDIR/<log>.log, where cmd's stderr goes.
std::string log_path(const Cmd& cmd);
/// Runs cmd in the work directory; throws with the log's path on failure.
/// *started, if given, is the pid it ran as.
Sample run_once(const Cmd& cmd, pid_t* started = nullptr);
/// Runs a and b reps times each, in pairs started together on two CPUs
/// (swapped every pair; one after the other with one CPU).  Both must
/// have discard_stdout set.
std::pair<std::vector<Sample>, std::vector<Sample>> run_pairs(const Cmd& a, const Cmd& b, int reps);
/// Runs the commands in rotation (A B C A B C ...) `reps` times; result[i]
/// holds command i's samples.  `what` names the rotation in the progress
/// line.
std::vector<std::vector<Sample>> rotate(const std::string& what, const std::vector<Cmd>& cmds,
                                        int reps);
/// The command line that runs prog under `valgrind --tool=tool` with the
/// options `extra`, quiet, its profile (Callgrind, Cachegrind) discarded.
std::vector<std::string> vg(const std::string& valgrind, const std::string& tool,
                            std::vector<std::string> extra, std::vector<std::string> prog);
/// The total Ir of a Cachegrind output file (its "summary:" line).
double cachegrind_total(const std::string& path);
/// The instructions a self-hosting Valgrind (`inner`, its vg-in-place)
/// executes running prog under tool, counted by an outer Cachegrind (the
/// stock Valgrind).  label names the run's log.
double inner_instructions(const std::string& inner, const std::string& tool,
                          const std::string& label, const std::vector<std::string>& prog);
/// Adds the machine row `row_id` (no target): what this machine charges
/// for a page a process touches for the first time (rows 2 and 3).
void page_cost_row(const std::string& row_id);

// Statistics (measure.cpp).

/// The median of v (NAN if empty).
double median(std::vector<double> v);
/// The largest value over the smallest: how far apart a set of figures is.
double max_over_min(const std::vector<double>& v);
/// The median of the key=value figure `key` over the runs; throws if a
/// run did not print it.
double median_of(const std::vector<Sample>& s, const std::string& key);
/// The median wall time of the runs.
double median_wall(const std::vector<Sample>& s);
/// The smallest and the largest figure `key` of the runs.
double min_of(const std::vector<Sample>& s, const std::string& key);
double max_of(const std::vector<Sample>& s, const std::string& key);
/// The distribution-free confidence interval at `level` of the median of
/// v; {NAN, NAN} when v has too few values for the level.
std::pair<double, double> median_interval(std::vector<double> v, double level);

// The table (table.cpp).

/// v formatted by the printf format f.
std::string fmt(const char* f, double v);
/// n as "10^K" when it is a power of ten from 1000 on, else in digits.
std::string p10(unsigned long n);
/// Adds the note that `row` missed its target.
void missed_note(const std::string& row);
/// "met" or "**MISSED**".
std::string verdict(bool met);
/// The verdict of a time line whose 95% interval spans its target on this
/// machine, when the same row has a counted line with the target in
/// seconds: that line decides.
inline const std::string kWithinNoise = "within noise: the counted line decides";
/// The rows of several invocations of the same rows, combined row by row:
/// every invocation's figures side by side, and a verdict met only when
/// every invocation met the target.
std::vector<Row> combine(const std::vector<std::vector<Row>>& invocations);
/// g_rows and g_notes as a Markdown table with its notes.
std::string table();
/// The machine: CPUs, memory, operating system.
std::string machine();
/// Merges the rows of this run into the results file `path` (each
/// "## Row N" section this run measured replaced, under `header`);
/// false, with a message, if the file cannot be written.
bool merge_results(const std::string& path, const std::string& header);

// The rows, in the order of the table.

void row_nojit();                  ///< 1 (row_nojit.cpp)
void row_register();               ///< 2 and 4 (row_register.cpp)
void row_register_instructions();  ///< 2, counted (row_register.cpp)
void row_lookup();                 ///< 3 (row_lookup.cpp)
void row_jitdump();                ///< 5 (row_jitdump.cpp)
void row_native();                 ///< 6 (row_native.cpp)
void row_gdb();                    ///< 7 (row_gdb.cpp)
void row_late();                   ///< 8 (row_late.cpp)
void row_export();                 ///< 9 (row_export.cpp)
void row_creator();                ///< 10 (row_creator.cpp)
void row_creator_instructions();   ///< 10, counted (row_creator.cpp)
void row_contexts();               ///< 11 (row_contexts.cpp)

}  // namespace vgbench
