// cmd_export.cpp: `vg-jit export --format=firefox|folded PROFILE... -o OUT`.
//
// Converts a Callgrind profile (or Cachegrind's, as a flat profile) with
// profile_export.hpp and writes it for a viewer: the Firefox Profiler's
// processed format, or folded stacks.  The output is written to a
// temporary file next to OUT and renamed over it only when everything was
// read and written, so a bad profile leaves no file behind.
#include "commands.hpp"
#include "profile_export.hpp"

#include "callgrind_format.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace vgjit {

int run_export(const ExportCmdOptions& opts) {
    exporting::Converted c;
    try {
        exporting::ExportOptions eo;
        eo.event = opts.event;
        c = exporting::convert(opts.profiles, eo);
    } catch (const std::exception& e) {
        std::cerr << "vg-jit: export: " << e.what() << "\nvg-jit: export: nothing written\n";
        return kExitProblems;
    }
    if (c.stacks == exporting::Stacks::Rebuilt && c.has_contexts)
        std::cerr << "vg-jit: export: warning: stacks exact for " << c.exact_weight << " of "
                  << c.total << " " << c.event << "; " << c.ambiguous
                  << " contexts had several callers (chains longer than --separate-callers, "
                     "or recursion deeper than --separate-recs, which Callgrind merges): "
                     "their stacks stop at the frame \""
                  << exporting::kUnknownCallers
                  << "\" below the callers every one of their calls had\n";
    else if (c.stacks == exporting::Stacks::Rebuilt)
        std::cerr << "vg-jit: export: warning: stacks rebuilt from call edges: " << c.ambiguous
                  << " functions had several callers, and the profile does not say which "
                     "call led where: their stacks stop at the frame \""
                  << exporting::kUnknownCallers
                  << "\" below the callers every one of their calls had (stacks whole for "
                  << c.exact_weight << " of " << c.total << " " << c.event
                  << "); take the profile with --separate-callers=N (N at least the call "
                     "depth) for whole stacks\n";
    auto write = [&](std::ostream& os) {
        if (opts.format == "folded")
            exporting::write_folded(c, os);
        else
            exporting::write_firefox(c, os);
    };
    if (opts.output.empty() || opts.output == "-") {
        write(std::cout);
        std::cout.flush();
        if (!std::cout) {
            std::cerr << "vg-jit: export: cannot write to standard output\n";
            return kExitProblems;
        }
    } else {
        const std::string tmp = opts.output + ".vg-jit-tmp";
        {
            std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
            if (!os) {
                std::cerr << "vg-jit: export: cannot create " << tmp << ": " << std::strerror(errno)
                          << '\n';
                return kExitProblems;
            }
            write(os);
            os.close();
            if (!os) {
                std::cerr << "vg-jit: export: cannot write " << tmp << '\n';
                std::remove(tmp.c_str());
                return kExitProblems;
            }
        }
        if (std::rename(tmp.c_str(), opts.output.c_str()) != 0) {
            std::cerr << "vg-jit: export: cannot rename " << tmp << " to " << opts.output << ": "
                      << std::strerror(errno) << '\n';
            std::remove(tmp.c_str());
            return kExitProblems;
        }
    }
    if (opts.verbose)
        std::cerr << "vg-jit: export: " << c.parts << " parts, " << c.functions.size()
                  << " functions, " << c.stack_table.size() << " stacks, total " << c.event << " "
                  << c.total << ", stacks "
                  << (c.stacks == exporting::Stacks::Exact  ? "exact"
                      : c.stacks == exporting::Stacks::Flat ? "flat"
                                                            : "rebuilt")
                  << '\n';
    return kExitClean;
}

}  // namespace vgjit
