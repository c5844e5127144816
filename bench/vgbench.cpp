// vgbench: the driver of `make bench`.  Runs bench/jitbench (and bzip2)
// natively, under the patched Valgrind (stage/bin/valgrind) and under the
// unpatched Valgrind of the same release (build/stock-install/bin/valgrind),
// and prints one Markdown table to stdout (also written to
// WORKDIR/bench-table.md).  Progress goes to stderr.
//
// This file reads the command line and runs the chosen rows in the order
// of the table, each row in a row_*.cpp; the running of commands and the
// statistics are in measure.cpp, the table and the results file in
// table.cpp, and what they share in vgbench.hpp.
//
// Method: every figure is the median of R runs (R >= 5 unless a row says
// otherwise); the sides of a comparison run alternately in one loop
// (A B A B ..., or A B C A B C ...), so slow drifts of the machine hit
// both sides alike.  Times measured inside the client (CLOCK_MONOTONIC
// around the loop of interest) are used where Valgrind's start-up would
// otherwise dominate; whole-run wall times elsewhere.
//
// Usage: vgbench --patched=VALGRIND --stock=VALGRIND --jitbench=PATH
//                --bzip2=PATH --workdir=DIR [--repeats=R]
//                [--lookup-max=N] [--only=LIST]
//                [--inner-stock=VG-IN-PLACE --inner-patched=VG-IN-PLACE]
//   --inner-*     self-hosting builds (--enable-inner) of the stock and the
//                 patched Valgrind: rows 1 and 2 also count their own
//                 instructions under an outer Cachegrind (the --stock
//                 Valgrind)
//   --repeats     runs per side (default 5, minimum 5)
//   --lookup-max  largest N of the Callgrind lookup rows (default 1000000)
//   --stock-lookup-max
//                 largest N run on the stock side of those rows (default
//                 100000: stock's time per new function grows with N)
//   --only        comma-separated subset of rows to run: 1,2,3,4,5,6,7,8,9,10,11
//                 (4 needs 2's largest run and is run with it)
//   --vg-jit, --python, --node
//                 row 9: vg-jit, a CPython 3.13 and a Node binary whose
//                 profiles it exports (a profile whose program is missing is
//                 left out, with a note)
//   --commit      what is measured (e.g. a git commit), named in the header
//   --results=FILE  also merges this run's rows into FILE (bench/results.md
//                 for `make bench`): one section per row, each replaced by
//                 the last run that measured that row, with its date,
//                 commit, machine and command; rows not run keep theirs
//   --flags=TEXT  the BENCH_FLAGS of this run, quoted in FILE's command
//   --invocations K  runs the chosen rows K times in a row (default 3) and
//                 prints one table: each row's results of every invocation
//                 side by side, and a verdict that is met only when the row
//                 met its target in every invocation (each invocation's own
//                 table is left in WORKDIR/bench-table-<I>.md)
// Exit status: 0 when every run succeeded (whether or not targets are met),
// 1 when a run failed (its Valgrind log is named), 2 on a usage error.

#include "vgbench.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace vgbench {

const Options* g_opt = nullptr;

bool wanted(int row) { return g_opt->only.empty() || g_opt->only.count(row) > 0; }

}  // namespace vgbench

using namespace vgbench;

namespace {

bool starts(const std::string& a, const char* p, std::string& rest) {
    const std::size_t n = std::strlen(p);
    if (a.compare(0, n, p) != 0) return false;
    rest = a.substr(n);
    return true;
}

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr,
                 "vgbench: %s\nusage: vgbench --patched=VALGRIND --stock=VALGRIND "
                 "--jitbench=PATH --bzip2=PATH --workdir=DIR [--inner-stock=VG-IN-PLACE "
                 "--inner-patched=VG-IN-PLACE] [--repeats=R>=5] [--invocations=K>=1] "
                 "[--lookup-max=N] [--stock-lookup-max=N] [--only=1,2,...] [--results=FILE] "
                 "[--flags=TEXT] [--vg-jit=PATH] [--python=PATH] [--node=PATH]\n",
                 why.c_str());
    std::exit(2);
}

/// The options of the command line; exits through usage() on an unknown
/// argument.
Options parse_options(int argc, char** argv) {
    Options opt;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        std::string v;
        if (starts(a, "--patched=", v))
            opt.patched = v;
        else if (starts(a, "--stock=", v))
            opt.stock = v;
        else if (starts(a, "--jitbench=", v))
            opt.jitbench = v;
        else if (starts(a, "--bzip2=", v))
            opt.bzip2 = v;
        else if (starts(a, "--workdir=", v))
            opt.workdir = v;
        else if (starts(a, "--commit=", v))
            opt.commit = v;
        else if (starts(a, "--results=", v))
            opt.results = v;
        else if (starts(a, "--flags=", v))
            opt.flags = v;
        else if (starts(a, "--inner-stock=", v))
            opt.inner_stock = v;
        else if (starts(a, "--inner-patched=", v))
            opt.inner_patched = v;
        else if (starts(a, "--vg-jit=", v))
            opt.vg_jit = v;
        else if (starts(a, "--python=", v))
            opt.python = v;
        else if (starts(a, "--node=", v))
            opt.node = v;
        else if (starts(a, "--repeats=", v))
            opt.repeats = std::atoi(v.c_str());
        else if (starts(a, "--invocations=", v))
            opt.invocations = std::atoi(v.c_str());
        else if (starts(a, "--lookup-max=", v))
            opt.lookup_max = std::strtoul(v.c_str(), nullptr, 10);
        else if (starts(a, "--stock-lookup-max=", v))
            opt.stock_lookup_max = std::strtoul(v.c_str(), nullptr, 10);
        else if (starts(a, "--only=", v)) {
            std::istringstream in(v);
            std::string t;
            while (std::getline(in, t, ',')) opt.only.insert(std::atoi(t.c_str()));
        } else
            usage("unknown argument " + a);
    }
    return opt;
}

/// Exits through usage() when an argument is missing or out of range, or
/// a program is not executable.
void check_options(const Options& opt) {
    if (opt.patched.empty() || opt.stock.empty() || opt.jitbench.empty() || opt.bzip2.empty() ||
        opt.workdir.empty())
        usage("missing argument");
    if (opt.repeats < 5) usage("--repeats must be at least 5");
    if (opt.invocations < 1) usage("--invocations must be at least 1");
    for (const auto* p : {&opt.patched, &opt.stock, &opt.jitbench, &opt.bzip2})
        if (access(p->c_str(), X_OK) != 0) usage(*p + " is not executable");
    if (!opt.inner_stock.empty() && opt.inner_patched.empty())
        usage("--inner-stock needs --inner-patched");
    for (const auto* p : {&opt.inner_stock, &opt.inner_patched})
        if (!p->empty() && access(p->c_str(), X_OK) != 0) usage(*p + " is not executable");
}

/// Runs the chosen rows, in the order of the table, opt.invocations times
/// (each invocation's own table left in WORKDIR/bench-table-I.md); g_rows
/// becomes their combination.  Throws when a run failed.
void run_invocations(const Options& opt) {
    std::vector<std::vector<Row>> invocations;
    for (int inv = 1; inv <= opt.invocations; ++inv) {
        std::fprintf(stderr, "vgbench: invocation %d of %d\n", inv, opt.invocations);
        g_rows.clear();
        if (wanted(1)) row_nojit();
        if (wanted(2) || wanted(4)) row_register();
        if (wanted(2) && !g_opt->inner_patched.empty()) row_register_instructions();
        if (wanted(3)) row_lookup();
        if (wanted(5)) row_jitdump();
        if (wanted(6)) row_native();
        if (wanted(7)) row_gdb();
        if (wanted(8)) row_late();
        if (wanted(9)) row_export();
        if (wanted(10)) row_creator();
        if (wanted(10) && !g_opt->inner_patched.empty()) row_creator_instructions();
        if (wanted(11)) row_contexts();
        std::ofstream(opt.workdir + "/bench-table-" + std::to_string(inv) + ".md") << table();
        invocations.push_back(g_rows);
    }
    g_rows = combine(invocations);
}

/// The combined table under its header: when (`date`) and where it was
/// measured, how long `make bench` took (`seconds`), and how to read it.
std::string report(const Options& opt, const std::string& date, double seconds) {
    std::ostringstream out;
    out << "Measured " << date << (opt.commit.empty() ? "" : " at commit " + opt.commit)
        << ".  Machine: " << machine() << ".  `make bench` took " << fmt("%.0f", seconds)
        << " s.  Baseline: unpatched Valgrind 3.27.1 (build/stock-install) unless the row "
           "says otherwise; Patched: stage/bin/valgrind.  Figures are medians; Runs = "
           "invocations x runs per side, alternated; where a row has several figures, they "
           "are those of invocations 1, 2, ... in order, and its verdict is met only when "
           "every invocation met the target.\n\n"
        << table();
    return out.str();
}

/// The header line of this run's sections in the results file.
std::string results_header(const Options& opt, const std::string& date) {
    const std::string cmd =
        opt.flags.empty() ? "`make bench`" : "`make bench BENCH_FLAGS='" + opt.flags + "'`";
    return "Measured " + date + (opt.commit.empty() ? "" : " at commit " + opt.commit) + " with " +
           cmd + " (" + std::to_string(opt.invocations) + " invocation" +
           (opt.invocations == 1 ? "" : "s") +
           "; figures of several invocations in order, met only if met in each). Machine: " +
           machine() + ".";
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    check_options(opt);
    mkdir(opt.workdir.c_str(), 0755);
    g_opt = &opt;

    const double t0 = now_s();
    try {
        run_invocations(opt);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vgbench: %s\n", e.what());
        return 1;
    }
    // A row that missed in several invocations left its note once each.
    std::sort(g_notes.begin(), g_notes.end());
    g_notes.erase(std::unique(g_notes.begin(), g_notes.end()), g_notes.end());
    char date[32] = "?";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    const std::string out = report(opt, date, now_s() - t0);
    std::cout << out;
    std::ofstream(opt.workdir + "/bench-table.md") << out;
    if (!opt.results.empty()) {
        if (!merge_results(opt.results, results_header(opt, date))) return 1;
        std::fprintf(stderr, "vgbench: results merged into %s\n", opt.results.c_str());
    }
    return 0;
}
