// integration_export.cpp - `vg-jit export` on profiles of the example JIT
// (minijit) taken by the staged Callgrind and Cachegrind: the Firefox
// Profiler's processed profile loaded by the profiler's own loader
// (profiler-cli, from the npm registry; build-aux/install-deps.sh installs
// it into npm-tools/), whose per-function costs and call tree are compared
// with the Callgrind profile's own numbers; folded stacks against their
// line sums; stacks that never show a caller that did not call (a program
// and a profile built so that splitting costs among callers would); the
// time line of several dumps; damaged profiles.
//
// Environment (besides test_support.hpp's):
//   VGJIT_PROFILER_CLI  profiler-cli's script (default:
//                       $VGJIT_SRCDIR/npm-tools/node_modules/.bin/profiler-cli)
//   VGJIT_MINIJIT       overrides the minijit binary

#define BOOST_TEST_MODULE integration_export
#ifndef BOOST_TEST_DYN_LINK
#define BOOST_TEST_DYN_LINK
#endif
#include <boost/test/unit_test.hpp>

#include "callgrind_format.hpp"
#include "callgrind_profile.hpp"
#include "profiler_cli.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cg = vgjit::callgrind;
using nlohmann::json;
using vgjit::test::builddir;
using vgjit::test::contains;
using vgjit::test::env_or;
using vgjit::test::minijit;
using vgjit::test::profiler_cli_available;
using vgjit::test::ProfilerCli;
using vgjit::test::read_file;
using vgjit::test::Result;
using vgjit::test::run_checked;
using vgjit::test::RunOptions;
using vgjit::test::srcdir;
using vgjit::test::TempDir;
using vgjit::test::vg_jit;

namespace {

std::string example(const std::string& name) { return srcdir() + "/examples/" + name; }

/// The object minijit gives the functions it compiles from `file`.
std::string jit_object(const std::string& file) { return "minijit:" + file; }

const TempDir& tmp() {
    static TempDir dir("vgjit-export");
    return dir;
}

/// Profiles calls.mj under the staged Callgrind with `extra` options,
/// once per distinct `name`; returns the profile's path.
std::string callgrind_profile(const std::string& name, const std::vector<std::string>& extra) {
    static std::map<std::string, std::string> done;
    auto it = done.find(name);
    if (it != done.end()) return it->second;
    const std::string out = tmp().file(name);
    std::vector<std::string> args = {"--tool=callgrind", "--callgrind-out-file=" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = vgjit::test::run_valgrind(args, {minijit(), example("calls.mj")});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    done[name] = out;
    return out;
}

std::string plain_profile() { return callgrind_profile("callgrind.plain", {}); }
/// Contexts deep enough for the whole call chain of calls.mj's code
/// except its deepest recursions.
std::string context_profile() {
    return callgrind_profile("callgrind.ctx", {"--separate-callers=50"});
}

/// Runs vg-jit export; returns the result.
Result export_profile(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {vg_jit(), "export"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_checked(argv);
}

/// Per function of a Callgrind profile, as the export names it
/// ("OBJECT!NAME"): the Callgrind profile's own numbers.
struct Expected {
    std::map<std::string, std::uint64_t> self;
    /// Inclusive cost of the outermost activations: the nodes (contexts)
    /// whose chain of callers does not hold the function again, self plus
    /// their calls' inclusive costs.
    std::map<std::string, std::uint64_t> total;
    std::set<std::string> jit_functions;  ///< "OBJECT!NAME" of minijit's code
    std::uint64_t jit_self = 0;           ///< self cost of minijit's code
};

std::string key_of(const cg::FunctionKey& k) {
    return k.object + "!" + cg::split_context_name(k.name).function;
}

Expected expected(const cg::Profile& p, const std::string& jit_obj) {
    Expected e;
    const std::size_t ev = p.event_index("Ir");
    std::map<cg::FunctionKey, std::uint64_t> out;
    std::map<cg::FunctionKey, std::vector<cg::FunctionKey>> callers;
    for (const auto& [key, edge] : p.calls()) {
        out[key.first] += edge.inclusive[ev];
        callers[key.second].push_back(key.first);
    }
    std::set<cg::FunctionKey> nodes;
    for (const auto& [key, f] : p.functions()) nodes.insert(key);
    for (const auto& [key, edge] : p.calls()) nodes.insert(key.first);
    for (const cg::FunctionKey& k : nodes) {
        const auto f = p.functions().find(k);
        const std::uint64_t self = f == p.functions().end() ? 0 : f->second.self[ev];
        const std::string name = key_of(k);
        e.self[name] += self;
        if (k.object == jit_obj) {
            e.jit_functions.insert(name);
            e.jit_self += self;
        }
        // Nested: a node of the same function among its callers' callers.
        bool nested = cg::split_context_name(k.name).recursion > 1;
        std::set<cg::FunctionKey> seen{k};
        std::vector<cg::FunctionKey> todo = callers[k];
        while (!todo.empty() && !nested) {
            const cg::FunctionKey c = todo.back();
            todo.pop_back();
            if (!seen.insert(c).second) continue;
            if (key_of(c) == name) nested = true;
            for (const cg::FunctionKey& cc : callers[c]) todo.push_back(cc);
        }
        if (!nested) e.total[name] += self + out[k];
    }
    return e;
}

/// The functions profiler-cli lists: "LIBRARY!NAME" -> (self, total).
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> cli_functions(ProfilerCli& cli) {
    const json j = cli.query({"thread", "functions", "--limit", "10000000"});
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> m;
    for (const json& f : j.at("functions")) {
        auto& v = m[f.at("nameWithLibrary").get<std::string>()];
        v.first += f.at("selfSamples").get<std::uint64_t>();
        v.second += f.at("totalSamples").get<std::uint64_t>();
    }
    return m;
}

std::uint64_t category_samples(const json& samples, const std::string& category) {
    for (const json& c : samples.at("categoryBreakdown").at("categories"))
        if (c.at("name") == category) return c.at("samples").get<std::uint64_t>();
    return 0;
}

/// Functions defined in a MiniJit source ("fn NAME(").
std::vector<std::string> defined_functions(const std::string& source) {
    std::vector<std::string> names;
    const std::string text = read_file(source);
    const std::regex re(R"(\bfn\s+([A-Za-z_][A-Za-z_0-9]*)\s*\()");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
         ++it)
        names.push_back((*it)[1]);
    return names;
}

/// Checks what profiler-cli shows of `exported` against `profile`: every
/// function's self cost exactly, the categories, calls.mj's functions
/// present under their object; returns the listed functions.
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> check_functions(
    ProfilerCli& cli, const cg::Profile& profile, const Expected& e) {
    const std::uint64_t total = profile.totals()[profile.event_index("Ir")];
    const json samples = cli.query({"thread", "samples"});
    BOOST_TEST(samples.at("categoryBreakdown").at("totalSamples").get<std::uint64_t>() == total);
    BOOST_TEST(category_samples(samples, "JIT") == e.jit_self);
    BOOST_TEST(e.jit_self > total / 2);  // calls.mj spends most of its time in its code
    const auto listed = cli_functions(cli);
    for (const auto& [name, self] : e.self) {
        if (self == 0) continue;
        const auto it = listed.find(name);
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST_REQUIRE((it != listed.end()));
            BOOST_TEST(it->second.first == self);
        }
    }
    std::uint64_t listed_self = 0;
    for (const auto& [name, st] : listed) listed_self += st.first;
    BOOST_TEST(listed_self == total);
    for (const std::string& fn : defined_functions(example("calls.mj")))
        BOOST_TEST(e.jit_functions.count(jit_object("calls.mj") + "!" + fn) == 1u, fn);
    return listed;
}

/// The top-down call-tree node below `node` reached by the function names
/// path[i..]; null if none.  Names shared by functions of several objects
/// ("main") are tried in turn.
const json* descend(const json& node, const std::vector<std::string>& path, std::size_t i = 0) {
    if (i == path.size()) return &node;
    if (!node.contains("children")) return nullptr;
    for (const json& c : node.at("children"))
        if (c.at("name") == path[i])
            if (const json* found = descend(c, path, i + 1)) return found;
    return nullptr;
}

/// The frame that stands for callers a stack leaves out.
const std::string kUnknownCallers = "[unknown callers]";

/// Folded stacks: each line's frames (root first) and weight.
std::vector<std::pair<std::vector<std::string>, std::uint64_t>> folded(const std::string& text) {
    std::vector<std::pair<std::vector<std::string>, std::uint64_t>> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t sp = line.rfind(' ');
        BOOST_TEST_REQUIRE(sp != std::string::npos, line);
        std::vector<std::string> frames;
        std::istringstream st(line.substr(0, sp));
        std::string f;
        while (std::getline(st, f, ';')) frames.push_back(f);
        out.push_back({frames, std::stoull(line.substr(sp + 1))});
    }
    return out;
}

/// A program whose function `step` is called from `importer` and from
/// `runner`, and calls `leaf` only when `runner` called it: without
/// contexts, Callgrind's call edges (importer->step, runner->step,
/// step->leaf) cannot tell whether `importer` led to `leaf`, and a rebuild
/// that splits `leaf`'s cost among the callers of `step` puts it under
/// `importer`, which never led to it.
const char* const kCallersProgram = R"(fn leaf(n) {
    var s = 0;
    var i = 0;
    while (i < n) {
        s = s + i;
        i = i + 1;
    }
    return s;
}

fn step(which, n) {
    if (which == 1) {
        return leaf(n);
    }
    var s = 0;
    var i = 0;
    while (i < n) {
        s = s + 3 * i;
        i = i + 1;
    }
    return s;
}

fn importer(k) {
    var s = 0;
    var j = 0;
    while (j < k) {
        s = s + step(0, 200);
        j = j + 1;
    }
    return s;
}

fn runner(k) {
    var s = 0;
    var j = 0;
    while (j < k) {
        s = s + step(1, 200);
        j = j + 1;
    }
    return s;
}

fn main() {
    print importer(3000) + runner(3000);
}
)";

}  // namespace

BOOST_AUTO_TEST_SUITE(export_profiles)

BOOST_AUTO_TEST_CASE(context_names_split) {
    const cg::ContextName a = cg::split_context_name("is_even'2'is_odd'main");
    BOOST_TEST(a.function == "is_even");
    BOOST_TEST(a.recursion == 2u);
    BOOST_TEST(a.callers == (std::vector<std::string>{"is_odd", "main"}),
               boost::test_tools::per_element());
    const cg::ContextName b = cg::split_context_name("fib'main");
    BOOST_TEST(b.function == "fib");
    BOOST_TEST(b.recursion == 1u);
    BOOST_TEST(b.callers.size() == 1u);
    BOOST_TEST(cg::split_context_name("f'").function == "f'");
    BOOST_TEST(cg::split_context_name("plain").callers.empty());
}

// Without contexts: exact self costs, the JIT's functions under their
// names and category, and stacks reported as rebuilt.
BOOST_AUTO_TEST_CASE(firefox_without_contexts,
                     *boost::unit_test::precondition(profiler_cli_available)) {
    const std::string prof = plain_profile();
    const std::string out = tmp().file("plain.json");
    const Result r = export_profile({"--format=firefox", prof, "-o", out});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(contains(r.err, "warning: stacks rebuilt from call edges"), r.err);
    BOOST_TEST(contains(r.err, "--separate-callers"), r.err);
    const json doc = json::parse(read_file(out));
    BOOST_TEST(doc.at("meta").at("preprocessedProfileVersion").get<int>() == 75);
    BOOST_TEST(doc.at("meta").at("vgjitStacks") == "rebuilt");

    const cg::Profile p = cg::Profile::parse_file(prof);
    const Expected e = expected(p, jit_object("calls.mj"));
    ProfilerCli cli(out);
    const json meta = cli.query({"profile", "meta"});
    BOOST_TEST(contains(meta.dump(), "rebuilt from call edges"));
    const auto listed = check_functions(cli, p, e);
    // Stacks that stop short of their callers show the marker, which has
    // no cost of its own.
    BOOST_TEST_REQUIRE(listed.count(kUnknownCallers) == 1u);
    BOOST_TEST(listed.at(kUnknownCallers).first == 0u);
    BOOST_TEST(listed.at(kUnknownCallers).second > 0u);
    // Each JIT function's total is within 1% of Callgrind's inclusive cost:
    // what its stacks leave out is the cost of its callees that other
    // functions called too.
    for (const std::string& name : defined_functions(example("calls.mj"))) {
        const std::string fn = jit_object("calls.mj") + "!" + name;
        BOOST_TEST_CONTEXT(fn) {
            BOOST_TEST_REQUIRE(listed.count(fn) == 1u);
            BOOST_TEST_REQUIRE(e.total.count(fn) == 1u);
            const double want = static_cast<double>(e.total.at(fn));
            BOOST_TEST(std::fabs(static_cast<double>(listed.at(fn).second) - want) <= want / 100);
        }
    }
}

// With contexts: exact self and total costs per function, and a top-down
// tree whose nodes are Callgrind's contexts with their costs.
BOOST_AUTO_TEST_CASE(firefox_with_contexts,
                     *boost::unit_test::precondition(profiler_cli_available)) {
    const std::string prof = context_profile();
    const std::string out = tmp().file("ctx.json");
    const Result r = export_profile({prof, "--output=" + out});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    // minijit's compiler recurses deeper than Callgrind separates: the
    // warning says for how much the stacks are exact.
    BOOST_TEST(contains(r.err, "warning: stacks exact for "), r.err);
    BOOST_TEST(!contains(r.err, "rebuilt from call edges:"), r.err);
    const cg::Profile p = cg::Profile::parse_file(prof);
    const Expected e = expected(p, jit_object("calls.mj"));
    ProfilerCli cli(out);
    const auto listed = check_functions(cli, p, e);
    for (const std::string& fn : e.jit_functions) {
        BOOST_TEST_CONTEXT(fn) {
            BOOST_TEST_REQUIRE(listed.count(fn) == 1u);
            BOOST_TEST_REQUIRE(e.total.count(fn) == 1u);
            BOOST_TEST(listed.at(fn).second == e.total.at(fn));
        }
    }

    // Top-down: each context of calls.mj's code whose chain reaches the
    // root (shorter than --separate-callers) and has no recursion is one
    // call node, with the context's self cost and its self plus calls as
    // total.
    const json tree = cli.query({"thread", "samples-top-down", "--max-lines", "10000000"});
    const json& root = tree.at("regularCallTree");
    const std::size_t ev = p.event_index("Ir");
    std::map<cg::FunctionKey, std::uint64_t> out_incl;
    for (const auto& [key, edge] : p.calls()) out_incl[key.first] += edge.inclusive[ev];
    std::size_t checked = 0;
    for (const auto& [key, f] : p.functions()) {
        if (key.object != jit_object("calls.mj")) continue;
        const cg::ContextName cn = cg::split_context_name(key.name);
        if (cn.recursion > 1 || cn.callers.size() >= 50) continue;
        std::vector<std::string> path(cn.callers.rbegin(), cn.callers.rend());
        path.push_back(cn.function);
        const json* node = descend(root, path);
        BOOST_TEST_CONTEXT(key.name) {
            BOOST_TEST_REQUIRE(node != nullptr);
            BOOST_TEST(node->at("selfSamples").get<std::uint64_t>() == f.self[ev]);
            BOOST_TEST(node->at("totalSamples").get<std::uint64_t>() == f.self[ev] + out_incl[key]);
        }
        ++checked;
    }
    BOOST_TEST(checked >= defined_functions(example("calls.mj")).size());
}

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

// A callee of a function with several callers is never put under a
// caller that did not lead to it: without contexts its stack stops at the
// marker below the callers every call had (here minijit's main), with its
// whole self cost; with contexts its stack is the one chain that called it.
BOOST_AUTO_TEST_CASE(no_invented_callers) {
    const std::string source = tmp().file("callers.mj");
    std::ofstream(source, std::ios::binary) << kCallersProgram;
    for (const bool contexts : {false, true}) {
        BOOST_TEST_CONTEXT((contexts ? "--separate-callers=10" : "without contexts")) {
            const std::string prof = tmp().file(contexts ? "callers.ctx" : "callers.plain");
            std::vector<std::string> args = {"--tool=callgrind", "--callgrind-out-file=" + prof};
            if (contexts) args.push_back("--separate-callers=10");
            const Result vg = vgjit::test::run_valgrind(args, {minijit(), source});
            BOOST_TEST_REQUIRE(vg.status == 0, vg);
            const cg::Profile p = cg::Profile::parse_file(prof);
            const std::size_t ev = p.event_index("Ir");
            std::uint64_t leaf_self = 0;
            for (const auto& [key, f] : p.functions())
                if (cg::split_context_name(key.name).function == "leaf") leaf_self += f.self[ev];
            BOOST_TEST_REQUIRE(leaf_self > 0u);
            // The profile itself has importer -> step: the trap is there.
            bool importer_calls_step = false;
            for (const auto& [key, edge] : p.calls())
                if (cg::split_context_name(key.first.name).function == "importer" &&
                    cg::split_context_name(key.second.name).function == "step")
                    importer_calls_step = true;
            BOOST_TEST_REQUIRE(importer_calls_step);

            const Result r = export_profile({"--format=folded", prof});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            std::uint64_t under_leaf = 0;
            for (const auto& [frames, w] : folded(r.out)) {
                if (frames.back() != "leaf") continue;
                under_leaf += w;
                std::string text;
                for (const std::string& f : frames) text += (text.empty() ? "" : ";") + f;
                BOOST_TEST_CONTEXT(text) {
                    BOOST_TEST(std::count(frames.begin(), frames.end(), "importer") == 0);
                    BOOST_TEST_REQUIRE(frames.size() >= 3u);
                    BOOST_TEST(frames[frames.size() - 2] == "step");
                    if (contexts) {
                        BOOST_TEST(frames[frames.size() - 3] == "runner");
                        BOOST_TEST(std::count(frames.begin(), frames.end(), kUnknownCallers) == 0);
                    } else {
                        BOOST_TEST(frames[frames.size() - 3] == kUnknownCallers);
                        BOOST_TEST(std::count(frames.begin(), frames.end(), "runner") == 0);
                        BOOST_TEST_REQUIRE(frames.size() >= 4u);
                        BOOST_TEST(frames[frames.size() - 4] == "main");
                    }
                }
            }
            BOOST_TEST(under_leaf == leaf_self);
            if (!contexts) {
                BOOST_TEST(contains(r.err, "warning: stacks rebuilt from call edges"), r.err);
                BOOST_TEST(contains(r.err, kUnknownCallers), r.err);
            }

            // The Firefox profile has the same stacks.
            const std::string out = prof + ".json";
            BOOST_TEST_REQUIRE(export_profile({prof, "-o", out}).status == 0);
            const json doc = json::parse(read_file(out));
            const json& shared = doc.at("shared");
            const json& strings = shared.at("stringArray");
            const json& fn_names = shared.at("funcTable").at("name");
            const json& frame_func = shared.at("frameTable").at("func");
            const json& st_frame = shared.at("stackTable").at("frame");
            const json& st_prefix = shared.at("stackTable").at("prefixOffset");
            auto name_of_stack = [&](std::size_t s) {
                const std::size_t fn = frame_func.at(st_frame.at(s).get<std::size_t>());
                return strings.at(fn_names.at(fn).get<std::size_t>()).get<std::string>();
            };
            std::uint64_t leaf_weight = 0;
            const json& samples = doc.at("threads").at(0).at("samples");
            for (std::size_t i = 0; i < samples.at("stack").size(); ++i) {
                std::size_t s = samples.at("stack")[i].get<std::size_t>();
                if (name_of_stack(s) != "leaf") continue;
                leaf_weight += samples.at("weight")[i].get<std::uint64_t>();
                std::vector<std::string> chain;
                for (;;) {
                    chain.push_back(name_of_stack(s));
                    const std::size_t off = st_prefix.at(s).get<std::size_t>();
                    if (off == 0) break;
                    s -= off;
                }
                BOOST_TEST(std::count(chain.begin(), chain.end(), "importer") == 0);
                BOOST_TEST(std::count(chain.begin(), chain.end(), kUnknownCallers) ==
                           (contexts ? 0 : 1));
            }
            BOOST_TEST(leaf_weight == leaf_self);
        }
    }
}

// The stack rules on a profile built for them: a function called from two
// places that calls on only from one of them (eval: imp -> eval -> fib is
// what a rebuild from edges would invent), one reached by two callers of
// a common caller (x), recursion and mutual recursion entered from one
// caller (fib, p and q), and a function with more cost than the calls to
// it bring (worker, the start of a thread): each self cost whole, under
// the callers every activation had.
BOOST_AUTO_TEST_CASE(stacks_stop_at_unknown_callers) {
    const std::string prof = R"(# callgrind format
version: 1
creator: synthetic
cmd: synthetic
positions: line
events: Ir
ob=/bin/true
fl=a.c
fn=start
1 5
cfn=main
calls=1 10
2 86
fn=main
10 3
cfn=imp
calls=1 20
11 5
cfn=run
calls=1 30
12 53
cfn=a
calls=1 40
13 7
cfn=b
calls=1 45
14 8
cfn=worker
calls=1 60
15 10
fn=imp
20 2
cfn=eval
calls=5 50
21 3
fn=run
30 2
cfn=eval
calls=5 50
31 15
cfn=p
calls=1 70
32 36
fn=a
40 1
cfn=x
calls=1 48
41 6
fn=b
45 1
cfn=x
calls=1 48
46 7
fn=x
48 13
fn=eval
50 7
cfn=fib
calls=2 55
51 11
fn=fib
55 11
cfn=fib
calls=4 55
56 6
fn=p
70 17
cfn=q
calls=2 75
71 25
fn=q
75 19
cfn=p
calls=1 70
76 6
fn=worker
60 23
cfn=leafw
calls=1 65
61 29
fn=leafw
65 29
totals: 133
)";
    const std::string in = tmp().file("unknown-callers.out");
    std::ofstream(in, std::ios::binary) << prof;
    const Result r = export_profile({"--format=folded", in});
    BOOST_TEST_REQUIRE(r.status == 0, r);
    BOOST_TEST(r.out ==
               "[unknown callers];worker 23\n"
               "[unknown callers];worker;leafw 29\n"
               "start 5\n"
               "start;main 3\n"
               "start;main;[unknown callers];eval 7\n"
               "start;main;[unknown callers];eval;fib 11\n"
               "start;main;[unknown callers];x 13\n"
               "start;main;a 1\n"
               "start;main;b 1\n"
               "start;main;imp 2\n"
               "start;main;run 2\n"
               "start;main;run;p 17\n"
               "start;main;run;p;q 19\n");
    BOOST_TEST(contains(r.err, "warning: stacks rebuilt from call edges: 5 functions"), r.err);
    BOOST_TEST(contains(r.err, "stacks whole for 50 of 133 Ir"), r.err);

    const std::string out = tmp().file("unknown-callers.json");
    BOOST_TEST_REQUIRE(export_profile({in, "-o", out}).status == 0);
    const json doc = json::parse(read_file(out));
    BOOST_TEST(doc.at("meta").at("vgjitStacks") == "rebuilt");
    BOOST_TEST(doc.at("meta").at("vgjitExactWeight") == "50");
    // The marker is a function of its own, in the category "Other" (0),
    // without object or file.
    const json& shared = doc.at("shared");
    std::size_t markers = 0;
    for (std::size_t f = 0; f < shared.at("frameTable").at("func").size(); ++f) {
        const std::size_t fn = shared.at("frameTable").at("func")[f];
        const std::string name =
            shared.at("stringArray").at(shared.at("funcTable").at("name")[fn].get<std::size_t>());
        if (name != kUnknownCallers) continue;
        ++markers;
        BOOST_TEST(shared.at("frameTable").at("category")[f] == 0);
        BOOST_TEST(shared.at("funcTable").at("flags")[fn] == 0);
    }
    BOOST_TEST(markers == 1u);
}

// Every two frames next to each other in an exported stack (the marker
// aside) are a call of the profile: no stack makes up a caller.
BOOST_AUTO_TEST_CASE(adjacent_frames_are_calls) {
    for (const std::string& prof : {plain_profile(), context_profile()}) {
        BOOST_TEST_CONTEXT(prof) {
            const cg::Profile p = cg::Profile::parse_file(prof);
            std::set<std::pair<std::string, std::string>> calls;
            for (const auto& [key, edge] : p.calls())
                calls.insert({cg::split_context_name(key.first.name).function,
                              cg::split_context_name(key.second.name).function});
            const Result r = export_profile({"--format=folded", prof});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            std::size_t pairs = 0, markers = 0;
            for (const auto& [frames, w] : folded(r.out))
                for (std::size_t i = 1; i < frames.size(); ++i) {
                    if (frames[i] == kUnknownCallers || frames[i - 1] == kUnknownCallers) {
                        ++markers;
                        continue;
                    }
                    ++pairs;
                    BOOST_TEST(calls.count({frames[i - 1], frames[i]}) == 1u,
                               frames[i - 1] << " -> " << frames[i]);
                }
            BOOST_TEST(pairs > 100u);
            BOOST_TEST(markers > 0u);
        }
    }
}

// Random programs run as call trees (each activation's calls drawn at
// random, so what a function calls depends on who called it), written as
// the Callgrind profile of that run: every exported stack must agree
// with every activation of its function that had a self cost.  Frames
// next to each other (no marker between) must be the caller of the
// function's outermost activation and that activation; frames across a
// marker must be on the activation's stack in that order; a stack
// without a marker at its bottom must start where the activation's
// stack starts.  And each function's self cost is all there, once.
BOOST_AUTO_TEST_CASE(stacks_agree_with_every_activation) {
    std::mt19937 rng(20261127);
    auto pick = [&rng](unsigned n) { return static_cast<unsigned>(rng() % n); };
    std::size_t checked = 0, with_marker = 0;
    for (int program = 0; program < 200; ++program) {
        BOOST_TEST_CONTEXT("program " << program) {
            const unsigned nf = 2 + pick(8);
            std::vector<std::vector<unsigned>> callees(nf);
            for (unsigned f = 0; f < nf; ++f)
                for (unsigned k = pick(4); k > 0; --k) callees[f].push_back(pick(nf));
            std::vector<std::map<std::uint64_t, std::uint64_t>> lines(nf);
            std::map<std::tuple<unsigned, unsigned, std::uint64_t>, std::uint64_t> calls;
            std::vector<std::vector<std::vector<unsigned>>> activations(nf);
            int budget = 400;
            std::function<std::uint64_t(std::vector<unsigned>&)> run =
                [&](std::vector<unsigned>& stack) {
                    const unsigned f = stack.back();
                    std::uint64_t total = 0;
                    auto spend = [&](unsigned most) {
                        const std::uint64_t c = pick(most + 1);
                        if (!c) return;
                        lines[f][1 + pick(5)] += c;
                        total += c;
                        activations[f].push_back(stack);
                    };
                    spend(3);
                    if (stack.size() < 8)
                        for (const unsigned g : callees[f]) {
                            if (budget <= 0) break;
                            if (pick(2)) continue;
                            --budget;
                            const std::uint64_t site = 1 + pick(3);
                            stack.push_back(g);
                            const std::uint64_t inclusive = run(stack);
                            stack.pop_back();
                            calls[{f, g, site}] += inclusive;
                            total += inclusive;
                            spend(2);
                        }
                    return total;
                };
            for (unsigned root = 0; root < (pick(3) ? 1u : 2u); ++root)
                for (unsigned k = 1 + pick(3); k > 0; --k) {
                    std::vector<unsigned> stack{root};
                    run(stack);
                }
            std::ostringstream prof;
            prof << "# callgrind format\nversion: 1\npositions: line\nevents: Ir\n"
                 << "ob=/bin/true\nfl=a.c\n";
            std::uint64_t total = 0;
            for (unsigned f = 0; f < nf; ++f) {
                prof << "fn=f" << f << "\n";
                for (const auto& [line, cost] : lines[f]) {
                    prof << line << " " << cost << "\n";
                    total += cost;
                }
                for (const auto& [key, inclusive] : calls)
                    if (std::get<0>(key) == f)
                        prof << "cfn=f" << std::get<1>(key) << "\ncalls=1 1\n"
                             << std::get<2>(key) << " " << inclusive << "\n";
            }
            prof << "totals: " << total << "\n";
            const std::string in = tmp().file("random.out");
            std::ofstream(in, std::ios::binary) << prof.str();
            const Result r = export_profile({"--format=folded", in});
            BOOST_TEST_REQUIRE(r.status == 0, r);
            std::vector<std::uint64_t> leaf_sums(nf, 0);
            for (const auto& [frames, w] : folded(r.out)) {
                // Frames as function numbers, the marker as -1.
                std::vector<int> e;
                for (const std::string& f : frames)
                    e.push_back(f == kUnknownCallers ? -1 : std::stoi(f.substr(1)));
                BOOST_TEST_REQUIRE(e.back() >= 0);
                const unsigned x = static_cast<unsigned>(e.back());
                leaf_sums[x] += w;
                with_marker += std::count(e.begin(), e.end(), -1) > 0;
                for (const std::vector<unsigned>& act : activations[x]) {
                    // The activation's stack up to its outermost x.
                    const std::vector<unsigned> s(act.begin(),
                                                  std::find(act.begin(), act.end(), x) + 1);
                    std::map<unsigned, std::size_t> first;
                    for (std::size_t i = 0; i < s.size(); ++i) first.emplace(s[i], i);
                    bool marker = false, ok = true;
                    std::size_t prev = 0;
                    int prev_frame = -1;
                    for (const int fr : e) {
                        if (fr < 0) {
                            marker = true;
                            continue;
                        }
                        const auto it = first.find(static_cast<unsigned>(fr));
                        if (it == first.end()) {
                            ok = false;
                            break;
                        }
                        const std::size_t p = it->second;
                        if (prev_frame < 0)
                            ok = marker || p == 0;
                        else
                            ok = p > prev &&
                                 (marker || s[p - 1] == static_cast<unsigned>(prev_frame));
                        if (!ok) break;
                        prev = p;
                        prev_frame = fr;
                        marker = false;
                    }
                    std::string stack_text, act_text;
                    for (const std::string& f : frames) stack_text += f + ";";
                    for (const unsigned f : act) act_text += "f" + std::to_string(f) + ";";
                    BOOST_TEST(ok, "stack " << stack_text << " vs activation " << act_text);
                    ++checked;
                }
            }
            for (unsigned f = 0; f < nf; ++f) {
                std::uint64_t self = 0;
                for (const auto& [line, cost] : lines[f]) self += cost;
                BOOST_TEST(leaf_sums[f] == self, "f" << f);
            }
        }
    }
    BOOST_TEST(checked > 1000u);
    BOOST_TEST(with_marker > 10u);
}

BOOST_AUTO_TEST_SUITE_END()
