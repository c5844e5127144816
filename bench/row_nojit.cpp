// row_nojit.cpp: row 1 of vgbench, a program without JIT code (bzip2)
// under Callgrind and Memcheck, stock against patched: wall time in pairs
// started together, and the instructions of self-hosting builds (1c, 1d).
#include "vgbench.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>

namespace vgbench {

namespace {

// Deterministic text of `bytes` bytes: words over a 10-letter alphabet
// drawn by a 64-bit LCG from a 5000-word vocabulary (compresses ~3:1).
void write_input(const std::string& path, std::size_t bytes) {
    std::uint64_t x = 0x2545F4914F6CDD1Dull;
    auto next = [&x]() {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>(x >> 33);
    };
    std::vector<std::string> vocab(5000);
    for (auto& w : vocab) {
        const unsigned len = 2 + next() % 8;
        for (unsigned i = 0; i < len; ++i) w.push_back(static_cast<char>('a' + next() % 10));
    }
    std::string text;
    text.reserve(bytes + 16);
    while (text.size() < bytes) {
        text += vocab[next() % vocab.size()];
        text += (next() % 16 == 0) ? '\n' : ' ';
    }
    text.resize(bytes);
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

// 1c, 1d. The same workload (on the first 256 KiB of the input), counted
// in instructions (inner_instructions), so that they resolve what wall
// time cannot here.
void row_nojit_instructions(const std::string& input) {
    const std::string small = "bzip2-input-256k.txt";
    {
        std::ifstream in(g_opt->workdir + "/" + input, std::ios::binary);
        std::string text(256u << 10, '\0');
        in.read(&text[0], static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        std::ofstream(g_opt->workdir + "/" + small, std::ios::binary) << text;
    }
    const int reps = 3;
    char k = 'c';
    for (const std::string tool : {"callgrind", "memcheck"}) {
        std::vector<std::vector<double>> counts(2);
        const double t0 = now_s();
        for (int r = 0; r < reps; ++r)
            for (std::size_t i = 0; i < 2; ++i) {
                const std::string side = i == 0 ? "stock" : "patched";
                counts[i].push_back(
                    inner_instructions(side == "stock" ? g_opt->inner_stock : g_opt->inner_patched,
                                       tool, tool + "-" + side, {g_opt->bzip2, "-9", "-c", small}));
            }
        std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                     ("1. bzip2 under the inner " + tool + ", counted").c_str(), reps,
                     now_s() - t0);
        const double cs = median(counts[0]), cp = median(counts[1]);
        const double spread = std::max(max_over_min(counts[0]), max_over_min(counts[1])) - 1;
        g_rows.push_back({"1" + std::string(1, k++),
                          "No JIT code, counted: instructions the Valgrind process executes "
                          "(core, " +
                              tool +
                              ", generated code) running `bzip2 -9` of 256 KiB, "
                              "self-hosting builds under an outer Cachegrind (runs of a side "
                              "differ by " +
                              fmt("%.1g", spread) + ")",
                          std::to_string(reps) + "+" + std::to_string(reps),
                          fmt("%.1f M Ir", cs / 1e6), fmt("%.1f M Ir", cp / 1e6),
                          fmt("%.4f x", cp / cs), "patched/stock <= 1.01",
                          verdict(cp / cs <= 1.01)});
        if (cp / cs > 1.01) missed_note("Row 1 (" + tool + ", counted)");
    }
}

}  // namespace

// 1. A program without JIT code: bzip2 under Callgrind and Memcheck.
//
// This machine's speed drifts by 10 to 25% over seconds (the same run,
// repeated, lands anywhere in that range), so runs one after the other
// cannot resolve a 1% difference.  Each pair of a stock and a patched run
// is started at the same moment, one on each of two CPUs (swapped every
// pair), and the figure is the median of the per-pair ratios, with its
// 95% confidence interval: met when the interval lies at or below the
// target, missed when it lies above, not resolved when it straddles it.
// (With one CPU the pairs run one after the other.)
void row_nojit() {
    const std::string input = "bzip2-input.txt";
    write_input(g_opt->workdir + "/" + input, 2u << 20);
    const bool simultaneous = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    const int reps = std::max(31, g_opt->repeats);
    int k = 0;
    for (const std::string tool : {"callgrind", "memcheck"}) {
        const std::vector<std::string> prog{g_opt->bzip2, "-9", "-c", input};
        Cmd s{"nojit-" + tool + "-stock", vg(g_opt->stock, tool, {}, prog), true};
        Cmd p{"nojit-" + tool + "-patched", vg(g_opt->patched, tool, {}, prog), true};
        const double t0 = now_s();
        const auto [ss, ps] = run_pairs(s, p, reps);
        std::fprintf(stderr, "vgbench: %-58s %3d x 2 runs, %6.1f s\n",
                     ("1. bzip2 under " + tool + (simultaneous ? ", pairs at once" : "")).c_str(),
                     reps, now_s() - t0);
        std::vector<double> wall_ratios, cpu_ratios;
        for (int r = 0; r < reps; ++r) {
            wall_ratios.push_back(ps[r].wall_s / ss[r].wall_s);
            cpu_ratios.push_back(ps[r].cpu_s / ss[r].cpu_s);
        }
        const double ratio = median(wall_ratios);
        const auto [lo, hi] = median_interval(wall_ratios, 0.95);
        // With the counted lines (self-hosting builds present), an
        // interval that spans the target leaves the verdict to them.
        const std::string v = hi <= 1.01                    ? verdict(true)
                              : lo > 1.01                   ? verdict(false)
                              : !g_opt->inner_stock.empty() ? kWithinNoise
                                                            : std::string("**NOT RESOLVED**");
        g_rows.push_back({"1" + std::string(1, static_cast<char>('a' + k++)),
                          "No JIT code: `bzip2 -9` of 2 MiB of text under " + tool +
                              ", wall time of the whole run; median of the per-pair "
                              "ratios (95% interval)" +
                              (simultaneous ? ", each pair started together on two CPUs" : ""),
                          std::to_string(reps) + "+" + std::to_string(reps),
                          fmt("%.3f s", median_wall(ss)), fmt("%.3f s", median_wall(ps)),
                          fmt("%.3f x", ratio) + fmt(" (%.3f", lo) + fmt("-%.3f)", hi) +
                              " (CPU time: " + fmt("%.3f x", median(cpu_ratios)) + ")",
                          "patched/stock <= 1.01", v});
        if (lo > 1.01 || (hi > 1.01 && g_opt->inner_stock.empty()))
            missed_note("Row 1 (" + tool + ")");
    }
    if (!g_opt->inner_stock.empty()) row_nojit_instructions(input);
}

}  // namespace vgbench
