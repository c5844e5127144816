// cmd_profiles.cpp: `vg-jit profiles [--json] [--event=EV] PROFILE|DIR...`.
//
// Lists the processes of Callgrind (or Cachegrind) profiles, one per
// "pid:", with the part of each process's cost spent in JIT code: which
// profile of a multi-process run (--trace-children=yes) to look at.  The
// profiles are read and grouped into processes by profile_export.hpp's
// convert(), and code is JIT code by its classify(), the rule of `vg-jit
// export`'s JIT category, so the two commands cannot disagree.
#include "commands.hpp"
#include "profile_export.hpp"

#include "text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vgjit {

namespace {

namespace fs = std::filesystem;

/// One process's line of the listing.
struct Row {
    const exporting::Process* process = nullptr;
    std::uint64_t jit = 0, unnamed = 0;  // of the event, by the export's categories
    double share(std::uint64_t part) const {
        return process->total ? static_cast<double>(part) / static_cast<double>(process->total)
                              : 0.0;
    }
};

/// The profiles named by `inputs`: files as given, and each directory's
/// files whose names start with "callgrind.out" or "cachegrind.out", by
/// name.  Throws std::runtime_error for a directory without any.
std::vector<std::string> profile_files(const std::vector<std::string>& inputs) {
    std::vector<std::string> files;
    for (const std::string& in : inputs) {
        std::error_code ec;
        if (!fs::is_directory(in, ec)) {
            files.push_back(in);
            continue;
        }
        std::vector<std::string> found;
        for (const fs::directory_entry& e : fs::directory_iterator(in)) {
            const std::string name = e.path().filename().string();
            if (e.is_regular_file(ec) &&
                (name.rfind("callgrind.out", 0) == 0 || name.rfind("cachegrind.out", 0) == 0))
                found.push_back(e.path().string());
        }
        if (found.empty())
            throw std::runtime_error(in +
                                     ": no profiles in this directory (callgrind.out.*, "
                                     "cachegrind.out.*)");
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

/// "61.2%", "<0.1%" for a share that is not 0 but would print as 0.0%.
std::string percent(double share) {
    char buf[16];
    if (share > 0 && share < 0.0005) return "<0.1%";
    std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
    return buf;
}

}  // namespace

int run_profiles(const ProfilesOptions& opts, std::ostream& out) {
    exporting::Converted c;
    try {
        exporting::ExportOptions eo;
        eo.event = opts.event;
        c = exporting::convert(profile_files(opts.inputs), eo);
    } catch (const std::exception& e) {
        std::cerr << "vg-jit: profiles: " << e.what() << '\n';
        return kExitProblems;
    }
    std::vector<Row> rows(c.processes.size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i].process = &c.processes[i];
    for (const exporting::Thread& t : c.threads)
        for (const exporting::Sample& s : t.samples) {
            const exporting::Frame& f = c.frames[c.stack_table[s.stack].frame];
            const exporting::Kind k = c.functions[f.function].kind;
            if (k == exporting::Kind::Jit) rows[t.process].jit += s.weight;
            if (k == exporting::Kind::Unnamed) rows[t.process].unnamed += s.weight;
        }
    // By JIT share, then by cost; processes are in pid order already.
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        const double sa = a.share(a.jit), sb = b.share(b.jit);
        if (sa != sb) return sa > sb;
        return a.process->total > b.process->total;
    });

    if (opts.json) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const Row& r : rows) {
            const exporting::Process& p = *r.process;
            list.push_back({{"pid", p.pid},
                            {"command", p.command},
                            {"name", p.name},
                            {"total", p.total},
                            {"jit", r.jit},
                            {"jit_share", r.share(r.jit)},
                            {"unnamed", r.unnamed},
                            {"unnamed_share", r.share(r.unnamed)},
                            {"threads", p.threads.size()},
                            {"parts", p.parts},
                            {"files", p.files}});
        }
        const nlohmann::ordered_json doc = {{"event", c.event}, {"processes", std::move(list)}};
        out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
        return kExitClean;
    }
    const std::string jit_head = "JIT " + c.event;
    std::size_t w_pid = 3, w_total = c.event.size(), w_jit = jit_head.size();
    for (const Row& r : rows) {
        w_pid = std::max(w_pid, r.process->pid.size());
        w_total = std::max(w_total, std::to_string(r.process->total).size());
        w_jit = std::max(w_jit, std::to_string(r.jit).size());
    }
    auto pad = [](const std::string& s, std::size_t w) {
        return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
    };
    out << pad("PID", w_pid) << "  " << pad("JIT", 6) << "  " << pad("UNNAMED", 7) << "  "
        << pad(c.event, w_total) << "  " << pad(jit_head, w_jit) << "  PROCESS\n";
    for (const Row& r : rows) {
        const exporting::Process& p = *r.process;
        out << pad(p.pid.empty() ? "-" : p.pid, w_pid) << "  " << pad(percent(r.share(r.jit)), 6)
            << "  " << pad(percent(r.share(r.unnamed)), 7) << "  "
            << pad(std::to_string(p.total), w_total) << "  " << pad(std::to_string(r.jit), w_jit)
            << "  " << escape_text(p.name.empty() ? "?" : p.name) << '\n';
    }
    return kExitClean;
}

}  // namespace vgjit
