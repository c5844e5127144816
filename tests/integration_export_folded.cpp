// integration_export_folded.cpp - integration_export's cases of folded
// stacks (their line sums are the profile's costs), Cachegrind's flat
// profile, one time line from several dumps, damaged profiles, and
// counts past 2^53 and 2^63; integration_export.cpp says what the
// program holds.

#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_format.hpp"
#include "callgrind_profile.hpp"
#include "integration_export.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace cg = vgjit::callgrind;
using nlohmann::json;
using vgjit::test::contains;
using vgjit::test::minijit;
using vgjit::test::read_file;
using namespace export_test;

BOOST_AUTO_TEST_SUITE(export_profiles)

// Folded stacks: the line sums are the Callgrind profile's costs.
BOOST_AUTO_TEST_CASE(folded_line_sums) {
    for (const std::string& prof : {plain_profile(), context_profile()}) {
        BOOST_TEST_CONTEXT(prof) {
            const Result r = export_profile({"--format=folded", prof});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            const cg::Profile p = cg::Profile::parse_file(prof);
            const std::size_t ev = p.event_index("Ir");
            std::map<std::string, std::uint64_t> leaf_sums, self_by_name;
            std::uint64_t sum = 0;
            std::istringstream in(r.out);
            std::string line;
            std::size_t jit_stacks = 0;
            while (std::getline(in, line)) {
                const std::size_t sp = line.rfind(' ');
                BOOST_TEST_REQUIRE(sp != std::string::npos);
                const std::uint64_t w = std::stoull(line.substr(sp + 1));
                const std::string stack = line.substr(0, sp);
                const std::size_t semi = stack.rfind(';');
                leaf_sums[semi == std::string::npos ? stack : stack.substr(semi + 1)] += w;
                sum += w;
                if (contains(stack, ";collatz_length;collatz_next")) ++jit_stacks;
            }
            BOOST_TEST(sum == p.totals()[ev]);
            for (const auto& [key, f] : p.functions()) {
                std::string n = cg::split_context_name(key.name).function;
                std::replace(n.begin(), n.end(), ';', ':');
                self_by_name[n] += f.self[ev];
            }
            for (const auto& [name, self] : self_by_name)
                if (self) BOOST_TEST(leaf_sums[name] == self, name);
            BOOST_TEST(jit_stacks > 0u);
        }
    }
}

// Cachegrind's profile has no calls: one frame per sample.
BOOST_AUTO_TEST_CASE(cachegrind_flat) {
    const std::string prof = tmp().file("cachegrind.out");
    const Result vg = vgjit::test::run_valgrind(
        {"--tool=cachegrind", "--cachegrind-out-file=" + prof}, {minijit(), example("calls.mj")});
    BOOST_TEST_REQUIRE(vg.status == 0, vg);
    const Result r = export_profile({"--format=folded", prof});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const cg::Profile p = cg::Profile::parse_file(prof);
    const std::size_t ev = p.event_index("Ir");
    std::uint64_t sum = 0;
    std::map<std::string, std::uint64_t> by_name;
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t sp = line.rfind(' ');
        const std::string stack = line.substr(0, sp);
        BOOST_TEST(stack.find(';') == std::string::npos, line);
        by_name[stack] += std::stoull(line.substr(sp + 1));
        sum += std::stoull(line.substr(sp + 1));
    }
    BOOST_TEST(sum == p.totals()[ev]);
    for (const std::string& fn : defined_functions(example("calls.mj"))) {
        std::uint64_t self = 0;
        for (const auto* f : p.functions_named(fn)) self += f->self[ev];
        BOOST_TEST(self > 0u, fn);
        BOOST_TEST(by_name[fn] == self, fn);
    }
    const Result j = export_profile({prof, "-o", tmp().file("cachegrind.json")});
    BOOST_TEST_REQUIRE(j.status == 0, j);
    BOOST_TEST(json::parse(read_file(tmp().file("cachegrind.json"))).at("meta").at("vgjitStacks") ==
               "flat");
}

// Successive dumps of one run: one time line, each dump's samples after
// those of the dump before it, placed by instruction count.
BOOST_AUTO_TEST_CASE(timeline_from_dumps) {
    TempDir dir("vgjit-export-dumps");
    const std::string base = dir.file("callgrind.out");
    const Result vg = vgjit::test::run_valgrind(
        {"--tool=callgrind", "--dump-every-bb=4000000", "--callgrind-out-file=" + base},
        {minijit(), example("calls.mj")});
    BOOST_TEST_REQUIRE(vg.status == 0, vg);
    // callgrind.out.1, .2, ... (the dumps) and callgrind.out (the last part).
    std::vector<std::string> files;
    for (int i = 1; std::filesystem::exists(base + "." + std::to_string(i)); ++i)
        files.push_back(base + "." + std::to_string(i));
    files.push_back(base);
    BOOST_TEST_REQUIRE(files.size() >= 3u);
    std::vector<std::uint64_t> part_totals;
    std::uint64_t total = 0;
    for (const std::string& f : files) {
        const cg::Profile p = cg::Profile::parse_file(f);
        part_totals.push_back(p.totals()[p.event_index("Ir")]);
        total += part_totals.back();
    }
    std::vector<std::string> args = {"-o", dir.file("dumps.json")};
    args.insert(args.end(), files.begin(), files.end());
    const Result r = export_profile(args);
    BOOST_TEST_REQUIRE(r.status == 0, r);
    const json doc = json::parse(read_file(dir.file("dumps.json")));
    const json& samples = doc.at("threads").at(0).at("samples");
    const json& time = samples.at("time");
    const json& weight = samples.at("weight");
    BOOST_TEST_REQUIRE(time.size() == weight.size());
    // Each sample's start, in Ir (the time axis counts millions of Ir).
    std::vector<std::uint64_t> ends;
    std::uint64_t cum = 0;
    for (std::uint64_t t : part_totals) ends.push_back(cum += t);
    std::vector<std::uint64_t> in_part(files.size(), 0);
    std::uint64_t last = 0, sum = 0;
    for (std::size_t i = 0; i < time.size(); ++i) {
        const auto start = static_cast<std::uint64_t>(std::llround(time[i].get<double>() * 1e6));
        const std::uint64_t w = weight[i].get<std::uint64_t>();
        BOOST_TEST_REQUIRE(start >= last);
        BOOST_TEST_REQUIRE(start == sum);  // back to back
        last = start;
        sum += w;
        const std::size_t k = static_cast<std::size_t>(
            std::upper_bound(ends.begin(), ends.end(), start) - ends.begin());
        BOOST_TEST_REQUIRE(k < files.size());
        in_part[k] += w;
    }
    BOOST_TEST(sum == total);
    BOOST_TEST(in_part == part_totals, boost::test_tools::per_element());
}

// Damaged profiles: an error with the file and line, and no file written
// (an existing OUT is left as it was).
BOOST_AUTO_TEST_CASE(damaged_profiles) {
    const std::string text = read_file(plain_profile());
    std::vector<std::string> lines;
    {
        std::istringstream in(text);
        std::string l;
        while (std::getline(in, l)) lines.push_back(l);
    }
    BOOST_TEST_REQUIRE(lines.size() > 1000u);
    auto write = [&](const std::string& name, const std::string& content) {
        const std::string path = tmp().file(name);
        std::ofstream(path, std::ios::binary) << content;
        return path;
    };
    auto join = [&](std::size_t n) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i) s += lines[i] + "\n";
        return s;
    };
    // The first cost line after a fn= line, to change.
    std::size_t cost_line = 0;
    for (std::size_t i = 1; i < lines.size() && !cost_line; ++i)
        if (lines[i - 1].rfind("fn=", 0) == 0 && !lines[i].empty() &&
            std::isdigit(static_cast<unsigned char>(lines[i][0])))
            cost_line = i;
    BOOST_TEST_REQUIRE(cost_line > 0u);
    std::vector<std::string> changed = lines;
    changed[cost_line] += "1";  // its last cost, ten times and more
    std::string changed_text;
    for (const std::string& l : changed) changed_text += l + "\n";
    std::vector<std::string> garbled = lines;
    garbled[600] = "this is not a profile line";
    std::string garbled_text;
    for (const std::string& l : garbled) garbled_text += l + "\n";

    struct Case {
        std::string name, content, where;
    };
    const std::size_t half = lines.size() / 2;
    const std::vector<Case> cases = {
        {"cut-at-line", join(half), ":" + std::to_string(half) + ": error: "},
        {"cut-in-line", join(half) + lines[half].substr(0, lines[half].size() / 2), ":"},
        {"garbled", garbled_text, ":601: error: malformed line"},
        {"changed-cost", changed_text, ":" + std::to_string(lines.size()) + ": error: \"totals:\""},
        {"empty", "", ": error: not a Callgrind profile"},
    };
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            const std::string in = write(c.name + ".out", c.content);
            for (const std::string format : {"firefox", "folded"}) {
                const std::string out = tmp().file(c.name + "." + format);
                const Result r = export_profile({"--format=" + format, in, "-o", out});
                BOOST_TEST(r.status == 1, r);
                BOOST_TEST(contains(r.err, in + c.where), r.err);
                BOOST_TEST(!std::filesystem::exists(out));
                BOOST_TEST(!std::filesystem::exists(out + ".vg-jit-tmp"));
            }
        }
    }
    // An existing output file stays as it was.
    const std::string kept = write("kept.json", "previous\n");
    const Result r = export_profile({tmp().file("garbled.out"), "-o", kept});
    BOOST_TEST(r.status == 1, r);
    BOOST_TEST(read_file(kept) == "previous\n");
    // An unknown event is an error too.
    const Result ev = export_profile({"--event=Dw", plain_profile(), "-o", tmp().file("ev.json")});
    BOOST_TEST(ev.status == 1, ev);
    BOOST_TEST(contains(ev.err, "no event 'Dw'"), ev.err);
    BOOST_TEST(!std::filesystem::exists(tmp().file("ev.json")));
}

// Counts past 2^53 (where JSON readers lose integers) and past 2^63 stay
// exact; a quote in a plain name is part of the name; a profile whose
// functions have one caller each has exact stacks and no warning.
BOOST_AUTO_TEST_CASE(large_counts_and_plain_names) {
    const std::uint64_t big = std::uint64_t{1} << 60;
    std::ostringstream prof;
    prof << "# callgrind format\nversion: 1\ncmd: synthetic\npositions: line\nevents: Ir\n"
         << "ob=/bin/true\nfl=a.c\nfn=main\n1 10\ncfn=f'x\ncalls=1 2\n2 " << big << "\n"
         << "fn=f'x\n3 " << big << "\n"
         << "totals: " << big + 10 << "\n"
         << "# a second part, a later dump of the same run\n"
         << "part: 2\npositions: line\nevents: Ir\nob=/bin/true\nfl=a.c\nfn=main\n1 " << big * 7
         << "\ntotals: " << big * 7 << "\n";
    const std::string in = tmp().file("large.out");
    std::ofstream(in, std::ios::binary) << prof.str();
    const std::string out = tmp().file("large.json");
    const Result r = export_profile({in, "-o", out});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(!contains(r.err, "warning"), r.err);
    const json doc = json::parse(read_file(out));
    BOOST_TEST(doc.at("meta").at("vgjitStacks") == "exact");
    BOOST_TEST(doc.at("meta").at("vgjitTotal") == std::to_string(big * 8 + 10));
    unsigned __int128 sum = 0;
    for (const json& w : doc.at("threads").at(0).at("samples").at("weight")) {
        BOOST_TEST(w.get<std::uint64_t>() <= (std::uint64_t{1} << 53));
        sum += w.get<std::uint64_t>();
    }
    BOOST_TEST((sum == static_cast<unsigned __int128>(big) * 8 + 10));
    std::set<std::string> names;
    for (const json& n : doc.at("shared").at("funcTable").at("name"))
        names.insert(
            doc.at("shared").at("stringArray").at(n.get<std::size_t>()).get<std::string>());
    BOOST_TEST(names.count("f'x") == 1u);

    const Result f = export_profile({"--format=folded", in});
    BOOST_TEST_REQUIRE(f.status == 0, f);
    // The weights as the profile has them (its total, 2^63 + 10, is exact too).
    BOOST_TEST(f.out ==
               "main " + std::to_string(big * 7 + 10) + "\nmain;f'x " + std::to_string(big) + "\n");
}

BOOST_AUTO_TEST_SUITE_END()
