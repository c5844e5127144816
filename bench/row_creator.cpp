// row_creator.cpp: row 10 of vgbench, what creator names cost: memory made
// executable 10^5 times, creator names on against off, in pairs started
// together, and counted at 2x10^4 when the self-hosting build is there.
#include "vgbench.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace vgbench {

// 10. Memory made executable 10^5 times under --tool=none (JITs that
// announce nothing): the patched Valgrind with creator names against the
// same Valgrind with --jit-creator-names=no, in pairs started together
// as row 1 does, for a W^X JIT flipping one page and for a new page each
// time.  Target: at most 1% more time.
void row_creator() {
    const bool simultaneous = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    // Nine pairs at least: the median's 95% interval needs six.
    const int reps = std::max(9, g_opt->repeats);
    const std::string n = "100000";
    int k = 0;
    for (const std::string how : {"flip", "fresh"}) {
        const std::vector<std::string> prog{g_opt->jitbench, "mprotect", n, how};
        Cmd off{"creator-" + how + "-off",
                vg(g_opt->patched, "none", {"--jit-creator-names=no"}, prog), true};
        Cmd on{"creator-" + how + "-on", vg(g_opt->patched, "none", {}, prog), true};
        const double t0 = now_s();
        const auto [offs, ons] = run_pairs(off, on, reps);
        std::vector<double> ratios;
        for (int r = 0; r < reps; ++r) ratios.push_back(ons[r].wall_s / offs[r].wall_s);
        std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                     ("10. mprotect(PROT_EXEC) x 10^5, " + how).c_str(), reps, now_s() - t0);
        const double ratio = median(ratios);
        const auto [lo, hi] = median_interval(ratios, 0.95);
        // An interval across the target: the counted lines (10c, 10d)
        // decide when the self-hosting build is there.
        const std::string v = hi <= 1.01                      ? verdict(true)
                              : lo > 1.01                     ? verdict(false)
                              : !g_opt->inner_patched.empty() ? kWithinNoise
                                                              : std::string("**NOT RESOLVED**");
        g_rows.push_back({"10" + std::string(1, static_cast<char>('a' + k++)),
                          "Memory made executable 10^5 times (" +
                              std::string(how == "flip" ? "one page flipped W^X"
                                                        : "a new page mapped, made executable, "
                                                          "called and unmapped") +
                              "), --tool=none, wall time; creator names on/off, median of the "
                              "per-pair ratios (95% interval)" +
                              (simultaneous ? ", each pair started together on two CPUs" : ""),
                          std::to_string(reps) + "+" + std::to_string(reps),
                          fmt("%.3f s", median_wall(offs)), fmt("%.3f s", median_wall(ons)),
                          fmt("%.3f x", ratio) + fmt(" (%.3f", lo) + fmt("-%.3f)", hi),
                          "on/off <= 1.01", v});
        if (lo > 1.01 || (hi > 1.01 && g_opt->inner_patched.empty()))
            missed_note("Row 10 (" + how + ")");
    }
}

// 10c, 10d. The same, counted: the instructions of the inner patched
// Valgrind under an outer Cachegrind, creator names on against off, at
// 2x10^4 (a fifth of the timed run, so what is paid once, the first
// stack trace, weighs five times more).  Target: at most 1% more.
void row_creator_instructions() {
    const std::string n = "20000";
    int k = 2;
    const double t0 = now_s();
    for (const std::string how : {"flip", "fresh"}) {
        const std::vector<std::string> prog{g_opt->jitbench, "mprotect", n, how};
        std::vector<std::string> off_prog{"--jit-creator-names=no"};
        off_prog.insert(off_prog.end(), prog.begin(), prog.end());
        const double off =
            inner_instructions(g_opt->inner_patched, "none", "creator-" + how + "-off", off_prog);
        const double on =
            inner_instructions(g_opt->inner_patched, "none", "creator-" + how + "-on", prog);
        const double ratio = on / off;
        g_rows.push_back(
            {"10" + std::string(1, static_cast<char>('a' + k++)),
             "Memory made executable 2x10^4 times (" +
                 std::string(how == "flip" ? "one page flipped W^X" : "a new page each time") +
                 "), --tool=none, counted: the inner patched Valgrind under an "
                 "outer Cachegrind, creator names on/off",
             "1+1", fmt("%.4g Ir", off), fmt("%.4g Ir", on), fmt("%.4f x", ratio), "on/off <= 1.01",
             verdict(ratio <= 1.01)});
        if (ratio > 1.01) missed_note("Row 10 (" + how + ", counted)");
    }
    std::fprintf(stderr, "vgbench: %-58s %3d runs, %6.1f s\n",
                 "10. mprotect(PROT_EXEC) x 2x10^4, counted", 4, now_s() - t0);
}

}  // namespace vgbench
