// row_register.cpp: rows 2 and 4 of vgbench: registration, unregistration
// and munmap per function at 10^4 to 10^6 live functions, timed and
// counted, and the registry's memory per function.
#include "vgbench.hpp"

#include <cstdio>
#include <stdexcept>

namespace vgbench {

namespace {

// "median (min-max)" of key over the runs, per function (divided by n).
std::string spread_ns(const std::vector<Sample>& s, const std::string& key, double n) {
    return fmt("%.0f ns", median_of(s, key) / n) + " (" + fmt("%.0f", min_of(s, key) / n) + "-" +
           fmt("%.0f", max_of(s, key) / n) + ")";
}

}  // namespace

// 2, counted: the instructions Valgrind executes per registration and per
// empty client request, under the inner --tool=none, at 10^4, 10^5 and 10^6
// live functions.  The count per function at N is the slope from N/10 to N
// functions (the difference of two runs' counts over the difference of N),
// so start-up and exit cancel out; the client's per-function set-up (names
// and code built before the loop) and the loop itself cancel against the
// loop without requests (mode none).  Row 2 times the same loops; where
// its time per registration exceeds what these counts explain, the rest is
// memory: the pages the registry's new records are written to (row 4
// gives the bytes per function, row 2's machine row this machine's cost
// of a new page).  Target: a registration at most 1.5 times an empty
// request at every N.
void row_register_instructions() {
    const std::vector<unsigned long> ns{1000, 10000, 100000, 1000000};
    const double t0 = now_s();
    std::map<std::string, std::vector<double>> counts;  // mode -> count at each of ns
    for (const std::string mode : {"none", "request", "jit"})
        for (const unsigned long n : ns)
            counts[mode].push_back(inner_instructions(
                g_opt->inner_patched, "none", "register-" + mode + "-" + std::to_string(n),
                {g_opt->jitbench, "register", std::to_string(n), mode, "keep"}));
    std::fprintf(stderr, "vgbench: %-58s %3d x 1 runs, %6.1f s\n",
                 "2. register under the inner none, counted", 3 * static_cast<int>(ns.size()),
                 now_s() - t0);
    bool missed = false;
    for (std::size_t k = 1; k < ns.size(); ++k) {
        auto slope = [&](const std::string& mode) {
            return (counts[mode][k] - counts[mode][k - 1]) / static_cast<double>(ns[k] - ns[k - 1]);
        };
        const double plain = slope("none");
        const double request = slope("request") - plain, jit = slope("jit") - plain;
        g_rows.push_back({"2",
                          "Registration, counted: instructions the Valgrind process executes per "
                          "request at " +
                              p10(ns[k]) +
                              " live functions, --tool=none, self-hosting build under an outer "
                              "Cachegrind, slope from " +
                              p10(ns[k - 1]) + " to " + p10(ns[k]) +
                              " functions less the loop without requests (baseline: an empty "
                              "client request)",
                          "2+2", fmt("%.0f Ir", request), fmt("%.0f Ir", jit),
                          fmt("%.2f x", jit / request), "register/empty request <= 1.5",
                          verdict(jit / request <= 1.5)});
        missed = missed || jit / request > 1.5;
    }
    if (missed) missed_note("Row 2 (counted)");
}

namespace {

/// The sides of row 2's rotation.
enum Side {
    kDiscard,     ///< the stock Valgrind's DISCARD_TRANSLATIONS
    kJit,         ///< the patched registration
    kPlain,       ///< the loop without requests (row 4's baseline)
    kRequest,     ///< the empty client request on the patched build
    kUnregister,  ///< the patched unregistration
    kSides
};

/// The samples of one N of row 2, by Side.
using SidesAtN = std::vector<std::vector<Sample>>;

/// Runs every N of `ns` and every side under tool in one rotation (10^4
/// three times as often); the samples by N and side.
std::vector<SidesAtN> run_register_rotation(const std::string& tool,
                                            const std::vector<unsigned long>& ns) {
    struct Slot {
        std::size_t n_index;
        Side side;
    };
    std::vector<Cmd> cmds;
    std::vector<Slot> slots;
    auto add = [&](std::size_t k, Side side, const std::string& vgpath, const std::string& mode,
                   const std::string& label) {
        const std::string N = std::to_string(ns[k]);
        cmds.push_back({"reg-" + tool + "-" + label + "-" + N,
                        vg(vgpath, tool, {}, {g_opt->jitbench, "register", N, mode})});
        slots.push_back({k, side});
    };
    for (std::size_t k = 0; k < ns.size(); ++k) {
        const int copies = ns[k] <= 10000 ? 3 : 1;
        for (int c = 0; c < copies; ++c) {
            add(k, kDiscard, g_opt->stock, "discard", "discard-stock");
            add(k, kJit, g_opt->patched, "jit", "jit-patched");
            add(k, kRequest, g_opt->patched, "request", "request-patched");
            add(k, kUnregister, g_opt->patched, "unregister", "unregister-patched");
        }
        if (tool == "none" && ns[k] == 1000000 && wanted(4))
            add(k, kPlain, g_opt->patched, "none", "plain-patched");
    }
    const auto rotation =
        rotate("2. register, unregister 10^4..10^6 under " + tool + ", all N alternated" +
                   (tool == "none" && wanted(4) ? " (+4. memory)" : ""),
               cmds, g_opt->repeats);
    std::vector<SidesAtN> samples(ns.size(), SidesAtN(kSides));
    for (std::size_t i = 0; i < cmds.size(); ++i) {
        auto& to = samples[slots[i].n_index][static_cast<std::size_t>(slots[i].side)];
        to.insert(to.end(), rotation[i].begin(), rotation[i].end());
    }
    return samples;
}

/// Row 2's munmap line at n functions under tool (jn: ns per
/// registration); whether it missed its target.
bool munmap_row(const std::string& tool, unsigned long n, const SidesAtN& res, double jn) {
    const double dn_ = static_cast<double>(n);
    const double unmap_jit = median_of(res[kJit], "unmap_ns") / dn_;
    g_rows.push_back({"2",
                      "munmap of the " + p10(n) +
                          " registered functions' code after the loop, --tool=" + tool +
                          ": ns per function (baseline: registration)",
                      std::to_string(res[kJit].size()), fmt("%.0f ns", jn),
                      spread_ns(res[kJit], "unmap_ns", dn_), fmt("%.2f x", unmap_jit / jn),
                      "munmap/register <= 1.0", verdict(unmap_jit / jn <= 1.0)});
    return unmap_jit / jn > 1.0;
}

/// Row 4: the peak memory per function of n registered functions against
/// the loop without requests (--tool=none), with its note if missed.
void memory_row(unsigned long n, const SidesAtN& res) {
    const double dn_ = static_cast<double>(n);
    const double hj = median_of(res[kJit], "vmhwm_kb");
    const double hn = median_of(res[kPlain], "vmhwm_kb");
    const double per = (hj - hn) * 1024.0 / dn_;
    const double lo =
        (min_of(res[kJit], "vmhwm_kb") - max_of(res[kPlain], "vmhwm_kb")) * 1024.0 / dn_;
    const double hi =
        (max_of(res[kJit], "vmhwm_kb") - min_of(res[kPlain], "vmhwm_kb")) * 1024.0 / dn_;
    // Every function has a name of its own (jitbench_fn_<i>, 24
    // characters): the name's bytes (with its NUL) are the
    // target's second term, the rest is the registry's own.
    const double name = 25.0, own = 40.0;
    g_rows.push_back({"4",
                      "Memory: peak RSS (VmHWM) of the Valgrind process with " + p10(n) +
                          " registered functions (distinct 24-character names) minus the same "
                          "run without the requests, per function, median (min-max) "
                          "(--tool=none); the registry's own bytes are the figure less the "
                          "name's 25",
                      std::to_string(res[kJit].size()) + "+" + std::to_string(res[kPlain].size()),
                      fmt("%.0f MiB", hn / 1024), fmt("%.0f MiB", hj / 1024),
                      fmt("%.0f bytes", per) + " (" + fmt("%.0f", lo) + "-" + fmt("%.0f", hi) +
                          "): " + fmt("%.0f", per - name) + " + 25 (name)",
                      "<= 40 + 25 (name) = 65 bytes", verdict(per <= own + name)});
    if (per > own + name) missed_note("Row 4");
}

/// Row 2's lines at n functions under tool (registration, unregistration,
/// against the stock discard; munmap at the largest N, and row 4 where
/// the loop without requests ran); *jn_out is the ns per registration.
/// Whether a line missed its target.
bool register_rows_at(const std::string& tool, unsigned long n, bool largest, const SidesAtN& res,
                      double* jn_out) {
    const double dn_ = static_cast<double>(n);
    const std::string runs =
        std::to_string(res[kJit].size()) + "+" + std::to_string(res[kRequest].size());
    if (min_of(res[kJit], "ok") != dn_)
        throw std::runtime_error("a registration was refused (see reg-" + tool + "-jit-patched-" +
                                 std::to_string(n) + ".log)");
    if (min_of(res[kUnregister], "ok") != dn_)
        throw std::runtime_error("an unregistration was refused (see reg-" + tool +
                                 "-unregister-patched-" + std::to_string(n) + ".log)");
    const double jn = median_of(res[kJit], "loop_ns") / dn_;
    const double rq = median_of(res[kRequest], "loop_ns") / dn_;
    const double un = median_of(res[kUnregister], "loop_ns") / dn_;
    const double dn = median_of(res[kDiscard], "loop_ns") / dn_;
    *jn_out = jn;
    const std::string scale = p10(n) + " functions live at once, one request each, --tool=" + tool +
                              ": ns per request in the client's loop, median (min-max)";
    g_rows.push_back({"2",
                      "Registration, " + scale +
                          " (baseline: an empty client request, RUNNING_ON_VALGRIND, "
                          "same build)",
                      runs, spread_ns(res[kRequest], "loop_ns", dn_),
                      spread_ns(res[kJit], "loop_ns", dn_), fmt("%.2f x", jn / rq),
                      "register/empty request <= 2.0", verdict(jn / rq <= 2.0)});
    bool missed = jn / rq > 2.0;
    g_rows.push_back(
        {"2", "Unregistration, " + scale + " (baseline: registration)",
         std::to_string(res[kUnregister].size()) + "+" + std::to_string(res[kJit].size()),
         fmt("%.0f ns", jn), spread_ns(res[kUnregister], "loop_ns", dn_), fmt("%.2f x", un / jn),
         "unregister/register <= 2.0", verdict(un / jn <= 2.0)});
    missed = missed || un / jn > 2.0;
    g_rows.push_back({"2",
                      "(no target) Registration, " + p10(n) + ", --tool=" + tool +
                          ", against the stock Valgrind's DISCARD_TRANSLATIONS of "
                          "the same code",
                      std::to_string(res[kDiscard].size()) + "+" + std::to_string(res[kJit].size()),
                      spread_ns(res[kDiscard], "loop_ns", dn_), fmt("%.0f ns", jn),
                      fmt("%.2f x", jn / dn), "-", "-"});
    if (largest && munmap_row(tool, n, res, jn)) missed = true;
    if (!res[kPlain].empty()) memory_row(n, res);
    return missed;
}

}  // namespace

// 2. Registration, unregistration and munmap per function, N = 10^4..10^6
// live functions, under none and Callgrind; 4. memory per function.
//
// Every N and every side runs in one rotation per tool: the patched
// registration (jit), the empty client request on the same build
// (request: the floor every request pays), the patched unregistration
// (unregister: all registered first, then one request each, timed), and
// the stock Valgrind's DISCARD_TRANSLATIONS (what a JIT issues today);
// under none at 10^6 also the loop without requests (row 4's memory
// baseline).  At 10^4 a loop lasts a few ms, so its sides run three
// times as often.  Each verdict compares medians over all runs; the
// spread of the per-run figures is shown next to them.
void row_register() {
    const std::vector<unsigned long> ns{10000, 100000, 1000000};
    for (const std::string tool : {"none", "callgrind"}) {
        const std::vector<SidesAtN> samples = run_register_rotation(tool, ns);
        std::vector<double> reg_ns;
        bool missed = false;
        for (std::size_t k = 0; k < ns.size(); ++k) {
            double jn = 0;
            if (register_rows_at(tool, ns[k], ns[k] == ns.back(), samples[k], &jn)) missed = true;
            reg_ns.push_back(jn);
        }
        // Growth of the registration's own cost per request.
        const double growth = reg_ns.back() / reg_ns.front();
        g_rows.push_back({"2",
                          "Registration cost growth, " + p10(ns.front()) + " -> " + p10(ns.back()) +
                              " functions, --tool=" + tool + ": ns per request at " +
                              p10(ns.back()) + " / at " + p10(ns.front()),
                          "", "", fmt("%.2f x", growth), fmt("%.2f x", growth),
                          "no growth (<= 1.2 x)", verdict(growth <= 1.2)});
        missed = missed || growth > 1.2;
        if (missed) missed_note("Row 2 (--tool=" + tool + ")");
    }
    page_cost_row("2");
}

}  // namespace vgbench
