// integration_export_stacks.cpp - integration_export's cases of the
// stack rules: context names split, no caller put above a callee it did
// not lead to, the [unknown callers] marker on a profile built for the
// rules, frames next to each other are calls, and random call trees
// whose every activation the stacks agree with; integration_export.cpp
// says what the program holds.

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
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace cg = vgjit::callgrind;
using nlohmann::json;
using vgjit::test::contains;
using vgjit::test::minijit;
using vgjit::test::read_file;
using namespace export_test;

namespace {

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

/// The profile of stacks_stop_at_unknown_callers (its comment says what
/// it holds).
const char* const kUnknownCallersProfile = R"(# callgrind format
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

/// The samples of a Firefox Profiler document `doc` whose stack ends in a
/// function named `leaf`: each one's function names, from `leaf` down to
/// the root, and its weight.
std::vector<std::pair<std::vector<std::string>, std::uint64_t>> samples_in(
    const json& doc, const std::string& leaf) {
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
    std::vector<std::pair<std::vector<std::string>, std::uint64_t>> out;
    const json& samples = doc.at("threads").at(0).at("samples");
    for (std::size_t i = 0; i < samples.at("stack").size(); ++i) {
        std::size_t s = samples.at("stack")[i].get<std::size_t>();
        if (name_of_stack(s) != leaf) continue;
        std::vector<std::string> chain;
        for (;;) {
            chain.push_back(name_of_stack(s));
            const std::size_t off = st_prefix.at(s).get<std::size_t>();
            if (off == 0) break;
            s -= off;
        }
        out.push_back({chain, samples.at("weight")[i].get<std::uint64_t>()});
    }
    return out;
}

/// A random program run as a call tree: functions f0 .. f(nf - 1), each
/// activation's calls drawn at random (so what a function calls depends
/// on who called it).
struct RandomRun {
    unsigned nf = 0;
    /// Per function, its self cost per line.
    std::vector<std::map<std::uint64_t, std::uint64_t>> lines;
    /// Inclusive cost per (caller, callee, line of the call).
    std::map<std::tuple<unsigned, unsigned, std::uint64_t>, std::uint64_t> calls;
    /// Per function, the stack (root first) of its activation each time
    /// one spent a self cost.
    std::vector<std::vector<std::vector<unsigned>>> activations;
};

/// Draws a program from `rng` and runs it.
RandomRun random_run(std::mt19937& rng) {
    auto pick = [&rng](unsigned n) { return static_cast<unsigned>(rng() % n); };
    RandomRun tree;
    const unsigned nf = tree.nf = 2 + pick(8);
    std::vector<std::vector<unsigned>> callees(nf);
    for (unsigned f = 0; f < nf; ++f)
        for (unsigned k = pick(4); k > 0; --k) callees[f].push_back(pick(nf));
    auto& lines = tree.lines;
    auto& calls = tree.calls;
    auto& activations = tree.activations;
    lines.resize(nf);
    activations.resize(nf);
    int budget = 400;
    std::function<std::uint64_t(std::vector<unsigned>&)> run = [&](std::vector<unsigned>& stack) {
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
    return tree;
}

/// The Callgrind profile of `tree`.
std::string callgrind_text(const RandomRun& tree) {
    std::ostringstream prof;
    prof << "# callgrind format\nversion: 1\npositions: line\nevents: Ir\n"
         << "ob=/bin/true\nfl=a.c\n";
    std::uint64_t total = 0;
    for (unsigned f = 0; f < tree.nf; ++f) {
        prof << "fn=f" << f << "\n";
        for (const auto& [line, cost] : tree.lines[f]) {
            prof << line << " " << cost << "\n";
            total += cost;
        }
        for (const auto& [key, inclusive] : tree.calls)
            if (std::get<0>(key) == f)
                prof << "cfn=f" << std::get<1>(key) << "\ncalls=1 1\n"
                     << std::get<2>(key) << " " << inclusive << "\n";
    }
    prof << "totals: " << total << "\n";
    return prof.str();
}

/// Whether the folded stack `e` (function numbers, root first; -1 the
/// marker) of function `x` agrees with `act`, the stack of one of x's
/// activations: frames next to each other are the caller of x's
/// outermost activation and that activation, frames across a marker are
/// on its stack in that order, and without a marker at the bottom the
/// stack starts where the activation's stack starts.
bool agrees(const std::vector<int>& e, const std::vector<unsigned>& act, unsigned x) {
    // The activation's stack up to its outermost x.
    const std::vector<unsigned> s(act.begin(), std::find(act.begin(), act.end(), x) + 1);
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
            ok = p > prev && (marker || s[p - 1] == static_cast<unsigned>(prev_frame));
        if (!ok) break;
        prev = p;
        prev_frame = fr;
        marker = false;
    }
    return ok;
}

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
            std::uint64_t leaf_weight = 0;
            for (const auto& [chain, weight] : samples_in(doc, "leaf")) {
                leaf_weight += weight;
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
    const std::string prof = kUnknownCallersProfile;
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
    std::size_t checked = 0, with_marker = 0;
    for (int program = 0; program < 200; ++program) {
        BOOST_TEST_CONTEXT("program " << program) {
            const RandomRun tree = random_run(rng);
            const unsigned nf = tree.nf;
            const std::string in = tmp().file("random.out");
            std::ofstream(in, std::ios::binary) << callgrind_text(tree);
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
                for (const std::vector<unsigned>& act : tree.activations[x]) {
                    const bool ok = agrees(e, act, x);
                    std::string stack_text, act_text;
                    for (const std::string& f : frames) stack_text += f + ";";
                    for (const unsigned f : act) act_text += "f" + std::to_string(f) + ";";
                    BOOST_TEST(ok, "stack " << stack_text << " vs activation " << act_text);
                    ++checked;
                }
            }
            for (unsigned f = 0; f < nf; ++f) {
                std::uint64_t self = 0;
                for (const auto& [line, cost] : tree.lines[f]) self += cost;
                BOOST_TEST(leaf_sums[f] == self, "f" << f);
            }
        }
    }
    BOOST_TEST(checked > 1000u);
    BOOST_TEST(with_marker > 10u);
}

BOOST_AUTO_TEST_SUITE_END()
