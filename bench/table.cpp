// table.cpp: vgbench's table: its lines and notes, the formatting of
// figures, the combination of several invocations' tables into one, and the
// merging of a run's rows into the results file (bench/results.md).
#include "vgbench.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace vgbench {

std::vector<Row> g_rows;
std::vector<std::string> g_notes;

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string p10(unsigned long n) {
    int e = 0;
    unsigned long m = n;
    while (m >= 10 && m % 10 == 0) {
        m /= 10;
        ++e;
    }
    if (m == 1 && e >= 3) return "10^" + std::to_string(e);
    return std::to_string(n);
}

/// Notes under the table for a row that missed its target.  What the row
/// measures and where to look when it misses is in bench/README.md.
void missed_note(const std::string& row) {
    g_notes.push_back(row +
                      " missed its target: bench/README.md (\"When a row misses\") "
                      "says what the row's cost is made of and how to profile it.");
}

std::string verdict(bool met) { return met ? "met" : "**MISSED**"; }

namespace {

std::string read_first(const std::string& path, const std::string& key) {
    std::ifstream f(path);
    std::string l;
    while (std::getline(f, l))
        if (l.compare(0, key.size(), key) == 0) {
            auto p = l.find(':');
            if (p != std::string::npos) {
                std::string v = l.substr(p + 1);
                v.erase(0, v.find_first_not_of(" \t"));
                return v;
            }
        }
    return "?";
}

}  // namespace

std::string machine() {
    const std::string model = read_first("/proc/cpuinfo", "model name");
    const std::string mem = read_first("/proc/meminfo", "MemTotal");
    std::string os = read_first("/etc/os-release", "PRETTY_NAME");
    std::ifstream osr("/etc/os-release");
    std::string l;
    while (std::getline(osr, l))
        if (l.rfind("PRETTY_NAME=", 0) == 0) os = l.substr(12);
    os.erase(std::remove(os.begin(), os.end(), '"'), os.end());
    const double gib = std::strtod(mem.c_str(), nullptr) / 1024.0 / 1024.0;
    return std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs (" + model + "), " +
           fmt("%.1f GiB", gib) + " RAM, " + os;
}

namespace {

// One row of the combined table from the same row of each invocation:
// every invocation's figures side by side (" / "), and a verdict that is
// met only when every invocation met the target.
Row combine_row(const std::vector<Row>& same) {
    auto joined = [&same](std::string Row::*field) {
        std::string out;
        for (const auto& r : same) {
            if (!out.empty()) out += " / ";
            out += r.*field;
        }
        return out;
    };
    const Row& last = same.back();
    Row c = last;
    c.runs = std::to_string(same.size()) + " x " + last.runs;
    c.base = joined(&Row::base);
    c.patched = joined(&Row::patched);
    c.result = joined(&Row::result);
    if (last.verdict == "-") return c;
    std::size_t met = 0, within_noise = 0;
    bool missed = false;
    for (const auto& r : same) {
        met += r.verdict == "met";
        within_noise += r.verdict == kWithinNoise;
        missed = missed || r.verdict == verdict(false);
    }
    const std::string tally =
        " (met in " + std::to_string(met) + " of " + std::to_string(same.size()) + ")";
    if (met == same.size())
        c.verdict = "met" + tally;
    else if (met + within_noise == same.size())
        c.verdict = kWithinNoise + tally;
    else if (missed)
        c.verdict = verdict(false) + tally;
    else
        c.verdict = "**NOT RESOLVED**" + tally;
    return c;
}

}  // namespace

// The rows of several invocations of the same rows, combined row by row.
std::vector<Row> combine(const std::vector<std::vector<Row>>& invocations) {
    std::vector<Row> out;
    for (std::size_t i = 0; i < invocations.front().size(); ++i) {
        std::vector<Row> same;
        for (const auto& rows : invocations) {
            if (rows.size() != invocations.front().size() ||
                rows[i].id != invocations.front()[i].id)
                throw std::runtime_error("invocations produced different rows");
            same.push_back(rows[i]);
        }
        out.push_back(combine_row(same));
    }
    return out;
}

std::string table() {
    std::ostringstream o;
    o << "| # | Measurement | Runs | Baseline | Patched | Result | Target | Verdict |\n"
      << "|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : g_rows)
        o << "| " << r.id << " | " << r.what << " | " << r.runs << " | " << r.base << " | "
          << r.patched << " | " << r.result << " | " << r.target << " | " << r.verdict << " |\n";
    if (!g_notes.empty()) {
        o << "\n";
        for (const auto& n : g_notes) o << "- " << n << "\n";
    }
    return o.str();
}

namespace {

/// The row a table line or note belongs to: the number its id starts with
/// ("1a" -> 1; a note "Row 8, freed code ..." -> 8); 0 if none.
int row_number(const std::string& text) {
    std::size_t i = text.compare(0, 4, "Row ") == 0 ? 4 : 0;
    return std::atoi(text.c_str() + i);
}

}  // namespace

/// Merges the rows of this run into the results file `path`: a generated
/// preamble, then one "## Row N" section per row (its header line, its
/// table lines and notes).  Sections of rows this run measured are
/// replaced; the others are kept as the file had them.  Written to a
/// temporary file and renamed, so an interrupted run leaves the old file.
/// Returns false (with a message) if the file cannot be written.
bool merge_results(const std::string& path, const std::string& header) {
    std::map<int, std::string> sections;
    {
        std::ifstream in(path);
        std::string line;
        int cur = 0;
        while (std::getline(in, line)) {
            if (line.compare(0, 7, "## Row ") == 0) cur = std::atoi(line.c_str() + 7);
            if (cur > 0) sections[cur] += line + "\n";
        }
    }
    std::map<int, std::vector<const Row*>> rows;
    for (const auto& r : g_rows) rows[row_number(r.id)].push_back(&r);
    for (const auto& [n, list] : rows) {
        std::ostringstream o;
        o << "## Row " << n << "\n\n"
          << header << "\n\n"
          << "| # | Measurement | Runs | Baseline | Patched | Result | Target | Verdict |\n"
          << "|---|---|---|---|---|---|---|---|\n";
        for (const Row* r : list)
            o << "| " << r->id << " | " << r->what << " | " << r->runs << " | " << r->base << " | "
              << r->patched << " | " << r->result << " | " << r->target << " | " << r->verdict
              << " |\n";
        bool first = true;
        for (const auto& note : g_notes)
            if (row_number(note) == n) {
                o << (first ? "\n" : "") << "- " << note << "\n";
                first = false;
            }
        o << "\n";
        sections[n] = o.str();
    }
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << "# Benchmark results\n\n"
               "Generated by `make bench` (bench/vgbench): each section is the last run "
               "that measured its row, with that run's date, commit, machine and "
               "command. Do not edit by hand; the method and what each row measures "
               "are in [README.md](README.md).\n\n";
        for (const auto& [n, text] : sections) out << text;
        if (!out.flush()) {
            std::fprintf(stderr, "vgbench: cannot write %s\n", tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "vgbench: cannot rename %s to %s: %s\n", tmp.c_str(), path.c_str(),
                     std::strerror(errno));
        return false;
    }
    return true;
}

}  // namespace vgbench
