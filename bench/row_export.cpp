// row_export.cpp: row 9 of vgbench, vg-jit export on real profiles of
// CPython 3.13 and Node programs: time, output size, memory, and counted
// instructions.
#include "vgbench.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace vgbench {

namespace {

/// The programs row 9 profiles, written into the work directory.
const char* const kExportFibPy = R"(def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def main():
    print(fib(22))

main()
)";
const char* const kExportWorkPy = R"(import json, re, collections

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def words(text):
    return collections.Counter(re.findall(r"[a-z]+", text.lower()))

def main():
    data = [{"k": i, "v": str(i) * 3} for i in range(2000)]
    s = json.dumps(data)
    back = json.loads(s)
    c = words(s * 3)
    print(fib(20), len(back), len(c))

main()
)";
const char* const kExportFibJs = R"(function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function main() { let s = 0; for (let i = 0; i < 30; i++) s += fib(18); console.log(s); }
main();
)";
const char* const kExportWorkJs = R"(function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function words(t) {
  const m = new Map();
  for (const w of t.toLowerCase().match(/[a-z]+/g) || []) m.set(w, (m.get(w) || 0) + 1);
  return m;
}
function main() {
  const data = [];
  for (let i = 0; i < 5000; i++) data.push({k: i, v: String(i).repeat(3)});
  const s = JSON.stringify(data);
  const back = JSON.parse(s);
  const c = words(s + s);
  const sorted = back.map(x => x.v).sort();
  console.log(fib(24), back.length, c.size, sorted.length);
}
main();
)";

/// One profile row 9 takes and exports.
struct Profile {
    std::string label, what, script, text;
    bool python;
    std::vector<std::string> callgrind;  // extra Callgrind options
};

/// The profiles of row 9, in the order of the table.
std::vector<Profile> export_profiles() {
    return {
        {"py-fib", "CPython 3.13 fib.py", "export-fib.py", kExportFibPy, true, {}},
        {"py-work-ctx4",
         "CPython 3.13 json/re script, --separate-callers=4",
         "export-work.py",
         kExportWorkPy,
         true,
         {"--separate-callers=4"}},
        {"node-fib", "Node 20 fib.js", "export-fib.js", kExportFibJs, false, {}},
        {"node-work", "Node 20 JSON/Map script", "export-work.js", kExportWorkJs, false, {}},
        {"node-work-ctx8",
         "Node 20 JSON/Map script, --separate-callers=8",
         "export-work.js",
         kExportWorkJs,
         false,
         {"--separate-callers=8"}},
    };
}

/// Writes p's script into the work directory and profiles it once under
/// the patched Callgrind with `program` (its time is not measured); the
/// profile's path.
std::string take_profile(const Profile& p, const std::string& program) {
    const std::string dir = g_opt->workdir + "/";
    {
        std::ofstream f(dir + p.script, std::ios::binary);
        f << p.text;
        if (!f) throw std::runtime_error("cannot write " + dir + p.script);
    }
    const std::string prof = dir + "export-" + p.label + ".out";
    std::vector<std::string> take{g_opt->patched, "-q", "--tool=callgrind",
                                  "--callgrind-out-file=" + prof};
    take.insert(take.end(), p.callgrind.begin(), p.callgrind.end());
    if (p.python) {
        take.insert(take.end(), {program, "-X", "perf_jit", p.script});
    } else {
        take.insert(take.end(), {program, "--perf-prof", "--no-sparkplug", p.script});
    }
    // CPython writes /tmp/jit-PID.dump whatever its directory (Node its
    // jit-PID.dump in the work directory); under Valgrind PID is the pid
    // spawn() started.  Removed, taken or not: no file is left where
    // every user's profilers write.
    pid_t taker = -1;
    try {
        run_once({"export-take-" + p.label, take, true}, &taker);
    } catch (...) {
        if (taker > 0) std::filesystem::remove("/tmp/jit-" + std::to_string(taker) + ".dump");
        throw;
    }
    std::filesystem::remove("/tmp/jit-" + std::to_string(taker) + ".dump");
    return prof;
}

/// The timed exports of one profile, each format's figures.
struct ExportFigures {
    std::string times, sizes;  ///< each format's median wall time, output size
    double worst_ratio = 0;    ///< the largest output over the profile's size
    double worst_wall = 0;     ///< the largest median wall time, seconds
    double worst_rss = 0;      ///< the largest median peak memory, MB
};

/// Runs the exports `cmds` of a profile of in_mb MB in rotation.
ExportFigures time_exports(const Profile& p, const std::vector<Cmd>& cmds, double in_mb) {
    const auto res = rotate("9. vg-jit export, " + p.what, cmds, g_opt->repeats);
    ExportFigures f;
    for (std::size_t i = 0; i < cmds.size(); ++i) {
        const double out_mb =
            static_cast<double>(std::filesystem::file_size(cmds[i].argv[5])) / 1e6;
        const double wall = median_wall(res[i]);
        std::vector<double> rss;
        for (const auto& x : res[i]) rss.push_back(x.maxrss_kb / 1024.0);
        f.worst_ratio = std::max(f.worst_ratio, out_mb / in_mb);
        f.worst_wall = std::max(f.worst_wall, wall);
        f.worst_rss = std::max(f.worst_rss, median(rss));
        f.times += (i ? " / " : "") + fmt("%.2f s", wall);
        f.sizes += (i ? " / " : "") + fmt("%.3g MB", out_mb);
    }
    return f;
}

/// The instructions of the Firefox export of the profile `prof` (in_mb
/// MB) under an outer Cachegrind, per byte of profile, as the text the
/// row's line quotes; "" for profiles of 5 MB or more (Cachegrind runs
/// the export about 50 times slower).
std::string counted_export(const Profile& p, const std::string& prof, double in_mb) {
    if (in_mb >= 5) return "";
    const std::string cg_out = g_opt->workdir + "/" + "export-" + p.label + ".cg";
    run_once({"export-count-" + p.label,
              {g_opt->stock, "-q", "--tool=cachegrind", "--cache-sim=no",
               "--cachegrind-out-file=" + cg_out, g_opt->vg_jit, "export", prof, "-o",
               prof + ".counted"},
              true});
    return fmt("; %.0f instructions per profile byte (firefox, counted)",
               cachegrind_total(cg_out) / (in_mb * 1e6));
}

/// Takes and exports the profile p: its line, or a note if its program
/// is missing or its profile is not readable.  False if it missed its
/// target.
bool export_profile(const Profile& p) {
    const std::string& program = p.python ? g_opt->python : g_opt->node;
    if (program.empty()) {
        g_notes.push_back(std::string("Row 9: no ") +
                          (p.python ? "CPython 3.13 (--python)" : "Node (--node)") + ": " + p.what +
                          " was not exported.");
        return true;
    }
    const std::string prof = take_profile(p, program);
    const double in_mb = static_cast<double>(std::filesystem::file_size(prof)) / 1e6;
    std::vector<Cmd> cmds;
    for (const std::string format : {"firefox", "folded"})
        cmds.push_back(
            {"export-" + p.label + "-" + format,
             {g_opt->vg_jit, "export", "--format=" + format, prof, "-o", prof + "." + format},
             true});
    // A profile that Callgrind wrote malformed is reported, not timed.
    try {
        run_once(cmds[0]);
    } catch (const std::exception&) {
        std::ifstream log(log_path(cmds[0]));
        std::string first;
        std::getline(log, first);
        g_notes.push_back("Row 9: " + p.what + ": the profile is not readable (" + first +
                          "), not timed.");
        return true;
    }
    const ExportFigures f = time_exports(p, cmds, in_mb);
    const std::string counted = counted_export(p, prof, in_mb);
    const bool met = f.worst_ratio <= 4.0 && f.worst_wall <= std::max(1.0, in_mb);
    g_rows.push_back(
        {"9",
         "vg-jit export of a " + p.what + " profile (" + fmt("%.3g MB", in_mb) +
             "), --format=firefox / folded: wall time and output size" + counted +
             "; peak memory " + fmt("%.0f MB", f.worst_rss),
         std::to_string(g_opt->repeats), fmt("%.3g MB in", in_mb), f.times + "; " + f.sizes,
         fmt("%.2f x input", f.worst_ratio) + ", " + fmt("%.2f s/MB", f.worst_wall / in_mb),
         "<= 4 x input, <= 1 s per MB (at least 1 s)", verdict(met)});
    return met;
}

}  // namespace

// 9. vg-jit export on real profiles: CPython 3.13 (-X perf_jit) and Node
// 20 (--perf-prof) programs profiled by the patched Callgrind as a user
// would (first without --separate-callers), exported to both formats.
void row_export() {
    if (g_opt->vg_jit.empty()) throw std::runtime_error("row 9 needs --vg-jit");
    bool missed = false;
    for (const Profile& p : export_profiles())
        if (!export_profile(p)) missed = true;
    if (missed) missed_note("Row 9");
}

}  // namespace vgbench
