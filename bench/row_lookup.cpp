// row_lookup.cpp: row 3 of vgbench, name lookups at scale under Callgrind:
// time and memory per function called once at 10^3 to 10^6 functions,
// registered or not, patched against stock.
#include "vgbench.hpp"

#include <algorithm>

namespace vgbench {

namespace {

/// Where in the rotation each N's commands are: the patched Valgrind with
/// the functions registered and unregistered, and (N <= --stock-lookup-max)
/// the stock one.
struct LookupSides {
    std::size_t reg, noreg, stock;
    bool with_stock;
};

/// The commands of every N in `ns` and every side, in one rotation;
/// `sides` gets where each N's are.
std::vector<Cmd> lookup_commands(const std::vector<unsigned long>& ns,
                                 std::vector<LookupSides>& sides) {
    std::vector<Cmd> cmds;
    for (const unsigned long n : ns) {
        const std::string N = std::to_string(n);
        LookupSides x{};
        x.with_stock = n <= g_opt->stock_lookup_max;
        x.reg = cmds.size();
        cmds.push_back({"calls-patched-" + N,
                        vg(g_opt->patched, "callgrind", {}, {g_opt->jitbench, "calls", N, "reg"})});
        x.noreg = cmds.size();
        cmds.push_back({"calls-patched-noreg-" + N, vg(g_opt->patched, "callgrind", {},
                                                       {g_opt->jitbench, "calls", N, "noreg"})});
        if (x.with_stock) {
            x.stock = cmds.size();
            cmds.push_back({"calls-stock-" + N, vg(g_opt->stock, "callgrind", {},
                                                   {g_opt->jitbench, "calls", N, "noreg"})});
        }
        sides.push_back(x);
    }
    return cmds;
}

/// Each N's figures, us per function (stock_us only up to the last N
/// with a stock run).
struct LookupFigures {
    std::vector<double> stock_us, patched_us, patched_best_us, share, user_us, sys_us;
};

/// The line of each N (time per function, patched against stock where
/// stock ran), and the figures of every N.
LookupFigures lookup_rows_per_n(const std::vector<unsigned long>& ns,
                                const std::vector<LookupSides>& sides,
                                const std::vector<std::vector<Sample>>& res, int reps) {
    LookupFigures f;
    for (std::size_t k = 0; k < ns.size(); ++k) {
        const unsigned long n = ns[k];
        const LookupSides& x = sides[k];
        const double scale = 1000.0 * static_cast<double>(n);  // ns per run -> us per function
        auto per_fn = [scale](const std::vector<Sample>& r) {
            return median_of(r, "loop_ns") / scale;
        };
        // "median (fastest-slowest)" of a side's runs, us per function.
        auto cell = [scale, per_fn](const std::vector<Sample>& r) {
            return fmt("%.1f us", per_fn(r)) + fmt(" (%.1f", min_of(r, "loop_ns") / scale) +
                   fmt("-%.1f)", max_of(r, "loop_ns") / scale);
        };
        const auto& reg = res[x.reg];
        const double pu = per_fn(reg), uu = per_fn(res[x.noreg]);
        f.patched_us.push_back(pu);
        f.patched_best_us.push_back(min_of(reg, "loop_ns") / scale);
        f.user_us.push_back(median_of(reg, "loop_user_ns") / scale);
        f.sys_us.push_back(median_of(reg, "loop_sys_ns") / scale);
        f.share.push_back(pu / uu);
        const std::string runs = std::to_string(reps) + "+" + std::to_string(reps);
        if (x.with_stock) {
            const double su = per_fn(res[x.stock]);
            f.stock_us.push_back(su);
            g_rows.push_back({"3",
                              "Lookup: Callgrind, each of " + p10(n) +
                                  " functions called once, us per function in the client's "
                                  "call loop, median (fastest-slowest run) (stock: unnamed; "
                                  "patched: registered, named)",
                              runs, cell(res[x.stock]), cell(reg), fmt("%.2f x", pu / su), "-",
                              "-"});
        } else {
            g_rows.push_back({"3",
                              "Lookup: Callgrind, each of " + p10(n) +
                                  " functions called once, us per function in the client's "
                                  "call loop, median (fastest-slowest run) (patched: "
                                  "registered, named; stock not run, see the note)",
                              std::to_string(reps), "-", cell(reg), "-", "-", "-"});
        }
    }
    return f;
}

/// The lines over all N: the flatness of the time per function (the
/// target), the same from the fastest runs, and where the patched time
/// goes.  Returns the flatness.
double lookup_flatness_rows(const std::vector<unsigned long>& ns, const LookupFigures& f) {
    const double fp = max_over_min(f.patched_us);
    const std::string stock_spread = f.stock_us.empty()
                                         ? "-"
                                         : fmt("%.2f x", max_over_min(f.stock_us)) + " (to " +
                                               p10(ns[f.stock_us.size() - 1]) + ")";
    g_rows.push_back({"3",
                      "Lookup: time per function, max/min over N = " + p10(ns.front()) + ".." +
                          p10(ns.back()) + " (Callgrind)",
                      "", stock_spread, fmt("%.2f x", fp), fmt("%.2f x", fp), "flat within 1.2 x",
                      verdict(fp <= 1.2)});
    const double best = max_over_min(f.patched_best_us);
    g_rows.push_back({"3",
                      "(derived, no target) the same from each N's fastest patched run "
                      "(less sensitive to run-to-run noise than the medians)",
                      "", "", "", fmt("%.2f x", best), "-", "-"});
    std::string cpu;
    for (std::size_t i = 0; i < ns.size(); ++i)
        cpu += (i ? " / " : "") + fmt("%.1f", f.user_us[i]) + fmt(" + %.1f", f.sys_us[i]);
    g_rows.push_back({"3",
                      "(derived, no target) where the patched time goes: user + system CPU "
                      "us per function in the loop (getrusage; medians), N = " +
                          p10(ns.front()) + ".." + p10(ns.back()) +
                          "; the system part is mostly the kernel clearing newly "
                          "faulted pages",
                      "", "", "", cpu, "-", "-"});
    return fp;
}

/// Resident memory each new function leaves behind: the growth of the
/// peak RSS from the smallest N to a larger one, per added function.
void lookup_memory_row(const std::vector<unsigned long>& ns, const std::vector<LookupSides>& sides,
                       const std::vector<std::vector<Sample>>& res) {
    auto per_fn_bytes = [&res, &ns](std::size_t side_small, std::size_t side_large, std::size_t k) {
        const double kb =
            median_of(res[side_large], "vmhwm_kb") - median_of(res[side_small], "vmhwm_kb");
        return kb * 1024.0 / static_cast<double>(ns[k] - ns.front());
    };
    std::string stock_cell = "-", patched_cell;
    std::size_t last_stock = 0;
    for (std::size_t k = 1; k < ns.size(); ++k) {
        patched_cell +=
            (k > 1 ? " / " : "") + fmt("%.0f B", per_fn_bytes(sides.front().reg, sides[k].reg, k));
        if (sides[k].with_stock && sides.front().with_stock) last_stock = k;
    }
    if (last_stock > 0)
        stock_cell =
            fmt("%.0f B", per_fn_bytes(sides.front().stock, sides[last_stock].stock, last_stock)) +
            " (to " + p10(ns[last_stock]) + ")";
    g_rows.push_back({"3",
                      "(derived, no target) resident memory each new function leaves "
                      "behind under Callgrind: peak RSS growth from " +
                          p10(ns.front()) + " to N functions, per added function, N = " +
                          p10(ns[std::min<std::size_t>(1, ns.size() - 1)]) + ".." + p10(ns.back()),
                      "", stock_cell, patched_cell, "", "-", "-"});
}

}  // namespace

// 3. Name lookups at scale under Callgrind.
//
// Every N and every side runs in one rotation (10^3 reg, 10^3 noreg,
// 10^3 stock, 10^4 reg, ...): this machine has slow phases lasting tens of
// seconds, and when each N ran its own block of runs one such phase could
// hold all of one N's runs and decide the max/min ratio alone.  Alternated,
// every N meets the same mix of phases.
void row_lookup() {
    std::vector<unsigned long> ns;
    for (unsigned long n = 1000; n <= g_opt->lookup_max && n <= 1000000; n *= 10) ns.push_back(n);
    std::vector<LookupSides> sides;
    const std::vector<Cmd> cmds = lookup_commands(ns, sides);
    // The small N are the denominator of the flatness ratio and their
    // loops are short (10 and 100 ms), so every side runs at least 9 times.
    const int reps = std::max(9, g_opt->repeats);
    const auto res = rotate("3. Callgrind, call 10^3.." + p10(ns.back()) +
                                " functions once, "
                                "all N alternated",
                            cmds, reps);
    const LookupFigures f = lookup_rows_per_n(ns, sides, res, reps);
    const double fp = lookup_flatness_rows(ns, f);
    page_cost_row("3");
    lookup_memory_row(ns, sides, res);
    std::string shares;
    for (std::size_t i = 0; i < ns.size(); ++i)
        shares += (i ? " / " : "") + fmt("%.2f", f.share[i]);
    g_rows.push_back({"3",
                      "(derived, no target) the registry's share: patched Valgrind, "
                      "registered / unregistered functions, time per function at N = " +
                          p10(ns.front()) + ".." + p10(ns.back()),
                      "", "", "", shares + " x", "-", "-"});
    if (ns.back() > g_opt->stock_lookup_max)
        g_notes.push_back(
            "Row 3: stock Valgrind runs only up to N = " + p10(g_opt->stock_lookup_max) +
            " (--stock-lookup-max=N): its time per new function grows with N.");
    if (fp > 1.2) missed_note("Row 3");
}

}  // namespace vgbench
