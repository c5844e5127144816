// row_jitdump.cpp: row 5 of vgbench, jitdump ingestion: 10^6 CODE_LOAD
// records read, decoded and registered, timed in the client and counted,
// and the kernel's part of it.
#include "vgbench.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace vgbench {

namespace {

// 5, counted: the instructions the Valgrind process executes per
// CODE_LOAD record it ingests (reading, decoding, registering), under the
// inner --tool=none: the slope between 10^4 and 10^5 records of the runs
// with --jit-dump=yes (waiting until the last record is registered) less
// that of the runs with --jit-dump=no, so that start-up, exit and the
// client's writing of the file cancel out.
double jitdump_instructions() {
    const unsigned long n1 = 10000, n2 = 100000;
    const double t0 = now_s();
    auto slope = [&](const std::string& on) {
        double c[2];
        int i = 0;
        for (const unsigned long n : {n1, n2})
            c[i++] = inner_instructions(g_opt->inner_patched, "none",
                                        "dump-" + on + "-" + std::to_string(n),
                                        {"--jit-dump=" + on, g_opt->jitbench, "dump",
                                         std::to_string(n), on == "yes" ? "wait" : "nowait"});
        return (c[1] - c[0]) / static_cast<double>(n2 - n1);
    };
    const double per_record = slope("yes") - slope("no");
    std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                 "5. jitdump ingestion under the inner none, counted", 2, now_s() - t0);
    return per_record;
}

// 5, derived: how much of the 100 ms that 10^6 records may take at
// 10^7 records a second the kernel takes, measured natively: the pages
// the Valgrind process faulted in over the ingestion (its getrusage)
// times what this machine charges for a fresh page (jitbench touch), plus
// reading the file from the page cache with pread (jitbench dump N read).
// What is left, at the rate the ingestion ran its instructions (counted
// instructions over user CPU time), says how many instructions a record
// may take for the target in this run (it moves with the machine's
// speed from run to run).
void kernel_part_row(unsigned long n, const std::vector<Sample>& ingest, double per_record) {
    Cmd touch{"touch-128MiB-row5", {g_opt->jitbench, "touch", "128"}};
    Cmd read{"dump-read", {g_opt->jitbench, "dump", std::to_string(n), "read"}};
    const int reps = std::max(5, g_opt->repeats);
    const auto t = rotate("5. fresh pages and reading the file, natively", {touch, read}, reps);
    const double page_us = median_of(t[0], "loop_ns") / median_of(t[0], "pages") / 1000.0;
    const double faults = median_of(ingest, "ingest_minor_faults");
    const double fault_ms = faults * page_us / 1000.0;
    const double read_ms = median_of(t[1], "read_ns") * 1e-6;
    const double kernel_ms = fault_ms + read_ms;
    const double budget_ms = static_cast<double>(n) / 1e7 * 1e3;
    const double user_ms = median_of(ingest, "ingest_user_ns") * 1e-6;
    const double left_ms = budget_ms - kernel_ms;
    const std::string fits = left_ms <= 0
                                 ? std::string("none: the kernel's part alone exceeds it")
                                 : fmt("%.0f Ir per record", per_record * left_ms / user_ms);
    g_rows.push_back(
        {"5",
         "(derived, no target) the kernel's part of ingesting " + p10(n) +
             " records, natively: the pages the process faulted in over it (" +
             fmt("%.0f", faults) + ", getrusage) at " + fmt("%.2f", page_us) +
             " us a fresh page (jitbench touch), plus reading the file with pread (jitbench dump "
             "N read); what the rest of " +
             fmt("%.0f", budget_ms) +
             " ms holds at the rate this run executed its instructions (counted Ir over user "
             "CPU time)",
         std::to_string(reps) + "+" + std::to_string(reps), "",
         fmt("%.1f ms", fault_ms) + " + " + fmt("%.1f ms", read_ms) + " = " +
             fmt("%.1f ms", kernel_ms),
         fits + fmt(" (now %.0f)", per_record), "-", "-"});
}

}  // namespace

// 5. jitdump ingestion.
void row_jitdump() {
    const unsigned long n = 1000000;
    const std::string N = std::to_string(n);
    Cmd off{"dump-no",
            vg(g_opt->patched, "none", {"--jit-dump=no"}, {g_opt->jitbench, "dump", N, "nowait"})};
    Cmd on{"dump-yes",
           vg(g_opt->patched, "none", {"--jit-dump=yes"}, {g_opt->jitbench, "dump", N, "wait"})};
    const auto res =
        rotate("5. jitdump ingestion, " + p10(n) + " CODE_LOAD", {off, on}, g_opt->repeats);
    if (min_of(res[1], "last_ok") != 1 || min_of(res[1], "first_ok") != 1)
        throw std::runtime_error("jitdump records were not all registered (see dump-yes.log)");
    if (min_of(res[0], "last_ok") != 0)
        throw std::runtime_error("--jit-dump=no registered records (see dump-no.log)");
    // The verdict is the client's own time from mapping the file to its
    // last record registered: that is the reading, decoding and
    // registering of every record. The whole runs last about 2.5 s each
    // (the client writing 97 MB under Valgrind) and vary by more than
    // the 0.1 to 0.2 s the ingestion takes, so their difference is given
    // without a target.
    const double woff = median_wall(res[0]), won = median_wall(res[1]);
    const double inside = static_cast<double>(n) / (median_of(res[1], "ingest_ns") * 1e-9);
    const double per_record = g_opt->inner_patched.empty() ? -1 : jitdump_instructions();
    g_rows.push_back(
        {"5",
         "jitdump ingestion: " + p10(n) + " CODE_LOAD records (" +
             fmt("%.0f", median_of(res[1], "file_bytes") / 1e6) +
             " MB file), --tool=none, in the client from mmap to the last record "
             "registered (its median time; user + system CPU of the process over it: " +
             fmt("%.0f", median_of(res[1], "ingest_user_ns") * 1e-6) + " + " +
             fmt("%.0f", median_of(res[1], "ingest_sys_ns") * 1e-6) +
             " ms, the system part the kernel copying the file out and faulting in new "
             "memory)" +
             (per_record < 0 ? std::string("; counted: not run, no self-hosting build")
                             : "; counted: " + fmt("%.0f", per_record) +
                                   " Ir per record, the Valgrind process under an outer "
                                   "Cachegrind, slope from 10^4 to 10^5 records") +
             " (baseline: the same run with --jit-dump=no)",
         std::to_string(g_opt->repeats) + "+" + std::to_string(g_opt->repeats),
         fmt("%.1f ms", median_of(res[0], "ingest_ns") * 1e-6),
         fmt("%.1f ms", median_of(res[1], "ingest_ns") * 1e-6),
         fmt("%.3g rec/s", inside) +
             (per_record < 0 ? std::string() : fmt(", %.0f Ir/rec", per_record)),
         ">= 10^7 rec/s", verdict(inside >= 1e7)});
    if (per_record > 0) kernel_part_row(n, res[1], per_record);
    g_rows.push_back({"5",
                      "(no target) the same, whole runs' wall time, --jit-dump=no vs yes "
                      "(medians; the runs vary by more than the difference)",
                      std::to_string(g_opt->repeats) + "+" + std::to_string(g_opt->repeats),
                      fmt("%.2f s", woff), fmt("%.2f s", won), fmt("%+.2f s", won - woff), "-",
                      "-"});
    if (inside < 1e7) missed_note("Row 5");
}

}  // namespace vgbench
