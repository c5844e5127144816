// row_gdb.cpp: row 7 of vgbench, the GDB JIT interface at scale: 10^2 to
// 10^4 objects of 10 functions under Callgrind.
#include "vgbench.hpp"

#include <algorithm>
#include <stdexcept>

namespace vgbench {

// 7. The GDB JIT interface at scale: N objects of 10 functions each.
void row_gdb() {
    const std::vector<unsigned long> ns{100, 1000, 10000};
    std::vector<Cmd> cmds;
    for (const unsigned long n : ns)
        cmds.push_back(
            {"gdb-" + std::to_string(n),
             vg(g_opt->patched, "callgrind", {}, {g_opt->jitbench, "gdb", std::to_string(n)})});
    // The ELF ratio asks for 2%: at least 15 runs per N (about a minute).
    const int repeats = std::max(15, g_opt->repeats);
    const auto res = rotate(
        "7. GDB JIT interface, 10^2..10^4 objects of 10 functions, "
        "Callgrind, all N alternated",
        cmds, repeats);
    std::vector<double> per_fn;
    std::string per_fn_text;
    for (std::size_t i = 0; i < ns.size(); ++i) {
        if (min_of(res[i], "objects") != static_cast<double>(ns[i]))
            throw std::runtime_error("jitbench gdb did not register every object (see gdb-" +
                                     std::to_string(ns[i]) + ".log)");
        per_fn.push_back(median_of(res[i], "loop_ns") / (10.0 * static_cast<double>(ns[i])));
        per_fn_text += (i ? " / " : "") + fmt("%.0f", per_fn.back());
    }
    const double flat = *std::max_element(per_fn.begin(), per_fn.end()) /
                        *std::min_element(per_fn.begin(), per_fn.end());
    const double n_max = static_cast<double>(ns.back());
    const double ingest_ns = median_of(res.back(), "ingest_ns");
    const double rate = n_max / (ingest_ns * 1e-9);
    const std::string runs = std::to_string(repeats);
    g_rows.push_back({"7",
                      "GDB JIT interface: " + p10(ns.back()) +
                          " relocatable objects of 10 "
                          "functions handed in one registration each (__jit_debug_register_code), "
                          "--tool=callgrind, in-client time of the loop -> objects/s",
                      runs, "", fmt("%.0f ns/object", ingest_ns / n_max), fmt("%.3g obj/s", rate),
                      ">= 10^4 obj/s", verdict(rate >= 1e4)});
    g_rows.push_back({"7",
                      "GDB JIT interface: first call of each function (translation and "
                      "name lookup under Callgrind), ns per function with " +
                          p10(ns.front()) + " / " + p10(ns[1]) + " / " + p10(ns.back()) +
                          " objects registered -> max/min",
                      runs, "", per_fn_text + " ns", fmt("%.2f x", flat), "<= 1.2 x",
                      verdict(flat <= 1.2)});
    const double elf_small = median_of(res.front(), "elf_ns");
    const double elf_large = median_of(res.back(), "elf_ns");
    const double elf_ratio = elf_large / elf_small;
    g_rows.push_back(
        {"7",
         "GDB JIT interface: first call of " + fmt("%.0f", median_of(res.back(), "elf_fns")) +
             " functions of the ELF executable (their name lookups) with " + p10(ns.back()) +
             " objects registered vs " + p10(ns.front()) + ", --tool=callgrind",
         runs, fmt("%.2f ms", elf_small * 1e-6), fmt("%.2f ms", elf_large * 1e-6),
         fmt("%.3f x", elf_ratio), "<= 1.02 x", verdict(elf_ratio <= 1.02)});
    if (rate < 1e4 || flat > 1.2 || elf_ratio > 1.02) missed_note("Row 7");
}

}  // namespace vgbench
