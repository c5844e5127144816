// row_native.cpp: row 6 of vgbench, VALGRIND_JIT_REGISTER natively.
#include "vgbench.hpp"

#include <algorithm>

namespace vgbench {

// 6. The macro natively.
void row_native() {
    Cmd c{"native", {g_opt->jitbench, "native", "200000000"}};
    const auto res = rotate("6. VALGRIND_JIT_REGISTER natively", {c}, std::max(5, g_opt->repeats));
    const double req = median_of(res[0], "ns_per_request");
    const double empty = median_of(res[0], "ns_per_empty_iteration");
    g_rows.push_back({"6",
                      "VALGRIND_JIT_REGISTER natively: ns per loop iteration with the "
                      "request, minus the same loop without it (2*10^8 iterations, "
                      "compiler barrier)",
                      std::to_string(std::max(5, g_opt->repeats)), fmt("%.2f ns (loop)", empty),
                      fmt("%.2f ns (loop+request)", req), fmt("%.2f ns", req - empty), "<= 2 ns",
                      verdict(req - empty <= 2.0)});
    if (req - empty > 2.0) missed_note("Row 6");
}

}  // namespace vgbench
