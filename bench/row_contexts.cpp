// row_contexts.cpp: row 11 of vgbench, what Callgrind's dump pays to name
// code nobody announces: 10^5 functions, each its own call context
// renamed after its creator when the profile is written.
#include "vgbench.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vgbench {

namespace {

// jitbench emits n functions into memory it makes executable, announces
// none and calls each once: Callgrind splits the code at each entry, and
// at the dump renames every such function, and the context calling it,
// "[JIT code of F] 0xADDR" (callgrind/latenames.c).
std::vector<std::string> contexts_prog(unsigned long n) {
    return {g_opt->jitbench, "calls", std::to_string(n), "noreg"};
}

// 11a. The whole run, creator names on against off, in pairs started
// together as row 1's are.  Target: at most 1.2 x (what Chez Scheme and
// Racket must stay within).
void contexts_wall() {
    const bool simultaneous = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    const int reps = std::max(9, g_opt->repeats);  // the median's 95% interval needs six
    const auto prog = contexts_prog(100000);
    const Cmd off{"contexts-off", vg(g_opt->patched, "callgrind", {"--jit-creator-names=no"}, prog),
                  true};
    const Cmd on{"contexts-on", vg(g_opt->patched, "callgrind", {}, prog), true};
    const double t0 = now_s();
    const auto [offs, ons] = run_pairs(off, on, reps);
    std::vector<double> ratios;
    for (int r = 0; r < reps; ++r) ratios.push_back(ons[r].wall_s / offs[r].wall_s);
    std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                 "11. 10^5 renamed contexts, Callgrind", reps, now_s() - t0);
    const double ratio = median(ratios);
    const auto [lo, hi] = median_interval(ratios, 0.95);
    const std::string v = hi <= 1.2  ? verdict(true)
                          : lo > 1.2 ? verdict(false)
                                     : std::string("**NOT RESOLVED**");
    g_rows.push_back(
        {"11a",
         "10^5 functions of code nobody announces, each called once and renamed "
         "after its creator at Callgrind's dump, wall time of the whole run; creator "
         "names on/off, median of the per-pair ratios (95% interval)" +
             std::string(simultaneous ? ", each pair started together on two CPUs" : ""),
         std::to_string(reps) + "+" + std::to_string(reps), fmt("%.3f s", median_wall(offs)),
         fmt("%.3f s", median_wall(ons)),
         fmt("%.3f x", ratio) + fmt(" (%.3f", lo) + fmt("-%.3f)", hi), "on/off <= 1.2", v});
    if (hi > 1.2) missed_note("Row 11a");
}

// 11b. Counted: the inner patched Callgrind under an outer Cachegrind at
// 10^4 and 3x10^4 functions, creator names on less off, per renamed
// context.  The binding is linear when the cost per context stays the
// same: target at most 1.5 times the 10^4 figure at 3x10^4 (a binding
// that compared every context with every other, as one did, grows 3
// times).
void contexts_instructions() {
    const double t0 = now_s();
    std::vector<double> per_context;
    for (const unsigned long n : {10000UL, 30000UL}) {
        const auto prog = contexts_prog(n);
        std::vector<std::string> off_prog{"--jit-creator-names=no"};
        off_prog.insert(off_prog.end(), prog.begin(), prog.end());
        const double on = inner_instructions(g_opt->inner_patched, "callgrind",
                                             "contexts-on-" + std::to_string(n), prog);
        const double off = inner_instructions(g_opt->inner_patched, "callgrind",
                                              "contexts-off-" + std::to_string(n), off_prog);
        per_context.push_back((on - off) / static_cast<double>(n));
    }
    std::fprintf(stderr, "vgbench: %-58s %3d runs, %6.1f s\n", "11. renamed contexts, counted", 4,
                 now_s() - t0);
    const double growth = per_context[1] / per_context[0];
    const bool met = std::isfinite(growth) && growth <= 1.5;
    g_rows.push_back({"11b",
                      "Instructions per renamed context (creator names on less off), "
                      "10^4 and 3x10^4 functions, the inner Callgrind under an outer Cachegrind",
                      "1+1 each", fmt("%.0f Ir", per_context[0]), fmt("%.0f Ir", per_context[1]),
                      fmt("%.2f x", growth), "3x10^4 / 10^4 <= 1.5", verdict(met)});
    if (!met) missed_note("Row 11b");
}

}  // namespace

// 11. Renamed contexts: the wall-time pairs, and the counted line when the
// self-hosting build is there.
void row_contexts() {
    contexts_wall();
    if (!g_opt->inner_patched.empty()) contexts_instructions();
}

}  // namespace vgbench
